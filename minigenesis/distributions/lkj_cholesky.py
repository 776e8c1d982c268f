"""LKJCholesky(dim, concentration): the Cholesky factor L of a random correlation matrix.

The LKJ distribution on dim x dim correlation matrices has density proportional to
det(C)^(eta - 1) (eta = concentration: 1 is uniform over correlation matrices, larger eta
favours the identity). Over the factor L (C = L L^T, rows of unit length) the density is
prod_{i=2..dim} L_ii^(dim - i + 2 (eta - 1)) / Z, with
log Z = (dim - 1)/2 log(pi) + mvlgamma(alpha - 1/2, dim - 1) - (dim - 1) lgamma(alpha),
alpha = eta + (dim - 1)/2 (Lewandowski, Kurowicka and Joe 2009; PyTorch's form).

Sampling is the onion method (the paper's Algorithm 3.2): row i >= 1 is sqrt(y_i) times a
uniform direction in its first i coordinates, y_i ~ Beta(i/2, eta + (dim - 2)/2 - (i - 1)/2),
row 0 is e_1, and the diagonal takes the rest of the unit length. Every off-diagonal entry of
L L^T then has the same marginal, Beta(eta - 1 + dim/2, eta - 1 + dim/2) stretched to (-1, 1).
(PyTorch 2.13 draws y_i ~ Beta(i - 1/2, ...): from the third row on its samples' correlations
are wider than the LKJ density its own log_prob states, e.g. E[r_20^2] = 0.215, not 1/6, for
dim 3 and concentration 2; this one follows the paper.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..creation import arange, randn
from ..functions.joining import cat
from ..size import Size
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Cholesky factors of dim x dim correlation matrices (see the module docstring)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(
        self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.shape
        # the onion method's Beta for row i >= 1: (i/2, eta + (dim - 2)/2 - (i - 1)/2), as
        # (offset + 1)/2 and marginal - offset/2 with offset = (0, 0, 1, ..., dim - 2)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=self.concentration.dtype, device=self.concentration.device)
        offset = cat([offset.new_zeros(1), offset])
        self._beta = Beta((offset + 1) / 2, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, Size((dim, dim)), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        batch_shape = Size(tuple(batch_shape))
        new = _instance if _instance is not None else object.__new__(type(self))
        new.dim = self.dim
        new.concentration = self.concentration.expand(*batch_shape)
        new._beta = self._beta.expand((*batch_shape, self.dim))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> Tensor:
        y = self._beta.sample(sample_shape).unsqueeze(-1)  # (..., dim, 1): each row's length^2
        shape = self._extended_shape(sample_shape)
        u = randn(*shape, dtype=y.dtype, device=y.device).tril(-1)
        norms = u.norm(dim=-1, keepdim=True)
        u = u / norms.clamp(min=float(np.finfo(y.dtype.numpy_dtype).tiny))
        first_row_zero = u.new_ones(self.dim, 1)
        first_row_zero[0] = 0.0
        w = y.sqrt() * u * first_row_zero
        tiny = float(np.finfo(w.dtype.numpy_dtype).tiny)
        diag = (1 - (w**2).sum(-1)).clamp(min=tiny).sqrt()
        return w + diag.diag_embed()

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        order = arange(2, self.dim + 1, dtype=self.concentration.dtype, device=value.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = (alpha - 0.5).mvlgamma(dm1)
        return unnormalized - (0.5 * dm1 * math.log(math.pi) + numerator - denominator)
