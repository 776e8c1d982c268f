"""Pareto(scale, alpha): the power law above a minimum ``scale``."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """p(x) = alpha x_m^alpha / x^(alpha + 1), x >= x_m = scale.

    Built as x_m e^E for E ~ Exponential(alpha) (reparameterised); cdf 1 - (x_m / x)^alpha.
    Mean alpha x_m / (alpha - 1) (infinite for alpha <= 1), mode x_m, variance
    x_m^2 alpha / ((alpha - 1)^2 (alpha - 2)) (infinite for alpha <= 2), entropy
    log(x_m / alpha) + 1/alpha + 1.
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    has_rsample = True

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Pareto:
        new = _instance if _instance is not None else object.__new__(type(self))
        batch_shape = tuple(batch_shape)
        new.scale = self.scale.expand(*batch_shape)
        new.alpha = self.alpha.expand(*batch_shape)
        new = super().expand(batch_shape, _instance=new)
        new.transforms = [ExpTransform(), AffineTransform(loc=0, scale=new.scale)]
        return new

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> Tensor:
        # alpha clamped to 1: (alpha / (alpha - 1)) x_m is then 1 / 0 = inf, as the integral
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale**2 * a / ((a - 1) ** 2 * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())

    def __repr__(self) -> str:
        return f"Pareto(scale: {self.scale}, alpha: {self.alpha})"
