"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): the Gaussian whose covariance is a
low-rank matrix plus a diagonal, Sigma = W W^T + D, handled through the small m x m
"capacitance" matrix C = I + W^T D^-1 W (W: k x m, m << k) instead of k x k matrices:

    log det Sigma   = log det C + sum_i log D_ii                       (determinant lemma)
    x^T Sigma^-1 x  = x^T D^-1 x - |L_C^-1 W^T D^-1 x|^2,  C = L_C L_C^T   (Woodbury)
    rsample         = mu + W eps_W + sqrt(D) eps_D,  eps_W ~ N(0, I_m), eps_D ~ N(0, I_k)
"""

from __future__ import annotations

import math
from typing import Any

from .. import linalg
from .._tensor import Tensor
from ..creation import randn
from ..size import Size
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _broadcast, _solve_lower
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _eye_like(x: Tensor, n: int) -> Tensor:
    return x.new_ones(n).diag()


def _batch_capacitance_tril(w: Tensor, d: Tensor) -> Tensor:
    """The Cholesky factor of C = I + W^T D^-1 W (m x m)."""
    m = w.shape[-1]
    wt_dinv = w.mT / d.unsqueeze(-2)
    return linalg.cholesky(wt_dinv @ w + _eye_like(w, m))


def _batch_lowrank_logdet(w: Tensor, d: Tensor, capacitance_tril: Tensor) -> Tensor:
    """log det(W W^T + D) = 2 sum log diag(L_C) + sum log D (the matrix determinant lemma)."""
    return 2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) + d.log().sum(-1)


def _batch_lowrank_mahalanobis(w: Tensor, d: Tensor, x: Tensor, capacitance_tril: Tensor) -> Tensor:
    """x^T (W W^T + D)^-1 x = sum x^2 / D - |L_C^-1 W^T D^-1 x|^2 (the Woodbury identity)."""
    wt_dinv_x = ((w / d.unsqueeze(-1)) * x.unsqueeze(-1)).sum(-2)  # W^T D^-1 x, (..., m)
    term1 = (x**2 / d).sum(-1)
    shape = _broadcast(capacitance_tril.shape[:-2], wt_dinv_x.shape[:-1])
    m = w.shape[-1]
    lower = capacitance_tril.expand(*shape, m, m)
    term2 = (_solve_lower(lower, wt_dinv_x.expand(*shape, m)) ** 2).sum(-1)
    return term1 - term2


class LowRankMultivariateNormal(Distribution):
    """N(loc, cov_factor cov_factor^T + diag(cov_diag)) over vectors of size k = loc.shape[-1];
    cov_factor is (..., k, m), cov_diag (..., k) positive. Mean and mode loc, variance
    sum_j W_ij^2 + D_i, entropy (k (1 + log 2 pi) + log det Sigma) / 2."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        cov_factor: Tensor,
        cov_diag: Tensor,
        validate_args: bool | None = None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size(event_shape)}")
        k, m = event_shape[0], cov_factor.shape[-1]
        try:
            batch = _broadcast(loc.shape[:-1], cov_factor.shape[:-2], cov_diag.shape[:-1])
        except ValueError as e:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from e
        self.loc = loc.expand(*batch, k)
        self.cov_factor = cov_factor.expand(*batch, k, m)
        self.cov_diag = cov_diag.expand(*batch, k)
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._expanded(
            batch_shape,
            _instance,
            loc=self.loc,
            cov_diag=self.cov_diag,
            cov_factor=self.cov_factor,
        )
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    mean = mode = property(lambda self: self.loc, doc="loc: the mean, and the mode")

    def _matrix_shape(self) -> tuple:
        k = self._event_shape[0]
        return (*self._batch_shape, k, k)

    @lazy_property
    def variance(self) -> Tensor:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return ((w**2).sum(-1) + d).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """sqrt(D) chol(I + D^-1/2 W W^T D^-1/2): a Cholesky factor of Sigma."""
        k = self._event_shape[0]
        d_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        w = self._unbroadcasted_cov_factor / d_sqrt
        lower = d_sqrt * linalg.cholesky(w @ w.mT + _eye_like(w, k))
        return lower.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w @ w.mT + d.diag_embed()).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """D^-1 - A^T A with A = L_C^-1 W^T D^-1 (Woodbury)."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        wt_dinv = w.mT / d.unsqueeze(-2)
        a = linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        return (d.reciprocal().diag_embed() - a.mT @ a).expand(*self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        m = self.cov_factor.shape[-1]
        eps_w = randn(*shape[:-1], m, dtype=self.loc.dtype, device=self.loc.device)
        eps_d = randn(*shape, dtype=self.loc.dtype, device=self.loc.device)
        w_eps = (self._unbroadcasted_cov_factor * eps_w.unsqueeze(-2)).sum(-1)
        return self.loc + w_eps + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def _log_det(self) -> Tensor:
        return _batch_lowrank_logdet(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        )

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        diff = value - self.loc
        mahalanobis = _batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor,
            self._unbroadcasted_cov_diag,
            diff,
            self._capacitance_tril,
        )
        k = self._event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self) -> Tensor:
        k = self._event_shape[0]
        h = 0.5 * (k * (1.0 + math.log(2 * math.pi)) + self._log_det())
        return h.expand(*self._batch_shape) if len(self._batch_shape) else h
