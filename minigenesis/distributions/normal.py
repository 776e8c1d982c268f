"""Normal(loc, scale): the Gaussian N(mu, sigma^2)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import randn
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class Normal(Distribution):
    """p(x) = exp(-(x - mu)^2 / (2 sigma^2)) / (sigma sqrt(2 pi)).

    rsample: mu + sigma * eps with eps ~ N(0, 1) (reparameterised: differentiable in mu, sigma).
    entropy: 1/2 + log(sigma sqrt(2 pi)).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        return self._expanded(batch_shape, _instance, loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

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
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.variance) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        """Phi((x - mu) / sigma) = (1 + erf((x - mu) / (sigma sqrt 2))) / 2."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Tensor) -> Tensor:
        """mu + sigma sqrt(2) erfinv(2p - 1)."""
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + _LOG_SQRT_2PI + self.scale.log()
