"""mg.linalg: torch.linalg's names. Norms (vector_norm, matrix_norm, norm), and the
differentiable decompositions and solves of ``ops/linalg.py``: det, slogdet, inv, solve,
solve_triangular, cholesky, qr, eigh / eigvalsh, svd / svdvals, pinv, lstsq, matrix_rank, cond,
matrix_exp; the LU family (lu_factor, lu, lu_solve, solve_ex, inv_ex), tensorinv,
tensorsolve, vander, householder_product; and the products cross, matrix_power, multi_dot,
matmul, vecdot, diagonal.

Matrices are the last two dims of a tensor; the dims before them are a batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import return_types, tensor_linalg
from ._tensor import Tensor
from .backend import get_array_module
from .ops import linalg as L
from .ops import lu as LU
from .ops.linalg import LinAlgError
from .ops.same_dtype import check_same_dtype

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eigh",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

# torch.return_types.linalg_*: tuples with named fields
linalg_slogdet = return_types.linalg_slogdet
linalg_qr = return_types.linalg_qr
linalg_eigh = return_types.linalg_eigh
linalg_svd = return_types.linalg_svd
linalg_cholesky_ex = return_types.linalg_cholesky_ex
linalg_lu_factor = return_types.linalg_lu_factor
linalg_lu_factor_ex = return_types.linalg_lu_factor_ex
linalg_lu = return_types.linalg_lu
linalg_solve_ex = return_types.linalg_solve_ex
linalg_inv_ex = return_types.linalg_inv_ex
linalg_lstsq = return_types.linalg_lstsq


def _tensor(x: Any, name: str, arg: str = "A") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"linalg.{name}: {arg} must be a Tensor, got {type(x).__name__}")


# ---------------------------------------------------------------------- norms
def vector_norm(
    x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """(sum |x_i|^ord)^(1/ord) over ``dim`` (all elements when None); ord=inf is max |x_i|."""
    if isinstance(ord, str):
        raise ValueError(f"vector_norm: ord must be a number, got {ord!r} (see matrix_norm)")
    L.check_norm_has_identity(x._data, ord, dim)
    if dtype is not None:
        x = x.to(dtype)
    return x.norm(ord, dim, keepdim)


def matrix_norm(
    x: Tensor, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """The norm of the matrices in the two ``dim``s (a batch in the others): 'fro' sqrt(sum
    x_ij^2); 'nuc' the sum of the singular values; 2 / -2 the largest / smallest singular value;
    1 / -1 the largest / smallest column sum of |x|; inf / -inf the same over rows."""
    if len(dim) != 2:
        raise ValueError(f"matrix_norm: dim must name 2 dims, got {dim!r}")
    L.check_matrix_shape(x, "linalg.matrix_norm", square=False)
    if dtype is not None:
        x = x.to(dtype)
    if ord == "fro":
        return vector_norm(x, 2, dim, keepdim)
    d0, d1 = (d % x.ndim for d in dim)
    if ord in ("nuc", 2, -2):
        moved = x.movedim((d0, d1), (-2, -1))
        s = svdvals(moved)
        # (amax / amin: a repeated largest or smallest value shares the gradient, as PyTorch)
        plain_sum = ord == "nuc" or (ord == 2 and not s.shape[-1])  # (an empty matrix: 0)
        out = s.sum(-1) if plain_sum else s.amax(-1) if ord == 2 else s.amin(-1)
    elif ord in (1, -1, float("inf"), float("-inf")):
        summed, other = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = x.abs().sum(summed, keepdim=True)
        out = sums.amax(other, keepdim=True) if ord > 0 else sums.amin(other, keepdim=True)
        out = out.squeeze(max(d0, d1)).squeeze(min(d0, d1))
    else:
        raise RuntimeError(
            f"linalg.matrix_norm: Order {ord} not supported (use 'fro', 'nuc', 2, -2, 1, -1, "
            f"inf or -inf)"
        )
    if keepdim:
        out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
    return out


def norm(
    x: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """torch.linalg.norm: with ord=None the 2-norm of the flattened ``dim``s (Frobenius for a
    matrix); with an ord, a vector norm for one dim (or a 1-D input), a matrix norm for two."""
    if ord is None:
        return vector_norm(x, 2, dim, keepdim, dtype=dtype)
    dims = (dim,) if isinstance(dim, int) else dim
    if dims is None:
        if x.ndim not in (1, 2):
            raise ValueError(
                f"norm: with ord={ord!r} and no dim the input must be 1-D or 2-D, got {x.ndim}-D"
            )
        dims = tuple(range(x.ndim))
    if len(dims) == 1:
        return vector_norm(x, ord, dims, keepdim, dtype=dtype)
    return matrix_norm(x, ord, tuple(dims), keepdim, dtype=dtype)


# ---------------------------------------------------------------------- determinants, inverses
def det(A: Tensor) -> Tensor:  # noqa: N803  (PyTorch's argument names)
    """The determinant of each matrix in the batch."""
    _tensor(A, "det")
    return L.Det.apply(A)


def slogdet(A: Tensor) -> tuple:  # noqa: N803
    """(sign, logabsdet): det(A) = sign * exp(logabsdet), without overflow."""
    _tensor(A, "slogdet")
    return linalg_slogdet(*L.SlogDet.apply(A))


def inv(A: Tensor) -> Tensor:  # noqa: N803
    """A^-1; a singular matrix raises LinAlgError naming its batch element."""
    _tensor(A, "inv")
    return L.Inverse.apply(A)


def _is_vector_rhs(A: Tensor, B: Tensor) -> bool:  # noqa: N803
    """PyTorch's rule: B is a (batch of) vector(s) if it is 1-D, or has A's shape minus A's
    last dim."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:  # noqa: N803
    """X with A X = B (``left``) or X A = B. B is (*, n, k) or, a batch of vectors, (*, n); batch
    dims broadcast. A singular A raises LinAlgError naming its batch element."""
    _tensor(A, "solve")
    _tensor(B, "solve", "B")
    vector = _is_vector_rhs(A, B)
    if vector:
        a = A if left else A.mT
        return L.Solve.apply(a, B.unsqueeze(-1)).squeeze(-1)
    if left:
        return L.Solve.apply(A, B)
    return L.Solve.apply(A.mT, B.mT).mT


def solve_triangular(
    A: Tensor,  # noqa: N803
    B: Tensor,  # noqa: N803
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
) -> Tensor:
    """X with A X = B (or X A = B) for triangular A: only the ``upper`` (or lower) triangle of A
    is read, and with ``unitriangular`` its diagonal is taken as ones."""
    _tensor(A, "solve_triangular")
    _tensor(B, "solve_triangular", "B")
    return L.solve_triangular(A, B, bool(upper), left, bool(unitriangular))


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:  # noqa: N803
    """L lower triangular with A = L L^T (``upper``: U with A = U^T U), A symmetric
    positive-definite (LinAlgError naming the failing leading minor otherwise)."""
    _tensor(A, "cholesky")
    return L.Cholesky.apply(A, bool(upper))


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> tuple:  # noqa: N803
    """(L, info): cholesky without raising. info (int32, one per matrix) is 0 where A is
    positive-definite, else the order of the first leading minor that is not, and L is NaN
    there (code that adds jitter until info is 0 reads only info)."""
    _tensor(A, "cholesky_ex")
    try:
        factor = L.Cholesky.apply(A, bool(upper))
        xp = get_array_module(A._data)
        return linalg_cholesky_ex(factor, Tensor._make(xp.zeros(A.shape[:-2], dtype=np.int32)))
    except LinAlgError:
        if check_errors:
            raise
    xp = get_array_module(A._data)
    info = L.cholesky_info(A._data)
    failed = Tensor._make(xp.asarray(info > 0)[..., None, None])
    eye = Tensor._make(xp.eye(A.shape[-1], dtype=A._data.dtype))
    factor = L.Cholesky.apply(A.masked_fill(failed, 0) + eye * failed, bool(upper))
    return linalg_cholesky_ex(
        factor.masked_fill(failed, float("nan")), Tensor._make(xp.asarray(info))
    )


def pinv(
    A: Tensor,  # noqa: N803
    *,
    atol: float | None = None,
    rtol: float | None = None,
    hermitian: bool = False,
) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values below max(atol, rtol * s_max) count as 0
    (default rtol: eps * max(m, n)). ``hermitian`` is accepted; the SVD serves both cases."""
    _tensor(A, "pinv")
    atol, rtol = L.pinv_tolerances(A._data, atol, rtol)
    return L.Pinv.apply(A, atol, rtol)


def matrix_rank(
    A: Tensor,  # noqa: N803
    *,
    atol: float | None = None,
    rtol: float | None = None,
    hermitian: bool = False,
) -> Tensor:
    """How many singular values exceed max(atol, rtol * s_max) (int64, no gradient)."""
    _tensor(A, "matrix_rank")
    atol, rtol = L.pinv_tolerances(A._data, atol, rtol)
    s = svdvals(A.detach())._data
    xp = get_array_module(s)
    cutoff = xp.maximum(atol, rtol * s[..., :1])
    return Tensor._make((s > cutoff).sum(-1).astype(np.int64))


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None):  # noqa: N803
    """The least-squares solution of A X = B, as pinv(A) @ B (differentiable); ``rank`` always,
    ``residuals`` (squared, per column, when m > n and A has full rank) and ``singular_values``
    for the drivers that give them in PyTorch (gelsd/gelss; gels: residuals only)."""
    _tensor(A, "lstsq")
    _tensor(B, "lstsq", "B")
    drivers = (None, "gelsy", "gelsd", "gelss", "gels")
    if driver not in drivers:
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of {drivers[1:]}")
    vector = B.ndim == A.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    rtol = rcond if rcond is not None else float(np.finfo(A._data.dtype).eps) * max(A.shape[-2:])
    x = L.Pinv.apply(A, 0.0, rtol) @ b
    m, n = A.shape[-2:]
    xp = get_array_module(A._data)
    rank = matrix_rank(A, rtol=rtol)
    empty = Tensor._make(xp.empty((0,), dtype=A._data.dtype))
    residuals, svals = empty, empty
    if driver in ("gelsd", "gelss", "gels") and m > n and bool((rank._data == n).all()):
        residuals = ((A @ x - b) ** 2).sum(-2)
        residuals = residuals.squeeze(-1) if vector else residuals
    if driver in ("gelsd", "gelss"):
        svals = svdvals(A)
    return linalg_lstsq(x.squeeze(-1) if vector else x, residuals, rank, svals)


# ---------------------------------------------------------------------- decompositions
def qr(A: Tensor, mode: str = "reduced") -> tuple:  # noqa: N803
    """A = QR: 'reduced' (Q m x k, R k x n, k = min(m, n)), 'complete' (Q m x m), or 'r' (R only,
    Q empty: not differentiable)."""
    _tensor(A, "qr")
    return linalg_qr(*L.QR.apply(A, mode))


def eigh(A: Tensor, UPLO: str = "L") -> tuple:  # noqa: N803
    """A = V diag(w) V^T for symmetric A (only the UPLO triangle read), w ascending. Gradients
    are defined for losses that do not depend on each eigenvector's sign."""
    _tensor(A, "eigh")
    return linalg_eigh(*L.Eigh.apply(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:  # noqa: N803
    """The eigenvalues of symmetric A, ascending."""
    return eigh(A, UPLO).eigenvalues


def svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> tuple:  # noqa: N803
    """A = U diag(S) Vh, S descending; ``full_matrices`` makes U m x m and Vh n x n (their extra
    columns take no gradient). Gradients are defined for losses that do not depend on the signs
    of singular vector pairs."""
    _tensor(A, "svd")
    return linalg_svd(*L.SVD.apply(A, bool(full_matrices)))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:  # noqa: N803
    """The singular values of A, descending."""
    _tensor(A, "svdvals")
    return L.SVD.apply(A, False)[1]


# ---------------------------------------------------------------------- products
def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:  # noqa: A002
    """The cross product of 3-vectors along ``dim`` (default the last), inputs broadcast."""
    _tensor(input, "cross", "input")
    return tensor_linalg.cross(input, other, dim, "linalg.cross")


def matrix_power(A: Tensor, n: int) -> Tensor:  # noqa: N803
    """A^n for an integer n (n < 0: powers of A^-1)."""
    _tensor(A, "matrix_power")
    return tensor_linalg.matrix_power(A, n)


def multi_dot(tensors: list) -> Tensor:
    """A_1 @ A_2 @ ... @ A_n; the first may be 1-D (a row), the last 1-D (a column)."""
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    check_same_dtype("multi_dot", **{f"tensor {i}": t for i, t in enumerate(tensors)})
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    return out


def matrix_exp(A: Tensor) -> Tensor:  # noqa: N803
    """exp(A) = I + A + A^2/2! + ... (scaling and squaring)."""
    _tensor(A, "matrix_exp")
    return L.MatrixExp.apply(A)


def cond(A: Tensor, p: Any = None) -> Tensor:  # noqa: N803
    """The condition number ||A|| ||A^-1||: with p None or 2 the ratio of the largest to the
    smallest singular value (-2: its inverse); other p ('fro', 'nuc', 1, -1, inf, -inf) through
    matrix_norm of A and of inv(A)."""
    _tensor(A, "cond")
    L.check_matrix_shape(A, "linalg.cond", square=False)
    if A.numel() == 0:  # NumPy defines no condition number of a 0x0 matrix: 0, as PyTorch
        return A.new_zeros(A.shape[:-2])
    if p in (None, 2, -2, "nuc"):  # 'nuc': ||A||_* ||A^-1||_* = sum(s) sum(1/s)
        s = svdvals(A)
        ratio = s[..., 0] / s[..., -1] if p != "nuc" else s.sum(-1) * s.reciprocal().sum(-1)
        return ratio if p != -2 else 1 / ratio
    inverse, info = inv_ex(A)  # singular (a zero pivot): inf, as PyTorch (inv would raise)
    return (matrix_norm(A, p) * matrix_norm(inverse, p)).masked_fill(info > 0, float("inf"))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: N803
    """The ``offset``-th diagonal of the matrices (by default of the last two dims)."""
    _tensor(A, "diagonal")
    return A.diagonal(offset, dim1, dim2)


def matmul(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """input @ other (torch.linalg.matmul is torch.matmul)."""
    return input @ other


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """sum_i x_i y_i along ``dim`` (inputs broadcast); on autocast's lower-precision lists."""
    return tensor_linalg.vecdot_low_precision_unit(x, y, dim)


# ---------------------------------------------------------------------- LU and what uses it
def _where(info: Tensor) -> str:
    """'(Batch element i): ' for the first failed matrix of a batch, '' for a single one."""
    if info.ndim == 0:
        return ""
    return f"(Batch element {int(np.flatnonzero(info.numpy().reshape(-1))[0])}): "


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> tuple:  # noqa: N803
    """(LU, pivots, info): P^T A = L U with partial pivoting, packed as LAPACK's getrf (L's
    multipliers below the diagonal, U on and above it; pivots 1-based int32: row k was swapped
    with row pivots[k]); info (int32 per matrix) is 0, or k where U[k, k] is exactly zero. See
    ops/lu.py (and its gradient)."""
    _tensor(A, "lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu_, pivots, info = LU.LUFactor.apply(A)
    if check_errors and bool((info != 0).any()):
        raise LinAlgError(
            f"torch.linalg.lu_factor_ex: {_where(info)}U[{int(info.max())},{int(info.max())}] is "
            f"zero: the matrix is singular"
        )
    return linalg_lu_factor_ex(lu_, pivots, info)


def lu_factor(A: Tensor, *, pivot: bool = True) -> tuple:  # noqa: N803
    """(LU, pivots) of lu_factor_ex; a singular matrix (a zero on U's diagonal) raises, since
    lu_solve would divide by it."""
    lu_, pivots, info = lu_factor_ex(A, pivot=pivot)
    if bool((info != 0).any()):
        k = int(info.reshape(-1)[int(np.flatnonzero(info.numpy().reshape(-1))[0])])
        raise RuntimeError(
            f"torch.linalg.lu_factor: {_where(info)}U[{k},{k}] is zero and using it on lu_solve "
            f"would result in a division by zero. If you still want to perform the "
            f"factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )
    return linalg_lu_factor(lu_, pivots)


def lu(A: Tensor, *, pivot: bool = True) -> tuple:  # noqa: N803
    """(P, L, U) with A = P L U: P a permutation matrix, L (m, k) unit lower triangular, U (k, n)
    upper triangular, k = min(m, n). Differentiable to A (through lu_factor)."""
    lu_, pivots, _ = lu_factor_ex(A, pivot=pivot)
    m, n = A.shape[-2:]
    k = min(m, n)
    xp = get_array_module(A._data)
    perm = LU.permutation_of(pivots._data, m)
    # P[perm[i], i] = 1: column i of P is the unit vector e_perm[i]
    p = (perm[..., None, :] == xp.arange(m)[:, None]).astype(A._data.dtype)
    eye = Tensor._make(xp.eye(m, k, dtype=A._data.dtype))
    return linalg_lu(Tensor._make(p), lu_[..., :, :k].tril(-1) + eye, lu_[..., :k, :].triu())


def lu_solve(
    LU: Tensor,  # noqa: N803
    pivots: Tensor,
    B: Tensor,  # noqa: N803
    *,
    left: bool = True,
    adjoint: bool = False,
) -> Tensor:
    """X with A X = B given lu_factor(A) (``adjoint``: A^T X = B; ``left=False``: X A = B or
    X A^T = B): a row permutation and two triangular solves, differentiable to LU and B."""
    _tensor(LU, "lu_solve", "LU")
    _tensor(B, "lu_solve", "B")
    L.check_matrices(LU._data, "linalg.lu_solve")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]) or pivots.dtype.name != "int32":
        raise RuntimeError(
            f"linalg.lu_solve: expected pivots of shape {tuple(LU.shape[:-1])} and dtype int32, "
            f"got {tuple(pivots.shape)} {pivots.dtype.name}"
        )
    if left:
        return _lu_solve_checked(LU, pivots, B, adjoint)
    # X A = B  <=>  A^T X^T = B^T
    return _lu_solve_checked(LU, pivots, B.mT, not adjoint).mT


def _lu_solve_checked(LU_: Tensor, pivots: Tensor, B: Tensor, adjoint: bool) -> Tensor:
    if B.ndim < 2 or B.shape[-2] != LU_.shape[-1]:
        raise RuntimeError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B "
            f"({LU_.shape[-2]}x{LU_.shape[-1]} and {tuple(B.shape)})"
        )
    check_same_dtype("linalg.lu_solve", LU=LU_, B=B)
    return LU.lu_solve_left(LU_, pivots, B, adjoint)


def solve_ex(
    A: Tensor,  # noqa: N803
    B: Tensor,  # noqa: N803
    *,
    left: bool = True,
    check_errors: bool = False,
) -> tuple:
    """(result, info): solve without raising on a singular A. info (int32 per matrix) is 0, or
    the first k where U[k, k] = 0 in A's LU; such a matrix's result is LU's division by zero
    (inf / NaN), as in PyTorch."""
    _tensor(A, "solve_ex")
    L.check_matrices(A._data, "linalg.solve_ex")
    info = LU.LUFactor.apply(A.detach())[2]
    if not bool((info != 0).any()):
        return linalg_solve_ex(solve(A, B, left=left), info)
    if check_errors:
        raise LinAlgError(
            f"torch.linalg.solve_ex: {_where(info)}The solver failed because the input matrix is "
            f"singular."
        )
    # a singular matrix: LU's substitutions, dividing by the zero pivot (no gradient)
    vector = _is_vector_rhs(A, B)
    rhs = B.unsqueeze(-1) if vector else B
    if not left:  # X A = B  <=>  A^T X^T = B^T
        A, rhs = A.mT, rhs.mT  # noqa: N806
    lu_, pivots, _ = LU.LUFactor.apply(A.detach())
    x = Tensor._make(LU.lu_solve_array(lu_._data, pivots._data, rhs._data))
    x = x if left else x.mT
    return linalg_solve_ex(x.squeeze(-1) if vector else x, info)


def inv_ex(A: Tensor, *, check_errors: bool = False) -> tuple:  # noqa: N803
    """(inverse, info): inv without raising on a singular A (info as in solve_ex)."""
    _tensor(A, "inv_ex")
    L.check_matrices(A._data, "linalg.inv_ex")
    info = LU.LUFactor.apply(A.detach())[2]
    if not bool((info != 0).any()):
        return linalg_inv_ex(inv(A), info)
    if check_errors:
        k = int(info.max())
        raise LinAlgError(
            f"linalg.inv_ex: {_where(info)}The diagonal element {k} is zero, the inversion could "
            f"not be completed because the input matrix is singular."
        )
    xp = get_array_module(A._data)
    lu_, pivots, _ = LU.LUFactor.apply(A.detach())
    eye = xp.eye(A.shape[-1], dtype=A._data.dtype)
    return linalg_inv_ex(Tensor._make(LU.lu_solve_array(lu_._data, pivots._data, eye)), info)


# ---------------------------------------------------------------------- tensors as matrices
def tensorinv(A: Tensor, ind: int = 2) -> Tensor:  # noqa: N803
    """The inverse of A seen as a matrix from its first ``ind`` dims to the rest:
    tensordot(tensorinv(A), A, ind) is the identity. Shape: A.shape[ind:] + A.shape[:ind]."""
    _tensor(A, "tensorinv")
    if not isinstance(ind, int) or ind <= 0:
        raise RuntimeError(
            f"linalg.tensorinv: Expected a strictly positive integer for 'ind', but got {ind}"
        )
    rows, cols = A.shape[:ind], A.shape[ind:]
    m, n = int(np.prod(rows)), int(np.prod(cols))
    if m != n:
        raise RuntimeError(
            f"linalg.tensorinv: Expected self to satisfy the requirement "
            f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got {n} != {m}"
        )
    return inv(A.reshape(m, n)).reshape(tuple(cols) + tuple(rows))


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None) -> Tensor:  # noqa: N803
    """X with tensordot(A, X, X.ndim) = B: A seen as a matrix from B's dims to the rest
    (``dims``: dims of A moved to the end first). X has shape A.shape[B.ndim:]."""
    _tensor(A, "tensorsolve")
    _tensor(B, "tensorsolve", "B")
    if dims is not None:
        dims = [d % A.ndim for d in (dims if isinstance(dims, (tuple, list)) else [dims])]
        A = A.permute([d for d in range(A.ndim) if d not in dims] + dims)
    rest = tuple(A.shape[B.ndim :])
    m, n = B.numel(), int(np.prod(rest))
    if tuple(A.shape[: B.ndim]) != tuple(B.shape) or m != n:
        raise RuntimeError(
            f"linalg.tensorsolve: Expected self to satisfy the requirement "
            f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got {n} != {m}"
        )
    return solve(A.reshape(m, n), B.reshape(m)).reshape(rest)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of x (..., n): (..., n, N) with columns x^0, x^1, ..., x^(N-1)
    (N defaults to n): ones, then the running products of x (so x = 0 has gradient 1 into x^1)."""
    _tensor(x, "vander", "x")
    if x.ndim < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension")
    n = x.shape[-1] if N is None else N
    if n <= 1:
        if n < 0:
            raise RuntimeError(f"linalg.vander: N must be non-negative, got {N}")
        return x.unsqueeze(-1).new_ones(tuple(x.shape) + (n,))
    columns = x.unsqueeze(-1).expand(tuple(x.shape) + (n - 1,)).cumprod(-1)
    ones = columns.new_ones(tuple(x.shape) + (1,))
    return LU.mg_cat((ones, columns), -1)


def householder_product(A: Tensor, tau: Tensor) -> Tensor:  # noqa: N803
    """The first n columns of H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^T with v_i = (0, ..., 0, 1,
    A[i+1:, i]) (LAPACK's orgqr: Q from geqrf's reflectors). Applied right to left to the
    (m, n) identity, one rank-1 update per reflector: differentiable to A and tau."""
    _tensor(A, "householder_product")
    _tensor(tau, "householder_product", "tau")
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if A.ndim < 2 or m < n or k > n or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(
            f"torch.linalg.householder_product: expected A (*, m, n) with m >= n and tau (*, k) "
            f"with k <= n and A's batch dims, got {tuple(A.shape)} and {tuple(tau.shape)}"
        )
    check_same_dtype("linalg.householder_product", input=A, tau=tau)
    xp = get_array_module(A._data)
    dt = A._data.dtype
    q = Tensor._make(xp.broadcast_to(xp.eye(m, n, dtype=dt), A.shape).copy())
    rows = xp.arange(m)
    for i in reversed(range(k)):
        below = Tensor._make((rows > i).astype(dt))
        unit = Tensor._make((rows == i).astype(dt))
        v = A[..., :, i] * below + unit  # (..., m)
        q = q - tau[..., i, None, None] * v.unsqueeze(-1) * (v.unsqueeze(-2) @ q)
    return q
