"""The LU factorization with partial pivoting, P^T A = L U, as a differentiable op, and the
solves built on it (``linalg.lu_factor``, ``lu``, ``lu_solve``, ``solve_ex``, ``inv_ex``).

NumPy has no LU, so it is written out (Doolittle's elimination, LAPACK's getrf order): for each
column k, the row with the largest |value| on or below the diagonal (the first one on ties, as
LAPACK's idamax) is swapped up, the entries below the pivot are divided by it (the multipliers,
L's column), and the trailing block loses their outer product with the pivot row. The loop is
over the n columns; every step works on the whole batch at once. The result is LAPACK's packed
form: L's multipliers below the diagonal (its unit diagonal implied), U on and above it, and
``pivots`` (int32, 1-based): at step k row k was swapped with row pivots[k].

The gradient (PyTorch's linalg_lu_backward), with gL = tril(gLU, -1), gU = triu(gLU), for a
square A

    gA = P L^-T [ tril(L^T gL, -1) + triu(gU U^T) ] U^-T

and its block forms for wide (U = [U1 U2]) and tall (L = [L1; L2]) matrices, written with
triangular solves (Tensor ops), so second derivatives work too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Op
from ..autograd.tensor_base import TensorBase
from ..backend import get_array_module, quiet_fp
from .linalg import check_matrices, solve_triangular
from .shape import Cat


@quiet_fp
def lu_factor_array(a: Any) -> tuple[Any, Any, Any]:
    """(LU packed, pivots (int32, 1-based), info (int32: 0, or the first k with U[k, k] = 0,
    1-based, as LAPACK's getrf)) of a batch of m x n matrices."""
    xp = get_array_module(a)
    m, n = a.shape[-2:]
    k_max = min(m, n)
    batch = a.shape[:-2]
    lu = a.reshape((-1, m, n)).copy()
    b = xp.arange(lu.shape[0])
    pivots = xp.zeros((lu.shape[0], k_max), dtype=xp.int32)
    info = xp.zeros(lu.shape[0], dtype=xp.int32)
    for k in range(k_max):
        p = k + xp.argmax(xp.abs(lu[:, k:, k]), axis=1)  # the first largest, as idamax
        pivots[:, k] = p + 1
        row_k = lu[b, k].copy()
        lu[b, k] = lu[b, p]
        lu[b, p] = row_k
        pivot = lu[:, k, k]
        zero = pivot == 0
        info = xp.where((info == 0) & zero, k + 1, info)
        # a zero pivot leaves its column as it is (LAPACK divides only by a non-zero pivot)
        scale = xp.where(zero, 1.0, pivot).astype(lu.dtype)
        lu[:, k + 1 :, k] /= scale[:, None]
        lu[:, k + 1 :, k + 1 :] -= lu[:, k + 1 :, k : k + 1] * lu[:, k : k + 1, k + 1 :]
    return (
        lu.reshape(batch + (m, n)),
        pivots.reshape(batch + (k_max,)),
        info.reshape(batch),
    )


def permutation_of(pivots: Any, m: int) -> Any:
    """perm with (P^T A)[i] = A[perm[i]]: LAPACK's swaps applied, in order, to 0..m-1."""
    xp = get_array_module(pivots)
    flat = pivots.reshape((-1, pivots.shape[-1])).astype(xp.int64) - 1
    perm = xp.broadcast_to(xp.arange(m), (flat.shape[0], m)).copy()
    b = xp.arange(flat.shape[0])
    for k in range(flat.shape[1]):
        p = flat[:, k]
        at_k = perm[b, k].copy()
        perm[b, k] = perm[b, p]
        perm[b, p] = at_k
    return perm.reshape(pivots.shape[:-1] + (m,))


class LUFactor(Op):
    """(LU, pivots, info) of A: see the module docstring; pivots and info get no gradient."""

    @staticmethod
    def forward(ctx, a):
        check_matrices(a, "linalg.lu_factor", square=False)
        lu, pivots, info = lu_factor_array(a)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(lu)
        ctx.pivots = pivots
        return lu, pivots, info

    @staticmethod
    def backward(ctx, g_lu, g_pivots, g_info):
        if g_lu is None:
            return (None,)
        (lu,) = ctx.saved_tensors
        m, n = lu.shape[-2:]
        k = min(m, n)
        xp = get_array_module(lu._data)
        l_ = lu[..., :, :k].tril(-1) + TensorBase._make(xp.eye(m, k, dtype=lu._data.dtype))
        u = lu[..., :k, :].triu()
        gl, gu = g_lu[..., :, :k].tril(-1), g_lu[..., :k, :].triu()
        if m == n:
            ga = (l_.mT @ gl).tril(-1) + (gu @ u.mT).triu()
            ga = solve_triangular(u.mT, ga, upper=False, left=False)  # ga U^-T
            ga = solve_triangular(l_.mT, ga, upper=True, unit=True)  # L^-T ga
        elif m < n:  # wide: U = [U1 U2], U1 square
            ga = solve_triangular(
                u[..., :k].mT, (l_.mT @ gl - gu @ u.mT).tril(-1), upper=False, left=False
            )
            ga = mg_cat((ga + gu[..., :k].triu(), gu[..., k:]), -1)
            ga = solve_triangular(l_.mT, ga, upper=True, unit=True)
        else:  # tall: L = [L1; L2], L1 square
            ga = solve_triangular(
                l_[..., :k, :].mT, (gu @ u.mT - l_.mT @ gl).triu(), upper=True, unit=True
            )
            ga = mg_cat((ga + gl[..., :k, :].tril(-1), gl[..., k:, :]), -2)
            ga = solve_triangular(u.mT, ga, upper=False, left=False)
        inverse = xp.argsort(permutation_of(ctx.pivots, m), axis=-1)
        return (ga.gather(-2, _rows(inverse, ga)),)  # P ga: ga's rows put back


def mg_cat(tensors: tuple, dim: int) -> Any:
    return Cat.apply(dim, *tensors)


def _rows(index: Any, like: Any) -> Any:
    """A gather index picking whole rows: index (..., m) -> (..., m, n) int64."""
    xp = get_array_module(index)
    full = xp.broadcast_to(index[..., :, None], like.shape[:-2] + (index.shape[-1], like.shape[-1]))
    return TensorBase._make(xp.ascontiguousarray(full, dtype=np.int64))


def permute_rows(b: Any, perm: Any) -> Any:
    """b[..., perm[i], :] as row i (a gather: its gradient scatters back)."""
    xp = get_array_module(b._data)
    batch = np.broadcast_shapes(b.shape[:-2], perm.shape[:-1])
    b = b.expand(batch + tuple(b.shape[-2:]))
    perm = xp.broadcast_to(perm, batch + perm.shape[-1:])
    return b.gather(-2, _rows(perm, b))


def lu_solve_left(lu: Any, pivots: Any, b: Any, adjoint: bool) -> Any:
    """X with A X = B (``adjoint``: A^T X = B), A = P L U given packed: two triangular solves
    and a row permutation, all differentiable (to LU and to B)."""
    n = lu.shape[-1]
    xp = get_array_module(lu._data)
    perm = permutation_of(pivots._data, n)
    if not adjoint:  # L U X = P^T B
        y = solve_triangular(lu, permute_rows(b, perm), upper=False, unit=True)
        return solve_triangular(lu, y, upper=True)
    # U^T L^T (P^T X) = B: W = L^-T U^-T B, then X = P W (rows of W put back)
    w = solve_triangular(lu.mT, b, upper=False)
    w = solve_triangular(lu.mT, w, upper=True, unit=True)
    return permute_rows(w, xp.argsort(perm, axis=-1))


def lu_solve_array(lu: Any, pivots: Any, b: Any) -> Any:
    """X with A X = B on arrays, by forward and back substitution, for a singular A too: a zero
    pivot divides by zero (inf / NaN, LAPACK's getrs gives the same). No gradient: what
    solve_ex / inv_ex return for a matrix whose info is not 0."""
    xp = get_array_module(lu)
    n = lu.shape[-1]
    perm = permutation_of(pivots, n)
    batch = np.broadcast_shapes(lu.shape[:-2], b.shape[:-2])
    lu = xp.broadcast_to(lu, batch + lu.shape[-2:])
    x = xp.take_along_axis(xp.broadcast_to(b, batch + b.shape[-2:]), perm[..., :, None], axis=-2)
    x = x.astype(lu.dtype, copy=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(1, n):  # L y = P^T b, L unit lower
            x[..., i, :] -= xp.einsum("...j,...jk->...k", lu[..., i, :i], x[..., :i, :])
        for i in reversed(range(n)):  # U x = y
            x[..., i, :] -= xp.einsum("...j,...jk->...k", lu[..., i, i + 1 :], x[..., i + 1 :, :])
            x[..., i, :] /= lu[..., i, i : i + 1]
    return x
