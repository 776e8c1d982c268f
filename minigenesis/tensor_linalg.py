"""Tensor methods of linear algebra (PyTorch's names): the matrix products mm, bmm, dot, mv,
outer, addmm, baddbmm with PyTorch's shape checks (each a matmul underneath; ``@`` itself is in
``tensor_math.py``), the matrix parts diag, trace, tril, triu, diagonal; det, logdet, slogdet,
inverse, cholesky, cholesky_solve, cholesky_inverse, svd, qr, cross, kron, matrix_power,
matrix_exp, pinverse.

The differentiable ops with their own backward are in ``ops/linalg.py``; cross, kron and
matrix_power are compositions of existing ops (roll and mul; reshape and mul; matmul), so their
gradients follow from those.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import return_types
from .autocast_policy import LOWER, autocast_function, without_autocast
from .autograd.tensor_base import TensorBase
from .backend import get_array_module, module_for
from .ops import elementwise as E
from .ops import linalg as L
from .ops import matmul as M
from .ops import sorting as SO
from .ops.beta_zero import beta_zero_sum
from .ops.round_once import in_float32, same_two_byte_float
from .ops.same_dtype import check_same_dtype
from .size import plain_int

# torch.return_types.slogdet / svd / qr: tuples whose fields have names
slogdet_result = return_types.slogdet
svd_result = return_types.svd
qr_result = return_types.qr


# dot (and mv on the CPU) are on none of PyTorch's autocast lists: they run in their inputs'
# dtype there, where matmul, which computes them here, runs in the low dtype
_matmul_off_autocast_lists = without_autocast(M.matmul)


@autocast_function(LOWER)  # linalg_vecdot is on PyTorch's lower-precision lists (CPU and CUDA)
def vecdot_low_precision_unit(x, y, dim: int):
    """linalg.vecdot's maths: sum_i x_i y_i along ``dim``."""
    return (x * y).sum(dim)


class TensorLinalg:
    """Mixin of Tensor: the linear-algebra methods."""

    __slots__ = ()

    _data: Any

    # ----------------------------------------------------------- matrix products (PyTorch's checks)
    # (each of them matmul underneath)
    def mm(self, mat2):
        """The matrix product of two 2-D tensors (``self @ mat2`` without broadcasting)."""
        if self.ndim != 2:
            raise RuntimeError(f"self must be a matrix (mm needs 2-D tensors), got {self.ndim}-D")
        if mat2.ndim != 2:
            raise RuntimeError(f"mat2 must be a matrix (mm needs 2-D tensors), got {mat2.ndim}-D")
        if self.shape[1] != mat2.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
                f"{mat2.shape[0]}x{mat2.shape[1]})"
            )
        if getattr(mat2, "is_sparse", False):
            return mat2.__rmatmul__(self)  # dense @ sparse (sparse_coo.py)
        return M.matmul(self, mat2, "mm")

    def bmm(self, mat2):
        """Batched matrix product of two 3-D tensors: (b, n, m) @ (b, m, p) -> (b, n, p)."""
        if self.ndim != 3:
            raise RuntimeError(f"batch1 must be a 3D tensor, got {self.ndim}-D")
        if mat2.ndim != 3:
            raise RuntimeError(f"batch2 must be a 3D tensor, got {mat2.ndim}-D")
        if self.shape[0] != mat2.shape[0]:
            raise RuntimeError(
                f"bmm: batch sizes differ: {self.shape[0]} and {mat2.shape[0]} (no broadcasting)"
            )
        return M.matmul(self, mat2, "bmm")

    def dot(self, other):
        """The inner product of two 1-D tensors of the same length."""
        if self.ndim != 1 or other.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors"
            )
        return _matmul_off_autocast_lists(self, other, "dot")

    def mv(self, vec):
        """Matrix (n, m) times vector (m,) -> (n,)."""
        if self.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
        if self.is_cuda:  # on PyTorch's CUDA lower-precision list (not on its CPU one)
            return M.matmul(self, vec, "mv")
        return _matmul_off_autocast_lists(self, vec, "mv")

    def outer(self, vec2):
        """out[i][j] = x[i] * vec2[j] for two 1-d tensors."""
        if self.ndim != 1 or vec2.ndim != 1:
            raise RuntimeError(
                f"outer: expected two 1-d tensors, got {self.ndim} and {vec2.ndim} dims"
            )
        return self.reshape(-1, 1) * vec2.reshape(1, -1)

    ger = outer

    @autocast_function(LOWER)  # one unit, as PyTorch's addmm: the bias is cast too
    def addmm(self, mat1, mat2, *, beta=1, alpha=1):
        """beta * x + alpha * (mat1 @ mat2); with beta = 0, x is ignored (its NaNs too)."""
        if mat1.ndim != 2 or mat2.ndim != 2:
            raise RuntimeError(
                f"addmm: mat1 and mat2 must be matrices, got {mat1.ndim} and {mat2.ndim} dims"
            )
        check_same_dtype("addmm", LOWER, self=self, mat1=mat1, mat2=mat2)
        if same_two_byte_float(self, mat1, mat2):  # float32 inside, rounded once, as PyTorch
            return in_float32(
                lambda x, a, b: _add_scaled(x, a.mm(b), beta, alpha), self, mat1, mat2
            )
        return _add_scaled(self, mat1.mm(mat2), beta, alpha)

    @autocast_function(LOWER)
    def baddbmm(self, batch1, batch2, *, beta=1, alpha=1):
        """beta * x + alpha * bmm(batch1, batch2); with beta = 0, x is ignored (its NaNs too)."""
        if batch1.ndim != 3 or batch2.ndim != 3:
            raise RuntimeError(
                f"baddbmm: batch1 and batch2 must be 3-d, got {batch1.ndim} and {batch2.ndim} dims"
            )
        check_same_dtype("baddbmm", LOWER, self=self, batch1=batch1, batch2=batch2)
        if same_two_byte_float(self, batch1, batch2):  # float32 inside, rounded once
            return in_float32(
                lambda x, a, b: _add_scaled(x, a.bmm(b), beta, alpha), self, batch1, batch2
            )
        return _add_scaled(self, batch1.bmm(batch2), beta, alpha)

    def diag(self, diagonal: int = 0):
        """1-d v: the square matrix with v on diagonal ``diagonal``; 2-d x: that diagonal of x."""
        k = plain_int(diagonal)
        xp = module_for(self.device)  # (on meta: a data-less matrix)
        if self.ndim == 1:
            n = self.shape[0] + abs(k)
            rows = xp.arange(self.shape[0]) + max(-k, 0)
            out = type(self)._make(xp.zeros((n, n), dtype=self._data.dtype), False)
            where = (type(self)._make(rows, False), type(self)._make(rows + k, False))
            out[where] = self  # a tracked write: the gradient reads the diagonal back
            return out
        if self.ndim == 2:
            r, c = self.shape
            m = max(0, min(r + min(k, 0), c - max(k, 0)))
            rows = xp.arange(m) + max(-k, 0)
            return self[type(self)._make(rows, False), type(self)._make(rows + k, False)]
        raise RuntimeError(f"diag: expected a 1-d or 2-d tensor, got {self.ndim} dims")

    def trace(self):
        """The sum of the main diagonal of a 2-d tensor."""
        if self.ndim != 2:
            raise RuntimeError(f"trace: expected a matrix (2 dims), got {self.ndim} dims")
        return self.diag().sum()

    def tril(self, diagonal: int = 0):
        """Zero the elements above the ``diagonal``-th diagonal of the last two dims."""
        return SO.triangle(self, diagonal, upper=False)

    def triu(self, diagonal: int = 0):
        """Zero the elements below the ``diagonal``-th diagonal of the last two dims."""
        return SO.triangle(self, diagonal, upper=True)

    # ------------------------------------------------------- determinants, inverses, decompositions
    def det(self):
        """det(A) of each matrix in the batch."""
        return L.Det.apply(self)

    def slogdet(self):
        """(sign, log|det A|): the determinant without overflow; gradient through logabsdet."""
        sign, logabsdet = L.SlogDet.apply(self)
        return slogdet_result(sign, logabsdet)

    def logdet(self):
        """log det(A): NaN where det(A) < 0, -inf where it is 0 (gradient as slogdet's)."""
        sign, logabsdet = L.SlogDet.apply(self)
        xp = get_array_module(sign._data)
        nan_where_negative = xp.where(sign._data < 0, xp.nan, 0).astype(sign._data.dtype)
        return logabsdet + TensorBase._make(nan_where_negative)

    def inverse(self):
        """A^-1 of each matrix in the batch (LinAlgError naming the element for a singular one)."""
        return L.Inverse.apply(self)

    def cholesky(self, upper: bool = False):
        """L with A = L L^T (lower), or U = L^T with ``upper``."""
        return L.Cholesky.apply(self, bool(upper))

    def cholesky_solve(self, input2, upper: bool = False):
        """X with A X = self, where A = L L^T and ``input2`` is L (U with A = U^T U if upper)."""
        l_ = input2.mT if upper else input2
        y = L.solve_triangular(l_, self, upper=False)
        return L.solve_triangular(l_.mT, y, upper=True)

    def cholesky_inverse(self, upper: bool = False):
        """A^-1 from A's Cholesky factor (self)."""
        xp = get_array_module(self._data)
        eye = TensorBase._make(xp.eye(self.shape[-1], dtype=self._data.dtype))
        return eye.cholesky_solve(self, upper)

    def svd(self, some: bool = True, compute_uv: bool = True):
        """torch.svd: (U, S, V) with A = U diag(S) V^T (V, not V^T as linalg.svd returns);
        ``some`` gives the reduced factors. Without ``compute_uv``, U and V are zeros."""
        u, s, vh = L.SVD.apply(self, not some)
        if not compute_uv:
            xp = get_array_module(self._data)
            m, n = self.shape[-2:]
            batch = tuple(self.shape[:-2])
            u = TensorBase._make(xp.zeros(batch + (m, m), dtype=self._data.dtype))
            v = TensorBase._make(xp.zeros(batch + (n, n), dtype=self._data.dtype))
            return svd_result(u, s, v)
        return svd_result(u, s, vh.mT)

    def qr(self, some: bool = True):
        """torch.qr: (Q, R) with A = QR, reduced (``some``) or complete."""
        q, r = L.QR.apply(self, "reduced" if some else "complete")
        return qr_result(q, r)

    def cross(self, other, dim: int | None = None):
        """The cross product of 3-vectors along ``dim`` (inputs broadcast). Without ``dim``, the
        first dim of size 3, as torch.cross does (with its deprecation warning)."""
        return cross(self, other, dim, "cross")

    def kron(self, other):
        """The Kronecker product: out[i*p + k, j*q + l] = a[i, j] b[k, l] (any number of dims)."""
        return kron(self, other)

    def matrix_power(self, n: int):
        """A^n by repeated squaring; n = 0 gives the identity, n < 0 powers of A^-1."""
        return matrix_power(self, n)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1):
        """The ``offset``-th diagonal of the matrices in dims (dim1, dim2), as a new last dim.
        (A copy, not a view as in PyTorch: writing into it leaves self unchanged.)"""
        x = self.movedim((dim1, dim2), (-2, -1))
        x = x[..., :, offset:] if offset >= 0 else x[..., -offset:, :]
        n = min(x.shape[-2:])
        return L.diagonal(x[..., :n, :n])

    def matrix_exp(self):
        """exp(A) = I + A + A^2/2! + ... of each matrix in the batch."""
        return L.MatrixExp.apply(self)

    def pinverse(self, rcond: float = 1e-15):
        """The Moore-Penrose pseudo-inverse, singular values below rcond * max dropped."""
        return L.Pinv.apply(self, 0.0, rcond)


def cross(a: Any, b: Any, dim: int | None, name: str) -> Any:
    """c_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3) along dim: two rolls each way."""
    if not isinstance(b, TensorBase):
        raise TypeError(f"{name}: other must be a Tensor, got {type(b).__name__}")
    check_same_dtype(name, input=a, other=b)
    if a.ndim != b.ndim:  # PyTorch broadcasts sizes, never the number of dims
        raise RuntimeError(
            f"{name}: inputs must have the same number of dimensions, got shapes "
            f"{tuple(a.shape)} and {tuple(b.shape)}"
        )
    shape = np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated. Please either pass "
            "the dim explicitly or simply use torch.linalg.cross.",
            UserWarning,
            stacklevel=3,
        )
        dim = next((d for d, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise RuntimeError(f"{name}: no dimension of size 3 in input (shape {shape})")
    if not -len(shape) <= dim < len(shape):
        raise IndexError(f"{name}: dim {dim} is out of range for {len(shape)}-D inputs")
    d = dim % len(shape)
    na, nb = (t.shape[d - len(shape) + t.ndim] if d >= len(shape) - t.ndim else 1 for t in (a, b))
    if na != 3 or nb != 3:
        raise RuntimeError(f"{name}: inputs dimension {dim} must have length 3. Got {na} and {nb}")
    a, b = a.expand(shape), b.expand(shape)
    return a.roll(-1, dim) * b.roll(1, dim) - a.roll(1, dim) * b.roll(-1, dim)


def kron(a: Any, b: Any) -> Any:
    """a's dims interleaved with b's, then merged: (a0, 1, a1, 1) * (1, b0, 1, b1) reshaped to
    (a0 b0, a1 b1)."""
    if not isinstance(b, TensorBase):
        raise TypeError(f"kron: other must be a Tensor, got {type(b).__name__}")
    n = max(a.ndim, b.ndim)
    sa = (1,) * (n - a.ndim) + tuple(a.shape)
    sb = (1,) * (n - b.ndim) + tuple(b.shape)
    wide_a = tuple(x for d in sa for x in (d, 1))
    wide_b = tuple(x for d in sb for x in (1, d))
    return (a.reshape(wide_a) * b.reshape(wide_b)).reshape(tuple(x * y for x, y in zip(sa, sb)))


def matrix_power(a: Any, n: int) -> Any:
    """A^n: square-and-multiply, log2(n) matmuls; A^0 = I (broadcast over the batch)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power: n must be an int, got {type(n).__name__}")
    L.check_matrix_shape(a, "linalg.matrix_power")
    if n == 0:
        xp = get_array_module(a._data)
        eye = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a._data.dtype), a.shape)
        if not a.requires_grad:
            return TensorBase._make(eye.copy())
        # I does not depend on A, but PyTorch's A^0 stays in A's graph (its gradient is zero):
        # I where True, else A. (Not I + 0 * A, which an inf or NaN in A would spoil.)
        keep = xp.ones(a.shape, dtype=bool)
        return E.Where.apply(keep, TensorBase._make(eye.copy()), a)
    if n < 0:
        a, n = a.inverse(), -n
    if n > 1 and same_two_byte_float(a):  # the products in float32, rounded once at the end
        return in_float32(matrix_power, a, n)
    result = None
    while n:
        if n & 1:
            result = a if result is None else result @ a
        n >>= 1
        if n:
            a = a @ a
    return result


def _add_scaled(x: Any, prod: Any, beta: Any, alpha: Any) -> Any:
    """beta * x + alpha * prod, x broadcast to prod's shape; beta = 0 skips x (as PyTorch, so a
    NaN in x does not leak through 0 * NaN)."""
    scaled = prod if alpha == 1 else prod * alpha
    try:
        x.expand(prod.shape)
    except ValueError:
        raise RuntimeError(
            f"input {tuple(x.shape)} cannot be broadcast to the product's shape {tuple(prod.shape)}"
        ) from None
    if beta == 0:
        return beta_zero_sum(x, scaled.clone() if alpha == 1 else scaled)
    return (x if beta == 1 else x * beta) + scaled
