"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): the Gaussian over
vectors, N(mu, Sigma), carried by the Cholesky factor L of Sigma = L L^T.

    log p(x) = -(k log 2 pi + |L^-1 (x - mu)|^2) / 2 - sum_i log L_ii
    entropy  = k (1 + log 2 pi) / 2 + sum_i log L_ii
    rsample  = mu + L eps,  eps ~ N(0, I)

The Cholesky factorisation and the triangular solves are written here with Tensor operations
(a column / a row at a time), so gradients reach loc and the matrices through them. They cost
O(k) operations per call: meant for the small event sizes of a course, not for k in the
thousands.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..creation import randn
from ..functions import stack
from ..size import Size
from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _cholesky(a: Tensor) -> Tensor:
    """L lower-triangular with L L^T = a, for a (..., k, k) symmetric positive definite.

    Column j: v = a[:, j] - L[:, :j] L[j, :j]^T, then L[j, j] = sqrt(v_j) and
    L[i, j] = v_i / L[j, j] below the diagonal."""
    k = a.shape[-1]
    below = a.new_tensor(np.tril(np.ones((k, k)))).to(a.dtype)  # below[i, j] = i >= j
    cols: list[Tensor] = []
    for j in range(k):
        v = a[..., :, j]
        if cols:
            done = stack(cols, -1)  # (..., k, j)
            v = v - (done * done[..., j : j + 1, :]).sum(-1)
        pivot = v[..., j]
        if bool((pivot <= 0).any()):
            raise ValueError(
                "cholesky: the matrix is not positive-definite (pivot "
                f"{j} is not positive): covariance_matrix / precision_matrix must be "
                "symmetric positive-definite"
            )
        cols.append(v / pivot.sqrt().unsqueeze(-1) * below[:, j])
    return stack(cols, -1)


def _solve_lower(lower: Tensor, b: Tensor) -> Tensor:
    """x with L x = b (forward substitution), L (..., k, k), b (..., k): broadcast over the
    leading dimensions of both. x_i = (b_i - sum_{j<i} L_ij x_j) / L_ii."""
    xs: list[Tensor] = []
    for i in range(lower.shape[-1]):
        r = b[..., i]
        if xs:
            r = r - (lower[..., i, :i] * stack(xs, -1)).sum(-1)
        xs.append(r / lower[..., i, i])
    return stack(xs, -1)


def _solve_lower_matrix(lower: Tensor, b: Tensor) -> Tensor:
    """X with L X = B, column by column."""
    return stack([_solve_lower(lower, b[..., :, c]) for c in range(b.shape[-1])], -1)


def _diagonal(m: Tensor) -> Tensor:
    k = m.shape[-1]
    return (m * m.new_ones(k).diag()).sum(-1)


def _broadcast(*shapes: Any) -> tuple:
    return tuple(np.broadcast_shapes(*(tuple(s) for s in shapes)))


class MultivariateNormal(Distribution):
    """N(loc, Sigma) over vectors of size k = loc.shape[-1]; give exactly one of
    ``covariance_matrix`` (Sigma), ``precision_matrix`` (Sigma^-1) or ``scale_tril`` (L)."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(loc, Tensor) or loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        (matrix,) = given
        name = (
            "scale_tril"
            if scale_tril is not None
            else "covariance_matrix"
            if covariance_matrix is not None
            else "precision_matrix"
        )
        if matrix.dim() < 2:
            raise ValueError(
                f"{name} matrix must be at least two-dimensional, with optional leading batch "
                f"dimensions"
            )
        k = loc.shape[-1]
        if tuple(matrix.shape[-2:]) != (k, k):
            raise ValueError(
                f"{name} must be a ({k}, {k}) matrix to match loc's last dimension {k}, got "
                f"shape {tuple(matrix.shape)}"
            )
        batch_shape = _broadcast(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(*batch_shape, k, k))
        self.loc = loc.expand(*batch_shape, k)
        super().__init__(batch_shape, (k,), validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = _cholesky(covariance_matrix)
        else:  # Sigma = P^-1 = L_P^-T L_P^-1 with P = L_P L_P^T
            inv_lp = _solve_lower_matrix(
                _cholesky(precision_matrix), precision_matrix.new_ones(k).diag()
            )
            self._unbroadcasted_scale_tril = _cholesky(inv_lp.transpose(-1, -2) @ inv_lp)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        batch_shape = Size(tuple(batch_shape))
        new = _instance if _instance is not None else object.__new__(type(self))
        k = self._event_shape[0]
        new.loc = self.loc.expand(*batch_shape, k)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "precision_matrix", "scale_tril"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(*batch_shape, k, k))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        k = self._event_shape[0]
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, k, k)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        k = self._event_shape[0]
        return (lower @ lower.transpose(-1, -2)).expand(*self._batch_shape, k, k)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        k = self._event_shape[0]
        inv = _solve_lower_matrix(
            self._unbroadcasted_scale_tril, self.loc.new_ones(k).diag()
        )  # L^-1
        return (inv.transpose(-1, -2) @ inv).expand(*self._batch_shape, k, k)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The diagonal of Sigma: sum_j L_ij^2."""
        return (self._unbroadcasted_scale_tril**2).sum(-1).expand(*self._batch_shape, -1)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        # (L eps)_i = sum_j L_ij eps_j, broadcast over the sample and batch dimensions
        return self.loc + (self._unbroadcasted_scale_tril * eps.unsqueeze(-2)).sum(-1)

    def _half_log_det(self) -> Tensor:
        return _diagonal(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        k = self._event_shape[0]
        z = _solve_lower(self._unbroadcasted_scale_tril, value - self.loc)
        mahalanobis = (z**2).sum(-1)
        return -0.5 * (k * math.log(2 * math.pi) + mahalanobis) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return h.expand(*self._batch_shape) if len(self._batch_shape) else h
