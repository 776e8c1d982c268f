"""Linear algebra with gradients: det, slogdet, inv, solve, cholesky, solve_triangular, qr, eigh,
svd. Matrices are the last two dims; any dims before them are a batch (broadcast where two inputs
meet, as in PyTorch). The factorizations run in LAPACK through NumPy (cuSOLVER through CuPy).

Each backward is the adjoint of the differential, written with Tensor ops (matmul, einsum, the
ops of this file), so second derivatives come for free. With A^-T = (A^-1)^T:

    det:     d det(A) = det(A) tr(A^-1 dA)         ->  gA = g det(A) A^-T
    slogdet: d log|det(A)| = tr(A^-1 dA)            ->  gA = g A^-T     (sign: no gradient)
    inv:     d A^-1 = -A^-1 dA A^-1                 ->  gA = -A^-T g A^-T
    solve:   X = A^-1 B                             ->  gB = A^-T g,  gA = -gB X^T

PyTorch's linalg refuses float16/bfloat16 on the CPU, and integer inputs; so do these ops (with
the dtype named). Under autocast, inv, solve, cholesky, qr, eigh and svd run in float32, as in
PyTorch. A singular or non-positive-definite input raises ``LinAlgError`` naming the
batch element, as PyTorch does.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.linalg import LinAlgError as NumpyLinAlgError  # what LAPACK failures raise

from ..autocast_policy import CPU_FLOAT32
from ..autograd.function import Op
from ..autograd.tensor_base import TensorBase
from ..backend import get_array_module, quiet_fp
from .einsum import Einsum, parse


class LinAlgError(RuntimeError):
    """A matrix was singular or not positive-definite (``torch.linalg.LinAlgError``)."""


# ---------------------------------------------------------------------- checks
def check_matrices(a: Any, name: str, square: bool = True) -> None:
    """``a`` (an array) is a float32/float64 batch of (square) matrices, or a clear error."""
    check_matrix_shape(a, name, square=False)
    if a.dtype.kind not in "fV":
        raise RuntimeError(
            f"{name}: Expected a floating point tensor as input. Got {a.dtype} (convert with "
            f".float() or .double())"
        )
    if a.dtype.itemsize == 2:
        raise NotImplementedError(
            f"{name}: Low precision dtypes not supported. Got {a.dtype}: linear algebra runs in "
            f"float32 or float64 (convert with .float())"
        )
    if square:
        check_matrix_shape(a, name, square=True)


def check_matrix_shape(a: Any, name: str, square: bool = True) -> None:
    """``a`` (an array or tensor) is a batch of matrices (at least 2 dims), square if asked."""
    if a.ndim < 2:
        raise RuntimeError(
            f"{name}: The input tensor A must have at least 2 dimensions (got shape "
            f"{tuple(a.shape)})."
        )
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {a.shape[-2]} by "
            f"{a.shape[-1]} matrices"
        )


def check_norm_has_identity(a: Any, ord: float, dim: Any) -> None:  # noqa: A002
    """A negative or infinite vector norm (a min, a max or a sum of 1/|x|) has no value over no
    elements: PyTorch's RuntimeError when a reduced dim (or the whole input) is empty."""
    if a.size or not (ord < 0 or ord == math.inf):
        return
    dims = range(a.ndim) if dim is None else (dim,) if isinstance(dim, int) else dim
    if a.ndim == 0 or any(a.shape[d] == 0 for d in dims):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because "
            f"the operation does not have an identity"
        )


def _first_failure(fn, a: Any, *rest: Any) -> tuple[str, int]:
    """Which batch element makes ``fn`` raise: ``("(Batch element i): ", i)``, or ``("", 0)``
    for a single matrix. (Only run once something failed: it loops over the batch.)"""
    if a.ndim == 2:
        return "", 0
    flat = a.reshape((-1,) + a.shape[-2:])
    rest = [r.reshape((-1,) + r.shape[-2:]) for r in rest]
    for i in range(flat.shape[0]):
        try:
            fn(flat[i], *(r[i] for r in rest))
        except NumpyLinAlgError:
            return f"(Batch element {i}): ", i
    return "", 0


def _solve_broadcast(a: Any, b: Any, name: str, singular: str) -> Any:
    """X = A^-1 B (arrays) over the batch dims of A and B broadcast together; a singular A is
    a LinAlgError that names the batch element (``singular`` says why)."""
    xp = get_array_module(a)
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = xp.broadcast_to(a, batch + a.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:])
    try:
        return xp.linalg.solve(a, b)
    except NumpyLinAlgError:
        where, _ = _first_failure(xp.linalg.solve, a, b)
        raise LinAlgError(f"{name}: {where}{singular}") from None


def diagonal(t: Any) -> Any:
    """The diagonals of a batch of matrices, differentiably: einsum('...ii->...i')."""
    return einsum_tensors("...ii->...i", t)


def diag_embed(v: Any) -> Any:
    """Batched diagonal matrices from vectors: einsum('...i,ij->...ij', v, I)."""
    xp = get_array_module(v._data)
    eye = TensorBase._make(xp.eye(v.shape[-1], dtype=v._data.dtype))
    return einsum_tensors("...i,ij->...ij", v, eye)


def einsum_tensors(equation: str, *tensors: Any) -> Any:
    return Einsum.apply(parse(equation, [t.shape for t in tensors]), *tensors)


def _check_rhs(a: Any, b: Any, name: str) -> None:
    """B is a batch of matrices with as many rows as A, in A's dtype."""
    if b.ndim < 2:
        raise RuntimeError(f"{name}: B must have at least 2 dimensions, got shape {b.shape}")
    if b.dtype != a.dtype:
        raise RuntimeError(
            f"{name}: Expected A and B to have the same dtype, but found A of type {a.dtype} "
            f"and B of type {b.dtype} instead"
        )
    if b.shape[-2] != a.shape[-1]:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation AX = B "
            f"({a.shape[-2]}x{a.shape[-1]} and {b.shape[-2]}x{b.shape[-1]})"
        )


# ---------------------------------------------------------------------- determinants
class Det(Op):
    """det(A);   gA = g det(A) A^-T (the cofactor matrix, from an SVD where A is singular)."""

    @staticmethod
    @quiet_fp
    def forward(ctx, a):
        check_matrices(a, "linalg.det")
        out = get_array_module(a).linalg.det(a)
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx, g):
        a, det = ctx.saved_tensors
        xp = get_array_module(a._data)
        if bool((det._data != 0).all()):
            return (g * det).unsqueeze(-1).unsqueeze(-1) * Inverse.apply(a).mT
        # cofactor(A) = det(U) det(V) U diag(prod_{j != i} s_j) V^T for A = U diag(s) V^T
        u, s, vh = xp.linalg.svd(a._data)
        n = s.shape[-1]
        prods = xp.stack([xp.prod(xp.delete(s, i, axis=-1), axis=-1) for i in range(n)], -1)
        sign = xp.linalg.det(u) * xp.linalg.det(vh)
        cof = (u * (sign[..., None] * prods)[..., None, :]) @ vh
        return g.unsqueeze(-1).unsqueeze(-1) * TensorBase._make(cof)


class SlogDet(Op):
    """(sign, log|det A|);   g_logabsdet -> gA = g A^-T. The sign is piecewise constant: it
    requires grad, as PyTorch's does, and its gradient is zero."""

    @staticmethod
    @quiet_fp
    def forward(ctx, a):
        check_matrices(a, "linalg.slogdet")
        sign, logabsdet = get_array_module(a).linalg.slogdet(a)
        ctx.save_for_backward(a)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, g_sign, g_logabsdet):
        (a,) = ctx.saved_tensors
        if g_logabsdet is None:  # only the sign was used: its gradient is zero
            return a.new_zeros(a.shape)
        return g_logabsdet.unsqueeze(-1).unsqueeze(-1) * Inverse.apply(a).mT


# ---------------------------------------------------------------------- inverse and solves
class Inverse(Op):
    """Y = A^-1;   dY = -Y dA Y  ->  gA = -Y^T g Y^T."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a):
        check_matrices(a, "linalg.inv")
        xp = get_array_module(a)
        try:
            y = xp.linalg.inv(a)
        except NumpyLinAlgError:
            where, _ = _first_failure(xp.linalg.inv, a)
            raise LinAlgError(
                f"linalg.inv: {where}The input matrix is singular (a zero pivot in its LU "
                f"factorization), the inversion could not be completed."
            ) from None
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        yt = y.mT
        return -(yt @ g @ yt)


class Solve(Op):
    """X = A^-1 B for B a batch of matrices (batch dims broadcast);
    A dX = dB - dA X  ->  gB = A^-T g,  gA = -gB X^T."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a, b):
        check_matrices(a, "linalg.solve")
        _check_rhs(a, b, "linalg.solve")
        x = _solve_broadcast(
            a, b, "torch.linalg.solve", "The solver failed because the input matrix is singular."
        )
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        gb = Solve.apply(a.mT, g)
        ga = -(gb @ x.mT) if ctx.needs_input_grad[0] else None
        return ga, gb if ctx.needs_input_grad[1] else None


class SolveTriangular(Op):
    """X = A^-1 B, A triangular (only its ``upper`` or lower triangle is read; a unit diagonal
    is assumed with ``unitriangular``);   gB = A^-T g,  gA = -gB X^T cut to that triangle."""

    @staticmethod
    def forward(ctx, a, b, upper, unitriangular):
        check_matrices(a, "linalg.solve_triangular")
        _check_rhs(a, b, "linalg.solve_triangular")
        t = _triangle(get_array_module(a), a, upper, unitriangular)
        try:
            x = _solve_broadcast(t, b, "linalg.solve_triangular", "singular")
        except LinAlgError:  # a zero on the diagonal: PyTorch's trsm divides by it (inf, NaN)
            x = _substitute(t, b, upper)
        ctx.upper, ctx.unit = upper, unitriangular
        ctx.save_for_backward(a, x)
        return x

    @staticmethod
    def backward(ctx, g):
        a, x = ctx.saved_tensors
        upper, unit = ctx.upper, ctx.unit
        gb = SolveTriangular.apply(a.mT, g, not upper, unit)
        ga = None
        if ctx.needs_input_grad[0]:
            ga = -(gb @ x.mT)
            ga = ga.triu(1 if unit else 0) if upper else ga.tril(-1 if unit else 0)
        return ga, gb if ctx.needs_input_grad[1] else None, None, None


@quiet_fp  # x / 0 where the diagonal has a zero: inf or NaN, as PyTorch's
def _substitute(t: Any, b: Any, upper: bool) -> Any:
    """X with T X = B by substitution, row by row from the end (upper) or the start (lower):
    x_i = (b_i - sum_{j after i} t_ij x_j) / t_ii, as LAPACK's trsm, which divides by a zero
    t_ii too."""
    xp = get_array_module(t)
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    t, b = xp.broadcast_to(t, batch + t.shape[-2:]), xp.broadcast_to(b, batch + b.shape[-2:])
    n = t.shape[-1]
    x = xp.zeros(b.shape, xp.result_type(t, b))
    for i in range(n - 1, -1, -1) if upper else range(n):
        rest = slice(i + 1, n) if upper else slice(0, i)
        done = xp.matmul(t[..., i : i + 1, rest], x[..., rest, :])[..., 0, :]
        x[..., i, :] = (b[..., i, :] - done) / t[..., i, i, None]
    return x


def _triangle(xp, a, upper: bool, unit: bool) -> Any:
    t = xp.triu(a) if upper else xp.tril(a)
    if unit:
        t = t.copy()
        idx = xp.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


def solve_triangular(a: Any, b: Any, upper: bool, left: bool = True, unit: bool = False) -> Any:
    """X with A X = B (``left``) or X A = B: the right form is the left one transposed."""
    if left:
        return SolveTriangular.apply(a, b, upper, unit)
    return SolveTriangular.apply(a.mT, b.mT, not upper, unit).mT


# ---------------------------------------------------------------------- cholesky
class Cholesky(Op):
    """A = L L^T, L lower (``upper``: U = L^T).   With Phi(X) = tril(X) with its diagonal halved,
    gA = sym(L^-T Phi(L^T gL) L^-1), sym(X) = (X + X^T)/2 (A is symmetric: the gradient is too)."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a, upper):
        check_matrices(a, "linalg.cholesky")
        xp = get_array_module(a)
        try:
            l_ = xp.linalg.cholesky(a)
        except NumpyLinAlgError:
            info = [int(k) for k in cholesky_info(a).reshape(-1)]
            i = next(i for i, k in enumerate(info) if k)
            where, order = f"(Batch element {i}): " if a.ndim > 2 else "", info[i]
            raise LinAlgError(
                f"linalg.cholesky: {where}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order {order} is not "
                f"positive-definite)."
            ) from None
        out = xp.swapaxes(l_, -1, -2).copy() if upper else l_
        ctx.upper = upper
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        l_, gl = (out.mT, g.mT) if ctx.upper else (out, g)
        p = (l_.mT @ gl).tril()
        p = p - 0.5 * diag_embed(diagonal(p))  # Phi: the diagonal halved
        x = solve_triangular(l_.mT, p, upper=True)  # L^-T Phi
        ga = solve_triangular(l_.mT, x.mT, upper=True).mT  # (L^-T Phi) L^-1
        return 0.5 * (ga + ga.mT), None


def cholesky_info(a: Any) -> Any:
    """Per matrix of the batch: 0 if it is positive-definite, else the order of its first leading
    minor that is not (PyTorch's ``info``). A loop over the batch: only run where something failed.
    (CuPy returns NaN instead of raising: a non-finite factor counts as a failure.)"""
    xp = get_array_module(a)
    flat = a.reshape((-1,) + a.shape[-2:])
    info = []
    for m in flat:
        info.append(next((k for k in range(1, m.shape[-1] + 1) if not _is_pd(xp, m[:k, :k])), 0))
    return xp.asarray(info, dtype=xp.int32).reshape(a.shape[:-2])


def _is_pd(xp, m) -> bool:
    try:
        return bool(xp.isfinite(xp.linalg.cholesky(m)).all())
    except NumpyLinAlgError:
        return False


# ---------------------------------------------------------------------- qr, eigh, svd
class QR(Op):
    """A = QR, Q with orthonormal columns, R upper triangular ('reduced' or 'complete').
    For m >= n:  M = R gR^T - gQ^T Q,  gA = (gQ + Q copyltu(M)) R^-T, copyltu(M) = tril(M) +
    tril(M, -1)^T. For m < n, A = [X | Y], R = [U | V]: X = QU is the square case, and V = Q^T Y
    adds Y gV^T to gQ and gives gY = Q gV."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a, mode):
        check_matrices(a, "linalg.qr", square=False)
        if mode not in ("reduced", "complete", "r"):
            raise RuntimeError(
                f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                f"'r', or 'complete'"
            )
        xp = get_array_module(a)
        m, n = a.shape[-2:]
        q, r = xp.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
        ctx.mode = mode
        ctx.save_for_backward(a, q, r)
        if mode == "r":
            q = xp.empty((0,), dtype=a.dtype)
        return q, r

    @staticmethod
    def backward(ctx, gq, gr):
        a, q, r = ctx.saved_tensors
        m, n = a.shape[-2:]
        if ctx.mode == "r":
            raise RuntimeError(
                "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                "Please use linalg.qr(A, mode='reduced') if you are going to differentiate "
                "through linalg.qr."
            )
        if ctx.mode == "complete" and m > n:
            raise RuntimeError(
                "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
            )
        if m >= n:
            return _qr_square_backward(q, r, gq, gr), None
        u, gu, gv = r[..., :m], gr[..., :m], gr[..., m:]
        y = a[..., m:]
        gx = _qr_square_backward(q, u, gq + y @ gv.mT, gu)
        return mg_cat_last(gx, q @ gv), None


def _qr_square_backward(q, r, gq, gr):
    m = r @ gr.mT - gq.mT @ q
    b = gq + q @ (m.tril() + m.tril(-1).mT)
    return solve_triangular(r, b.mT, upper=True).mT  # b R^-T


def mg_cat_last(x: Any, y: Any) -> Any:
    """[x | y] along the last dim, differentiably (as two einsums into zero-padded places)."""
    xp = get_array_module(x._data)
    nx, ny = x.shape[-1], y.shape[-1]
    px = TensorBase._make(xp.eye(nx, nx + ny, dtype=x._data.dtype))
    py = TensorBase._make(xp.eye(ny, nx + ny, k=nx, dtype=y._data.dtype))
    return x @ px + y @ py


class Eigh(Op):
    """A = V diag(w) V^T for symmetric A (only the ``UPLO`` triangle is read), w ascending.
    gA = V (diag(gw) + F o (V^T gV - gV^T V)/2) V^T,  F_ij = 1/(w_j - w_i) off the diagonal.
    When only the eigenvalues are used (no gV) that is V diag(gw) V^T, with no division: right
    for repeated eigenvalues too (eigvalsh)."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a, uplo):
        check_matrices(a, "linalg.eigh")
        if uplo not in ("L", "U"):
            raise RuntimeError(f"linalg.eigh: UPLO must be 'L' or 'U', got {uplo!r}")
        w, v = get_array_module(a).linalg.eigh(a, UPLO=uplo)
        ctx.save_for_backward(w, v)
        ctx.set_materialize_grads(False)  # (an unused output's gradient comes as None)
        return w, v

    @staticmethod
    def backward(ctx, gw, gv):
        w, v = ctx.saved_tensors
        xp = get_array_module(w._data)
        if gw is None:
            gw = TensorBase._make(xp.zeros_like(w._data))
        if gv is None:  # only the eigenvalues: dw_i = v_i^T dA v_i
            return (v * gw.unsqueeze(-2)) @ v.mT, None
        e = w.unsqueeze(-2) - w.unsqueeze(-1)  # e_ij = w_j - w_i
        e = e + TensorBase._make(xp.eye(w.shape[-1], dtype=w._data.dtype))  # 1 on the diagonal
        vtgv = v.mT @ gv
        inner = (vtgv - vtgv.mT) * 0.5 / e + diag_embed(gw)
        return v @ inner @ v.mT, None


class SVD(Op):
    """A = U diag(S) Vh (S descending). With k = min(m, n), U, V narrowed to k columns, E_ij =
    S_j^2 - S_i^2 off the diagonal (1 on it), J = U^T gU, K = V^T gV, skew(X) = X - X^T:
    inner = (skew(J) S + S skew(K)) / E + diag(gS)  (S multiplying columns, rows);
    gA = U inner V^T + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
    When only S is used (svdvals, norms, cond) that is U diag(gS) V^T, with no division by
    S_j^2 - S_i^2: right for repeated singular values too (dS_i = u_i^T dA v_i)."""

    autocast = CPU_FLOAT32  # PyTorch's CPU list (LAPACK has no bfloat16); CUDA's lists none

    @staticmethod
    def forward(ctx, a, full_matrices):
        check_matrices(a, "linalg.svd", square=False)
        u, s, vh = get_array_module(a).linalg.svd(a, full_matrices=full_matrices)
        ctx.save_for_backward(u, s, vh)
        ctx.set_materialize_grads(False)  # (an unused output's gradient comes as None)
        return u, s, vh

    @staticmethod
    def backward(ctx, gu, gs, gvh):
        u, s, vh = ctx.saved_tensors
        m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
        xp = get_array_module(s._data)
        if gs is None:
            gs = TensorBase._make(xp.zeros_like(s._data))
        u, v = u[..., :k], vh[..., :k, :].mT
        if gu is None and gvh is None:  # only the singular values
            return (u * gs.unsqueeze(-2)) @ v.mT, None
        gu = TensorBase._make(xp.zeros_like(u._data)) if gu is None else gu[..., :k]
        gvh = TensorBase._make(xp.zeros(vh.shape, dtype=vh._data.dtype)) if gvh is None else gvh
        gv = gvh[..., :k, :].mT
        s2 = s * s
        e = s2.unsqueeze(-2) - s2.unsqueeze(-1)
        e = e + TensorBase._make(xp.eye(k, dtype=s._data.dtype))
        j, kk = u.mT @ gu, v.mT @ gv
        inner = ((j - j.mT) * s.unsqueeze(-2) + s.unsqueeze(-1) * (kk - kk.mT)) / e
        inner = inner + diag_embed(gs)
        ga = u @ inner @ v.mT
        if m > k:
            gus = gu / s.unsqueeze(-2)
            ga = ga + (gus - u @ (u.mT @ gus)) @ v.mT
        if n > k:
            gvs = gv / s.unsqueeze(-2)
            ga = ga + u @ (gvs.mT - (gvs.mT @ v) @ v.mT)
        return ga, None


class Pinv(Op):
    """P = A^+ from the SVD, singular values below max(atol, rtol * s_max) dropped. Where the rank
    does not change, dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, so
    gA = -P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)."""

    @staticmethod
    def forward(ctx, a, atol, rtol):
        check_matrices(a, "linalg.pinv", square=False)
        xp = get_array_module(a)
        u, s, vh = xp.linalg.svd(a, full_matrices=False)
        cutoff = xp.maximum(atol, rtol * s[..., :1]) if s.shape[-1] else s[..., :1]
        keep = s > cutoff
        s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(a.dtype)
        p = xp.swapaxes(vh, -1, -2) @ (s_inv[..., :, None] * xp.swapaxes(u, -1, -2))
        ctx.save_for_backward(a, p)
        return p

    @staticmethod
    def backward(ctx, g):
        a, p = ctx.saved_tensors
        pt, gt = p.mT, g.mT
        ga = -(pt @ g @ pt)
        ga = ga + (gt @ p @ pt) - a @ (p @ (gt @ p @ pt))  # (I - A P) g^T P P^T
        ga = ga + (pt @ p @ gt) - ((pt @ p @ gt) @ p) @ a  # P^T P g^T (I - P A)
        return ga, None, None


def pinv_tolerances(a: Any, atol: Any, rtol: Any) -> tuple[float, float]:
    """PyTorch's defaults: with neither given, rtol = eps * max(m, n); with atol only, rtol = 0."""
    if rtol is None:
        rtol = 0.0 if atol not in (None, 0) else float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    return (0.0 if atol is None else atol), rtol


class MatrixExp(Op):
    """exp(A) = sum_k A^k / k!, by scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with a
    Taylor polynomial for the small matrix. The adjoint of the derivative is the top-right block
    of one bigger exponential:  gA = [exp([[A^T, g], [0, A^T]])]_12  (Van Loan's block trick)."""

    @staticmethod
    def forward(ctx, a):
        check_matrices(a, "linalg.matrix_exp")
        ctx.save_for_backward(a)
        return expm_array(a)

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        n = a.shape[-1]
        at = a.mT
        block = cat_rows(mg_cat_last(at, g), mg_cat_last(g * 0, at))
        return MatrixExp.apply(block)[..., :n, n:]


@quiet_fp
def expm_array(a: Any) -> Any:
    """exp(A) of arrays: scale A by 2^-s until its 1-norm is below 1/2, sum the Taylor series to
    the dtype's precision (18 terms in float64), square s times."""
    xp = get_array_module(a)
    norm = float(xp.abs(a).sum(-2).max()) if a.size else 0.0
    s = max(0, math.ceil(math.log2(norm)) + 1) if norm > 0 else 0
    x = a / (2.0**s)
    eye = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    terms = 18 if a.dtype == np.float64 else 10
    out = eye.copy()
    for k in range(terms, 0, -1):  # Horner: I + x/1 (I + x/2 (I + ... (I + x/terms)))
        out = eye + (x @ out) / k
    for _ in range(s):
        out = out @ out
    return out


def cat_rows(top: Any, bottom: Any) -> Any:
    """[top; bottom] along the second-to-last dim, differentiably."""
    return mg_cat_last(top.mT, bottom.mT).mT
