"""Folded(base): |X| for X ~ base, a distribution symmetric about 0 with a ``scale``
(HalfNormal, HalfCauchy)."""

from __future__ import annotations

import math

from .._tensor import Tensor
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["Folded"]


class Folded(TransformedDistribution):
    """|X| for X symmetric about 0: the density doubled on x >= 0, p(x) = 2 p_X(x); so
    cdf 2 F_X(x) - 1, icdf F_X^-1((q + 1) / 2), entropy H(X) - log 2, and mode 0.
    Draws |x| are reparameterised where X's are."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base: Distribution, validate_args: bool | None = None) -> None:
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return self.scale.new_zeros(self._batch_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        # -inf wherever value >= 0 fails: below 0, and at NaN (as PyTorch)
        return log_prob.masked_fill(~(value.expand(*log_prob.shape) >= 0), float("-inf"))

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scale: {self.scale})"
