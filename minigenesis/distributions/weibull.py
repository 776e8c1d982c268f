"""Weibull(scale, concentration): lifetimes whose hazard grows (k > 1) or falls (k < 1) as a
power of time."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .exponential import Exponential
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """p(x) = (k / lam) (x / lam)^(k-1) exp(-(x / lam)^k), x > 0, lam = scale, k = concentration.

    Built as lam E^(1/k) for E ~ Exponential(1) (reparameterised); cdf 1 - exp(-(x/lam)^k).
    Mean lam Gamma(1 + 1/k), mode lam ((k - 1) / k)^(1/k) (k > 1), variance
    lam^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2), entropy gamma_E (1 - 1/k) + log(lam / k) + 1.
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(self.scale.new_ones(self.scale.shape), validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Weibull:
        new = _instance if _instance is not None else object.__new__(type(self))
        batch_shape = tuple(batch_shape)
        new.scale = self.scale.expand(*batch_shape)
        new.concentration = self.concentration.expand(*batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        new = super().expand(batch_shape, _instance=new)
        new.transforms = [
            PowerTransform(exponent=new.concentration_reciprocal),
            AffineTransform(loc=0, scale=new.scale),
        ]
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        return self.scale**2 * ((1 + 2 * r).lgamma().exp() - (1 + r).lgamma().exp() ** 2)

    def entropy(self) -> Tensor:
        k = self.concentration
        return _EULER * (1 - self.concentration_reciprocal) + (self.scale / k).log() + 1

    def __repr__(self) -> str:
        return f"Weibull(scale: {self.scale}, concentration: {self.concentration})"
