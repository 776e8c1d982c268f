"""HalfNormal(scale): |X| for X ~ Normal(0, scale)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """p(x) = sqrt(2 / pi) / sigma * exp(-x^2 / (2 sigma^2)), x >= 0: twice the Normal's
    density folded onto the positive half.

    Mean sigma sqrt(2 / pi), mode 0, variance sigma^2 (1 - 2 / pi), entropy = the Normal's
    entropy - log 2, cdf 2 Phi(x / sigma) - 1 = erf(x / (sigma sqrt 2)). Draws |sigma eps| are
    reparameterised.
    """

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> Tensor:
        return self.scale.new_zeros(self._batch_shape)

    @property
    def variance(self) -> Tensor:
        return self.scale**2 * (1 - 2 / math.pi)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return log_prob.masked_fill(value.expand(*log_prob.shape) < 0, float("-inf"))

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)

    def __repr__(self) -> str:
        return f"HalfNormal(scale: {self.scale})"
