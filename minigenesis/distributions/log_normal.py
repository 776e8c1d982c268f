"""LogNormal(loc, scale): e^X for X ~ Normal(loc, scale)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """p(y) = exp(-(log y - mu)^2 / (2 sigma^2)) / (y sigma sqrt(2 pi)), y > 0.

    Mean e^(mu + sigma^2/2), mode e^(mu - sigma^2), variance (e^(sigma^2) - 1) e^(2 mu + sigma^2),
    entropy = Normal's entropy + mu (the log-det of exp averaged: E[log y] = mu). Draws
    exp(mu + sigma eps) are reparameterised; the cdf is Phi((log y - mu) / sigma).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale**2 / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale**2).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale**2
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc

    def __repr__(self) -> str:
        return f"LogNormal(loc: {self.loc}, scale: {self.scale})"
