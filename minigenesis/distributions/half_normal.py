"""HalfNormal(scale): |X| for X ~ Normal(0, scale)."""

from __future__ import annotations

import math
from typing import Any

from .._tensor import Tensor
from .folded import Folded
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(Folded):
    """p(x) = sqrt(2 / pi) / sigma * exp(-x^2 / (2 sigma^2)), x >= 0: twice the Normal's
    density folded onto the positive half.

    Mean sigma sqrt(2 / pi), mode 0, variance sigma^2 (1 - 2 / pi), entropy = the Normal's
    entropy - log 2, cdf 2 Phi(x / sigma) - 1 = erf(x / (sigma sqrt 2)). Draws |sigma eps| are
    reparameterised.
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale**2 * (1 - 2 / math.pi)
