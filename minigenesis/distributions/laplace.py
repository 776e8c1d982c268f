"""Laplace(loc, scale): the double-exponential distribution."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..creation import rand
from .distribution import _LocationScale

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    """p(x) = exp(-|x - loc| / scale) / (2 scale).

    rsample by inversion: loc - scale sign(u) log(1 - |u|), u ~ U(-1, 1). Mean loc, variance
    2 scale^2, entropy 1 + log(2 scale).
    """

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale**2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # u in [eps - 1, 1) (eps: the dtype's machine epsilon): u = -1 would give log(0)
        eps = float(np.finfo(self.loc.dtype.numpy_dtype).eps)
        u = rand(*shape, dtype=self.loc.dtype, device=self.loc.device) * (2 - eps) + (eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
