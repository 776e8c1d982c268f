"""Gumbel(loc, scale): the law of the maximum of many draws (type-I extreme value)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from ..dtypes import finfo
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286060  # the Euler-Mascheroni constant


class Gumbel(TransformedDistribution):
    """p(x) = exp(-(z + e^-z)) / beta, z = (x - mu) / beta, mu = loc, beta = scale.

    Built as u ~ Uniform(0, 1) pushed through x = mu - beta log(-log u) (reparameterised).
    Mean mu + beta gamma_E, mode mu, variance (pi beta)^2 / 6, entropy log beta + 1 + gamma_E,
    cdf exp(-e^-z).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        info = finfo(self.loc.dtype)  # (the dtypes' finfo: NumPy's has no bfloat16)
        base = Uniform(
            self.loc.new_full(self.loc.shape, float(info.tiny)),
            self.loc.new_full(self.loc.shape, 1 - float(info.eps)),
            validate_args=validate_args,
        )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-1),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        new = _instance if _instance is not None else object.__new__(type(self))
        batch_shape = tuple(batch_shape)
        new.loc = self.loc.expand(*batch_shape)
        new.scale = self.scale.expand(*batch_shape)
        new = super().expand(batch_shape, _instance=new)
        new.transforms = [*self.transforms[:-1], AffineTransform(new.loc, -new.scale)]
        return new

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev**2

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER)

    def __repr__(self) -> str:
        return f"Gumbel(loc: {self.loc}, scale: {self.scale})"
