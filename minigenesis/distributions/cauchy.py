"""Cauchy(loc, scale) and HalfCauchy(scale): the ratio of two standard normals, heavy-tailed
(no mean, no variance)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..creation import rand
from .distribution import _LocationScale
from .folded import Folded

__all__ = ["Cauchy", "HalfCauchy"]


class Cauchy(_LocationScale):
    """p(x) = 1 / (pi gamma (1 + ((x - x0) / gamma)^2)), x0 = loc, gamma = scale.

    Mean undefined (NaN), variance infinite, mode x0; cdf 1/2 + atan(z) / pi, icdf
    x0 + gamma tan(pi (p - 1/2)), entropy log(4 pi gamma). Draws x0 + gamma tan(pi (u - 1/2))
    are reparameterised.
    """

    @property
    def mean(self) -> Tensor:
        return self.loc.new_full(self._extended_shape(), float("nan"))

    @property
    def variance(self) -> Tensor:
        return self.loc.new_full(self._extended_shape(), float("inf"))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = rand(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (z**2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class HalfCauchy(Folded):
    """p(x) = 2 / (pi gamma (1 + (x / gamma)^2)), x >= 0: |X| for X ~ Cauchy(0, gamma).

    Mean and variance infinite, mode 0; cdf 2 atan(x / gamma) / pi; entropy log(2 pi gamma).
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale.new_full(self._extended_shape(), float("inf"))

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance
