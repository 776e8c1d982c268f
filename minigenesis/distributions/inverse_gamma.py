"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate); the conjugate
prior of a Normal's variance."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """p(x) = b^a x^(-a-1) e^(-b/x) / Gamma(a), x > 0, a = concentration, b = rate.

    Mean b / (a - 1) (a > 1, else infinite), mode b / (a + 1), variance b^2 / ((a-1)^2 (a-2))
    (a > 2, else infinite), entropy a + log b + lgamma(a) - (1 + a) psi(a). Draws 1 / Gamma
    draws (not reparameterised here, as Gamma's).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = base.rate.new_full((), -1.0)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        result = self.rate / (a - 1).masked_fill(a <= 1, 1.0)
        return result.masked_fill(a <= 1, float("inf"))

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        result = self.rate**2 / ((a - 1) ** 2 * (a - 2)).masked_fill(a <= 2, 1.0)
        return result.masked_fill(a <= 2, float("inf"))

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()

    def __repr__(self) -> str:
        return f"InverseGamma(concentration: {self.concentration}, rate: {self.rate})"
