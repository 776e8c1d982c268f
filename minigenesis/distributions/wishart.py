"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): the distribution of the
scatter matrix X = sum_{i<df} g_i g_i^T of df draws g_i ~ N(0, V), over p x p positive-definite
matrices, carried (as MultivariateNormal is) by the Cholesky factor L of V = L L^T:

    log p(X) = -df (p log 2 / 2 + log det L) - log Gamma_p(df / 2)
               + (df - p - 1) / 2 log det X - tr(V^-1 X) / 2
    mean = df V,   mode = (df - p - 1) V (NaN where df <= p + 1),
    Var(X_ij) = df (V_ij^2 + V_ii V_jj)
    entropy = (p + 1) (p log 2 / 2 + log det L) + log Gamma_p(df / 2)
              - (df - p - 1) / 2 psi_p(df / 2) + df p / 2

with Gamma_p the multivariate gamma function (``mvlgamma``) and psi_p(a) = sum_{i<p}
psi(a - i/2) its log-derivative. rsample is Bartlett's decomposition: A lower-triangular with
A_ii = sqrt(chi2(df - i)) and N(0, 1) below the diagonal gives X = (L A)(L A)^T, whose
gradient reaches L through the products (and df through the chi-squared draws). df must exceed
p - 1; for p - 1 < df < p the samples are singular with high probability (a warning, as in
PyTorch)."""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from .. import linalg
from .._tensor import Tensor
from ..creation import arange, randn, tensor
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .multivariate_normal import _broadcast, given_matrices, scale_tril_from
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """psi_p(x) = sum_{i<p} digamma(x - i/2): the derivative of log Gamma_p."""
    halves = arange(p, dtype=x.dtype, device=x.device) / 2
    return (x.unsqueeze(-1) - halves).digamma().sum(-1)


class Wishart(Distribution):
    """Wishart over p x p matrices with ``df`` degrees of freedom; give exactly one of
    ``covariance_matrix`` (V), ``precision_matrix`` (V^-1) or ``scale_tril`` (L)."""

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """As PyTorch's: df > p - 1 depends on the event shape, so the table is per instance."""
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self._event_shape[-1] - 1),
        }

    support = constraints.positive_definite
    has_rsample = True

    def __init__(
        self,
        df: Tensor | float,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        (param,) = given
        if param.dim() < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, numbers.Number):
            batch_shape = tuple(param.shape[:-2])
            self.df = tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = _broadcast(param.shape[:-2], df.shape)
            self.df = df.expand(*batch_shape)
        p = param.shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        name = (
            "scale_tril"
            if scale_tril is not None
            else "covariance_matrix"
            if covariance_matrix is not None
            else "precision_matrix"
        )
        setattr(self, name, param.expand(*batch_shape, p, p))
        if bool(self.df.lt(p).any()):
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for "
                "ndim - 1 < df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, (p, p), validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_from(
            scale_tril, covariance_matrix, precision_matrix
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Wishart:
        matrices = given_matrices(self)
        new = self._expanded(batch_shape, _instance, df=self.df, **matrices)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        p = self._event_shape[-1]
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, p, p)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        lower = self._unbroadcasted_scale_tril
        p = self._event_shape[-1]
        return (lower @ lower.mT).expand(*self._batch_shape, p, p)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        p = self._event_shape[-1]
        eye = self.df.new_ones(p).diag()
        inv = linalg.solve_triangular(self._unbroadcasted_scale_tril, eye, upper=False)  # L^-1
        return (inv.mT @ inv).expand(*self._batch_shape, p, p)

    @property
    def mean(self) -> Tensor:
        return self.df[..., None, None] * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self._event_shape[-1] - 1
        factor = factor.masked_fill(factor <= 0, math.nan)
        return factor[..., None, None] * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        v = self.covariance_matrix
        diag = v.diagonal(dim1=-2, dim2=-1)
        return self.df[..., None, None] * (v**2 + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Bartlett's decomposition (see the module docstring)."""
        p = self._event_shape[-1]
        shape = self._extended_shape(sample_shape)
        dtype, device = self._unbroadcasted_scale_tril.dtype, self._unbroadcasted_scale_tril.device
        chi2_df = self.df.unsqueeze(-1) - arange(p, dtype=dtype, device=device)
        chi2_df = chi2_df.expand(*self._batch_shape, p)
        diag = Chi2(chi2_df).rsample(sample_shape).sqrt()  # (*sample_shape, *batch_shape, p)
        below = randn(*shape, dtype=dtype, device=device).tril(-1)
        a = below + diag.diag_embed()
        la = self._unbroadcasted_scale_tril @ a
        return la @ la.mT

    def log_prob(self, value: Tensor) -> Tensor:
        self._check_sample(value)
        nu, p = self.df, self._event_shape[-1]
        lower = self._unbroadcasted_scale_tril
        log_det_l = lower.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = value.cholesky_solve(lower).diagonal(dim1=-2, dim2=-1).sum(-1)  # tr(V^-1 X)
        return (
            -nu * (p * _LOG_2 / 2 + log_det_l)
            - (nu / 2).mvlgamma(p)
            + (nu - p - 1) / 2 * linalg.slogdet(value)[1]
            - trace / 2
        )

    def entropy(self) -> Tensor:
        nu, p = self.df, self._event_shape[-1]
        log_det_l = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return (
            (p + 1) * (p * _LOG_2 / 2 + log_det_l)
            + (nu / 2).mvlgamma(p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )
