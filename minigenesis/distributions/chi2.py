"""Chi2(df): the sum of df squared standard normals, Gamma(df / 2, rate 1/2)."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from . import constraints
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["Chi2"]


class Chi2(Gamma):
    """p(x) = x^(k/2 - 1) e^(-x/2) / (2^(k/2) Gamma(k/2)), x > 0, k = df: Gamma(k/2, 1/2), so
    mean k, variance 2k, and the rest are Gamma's."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, df.new_full(df.shape, 0.5), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = _instance if _instance is not None else object.__new__(type(self))
        return super().expand(batch_shape, new)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2

    def __repr__(self) -> str:
        return f"Chi2(df: {self.df})"
