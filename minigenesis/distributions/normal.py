"""Normal(loc, scale): the Gaussian N(mu, sigma^2)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import randn
from .distribution import _LocationScale

__all__ = ["Normal"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class Normal(_LocationScale):
    """p(x) = exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)).

    rsample: mu + sigma * eps with eps ~ N(0, 1) (reparameterised: differentiable in mu, sigma).
    entropy: 1/2 + log(sigma sqrt(2 pi)).
    """

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale**2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        """Phi((x - mu) / sigma) = (1 + erf((x - mu) / (sigma sqrt 2))) / 2."""
        self._check_sample(value)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Tensor) -> Tensor:
        """mu + sigma sqrt(2) erfinv(2p - 1)."""
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + _LOG_SQRT_2PI + self.scale.log()
