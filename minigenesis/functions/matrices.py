"""Matrix products and linear algebra at the top level: ``mg.matmul``, ``mm``, ``bmm``, ``dot``,
``outer``, ``addmm``, ``tensordot``, ``mg.einsum``, ``mg.cdist``, and the ``mg.*`` forms of the
Tensor's linear-algebra methods (``tensor_linalg.py``): ``mg.det``, ``mg.inverse``, ``mg.svd``,
``mg.cholesky`` ...

torch.linalg's names are in ``linalg.py``; ``mg.svd`` and ``mg.linalg.svd`` differ as in PyTorch:
(U, S, V) with ``some`` versus (U, S, Vh) with ``full_matrices``."""

from __future__ import annotations

import math as _math
from typing import Any

from .._tensor import Tensor
from ..autocast_policy import FLOAT32, autocast_function
from ..backend import get_array_module
from ..ops.distance import EuclideanDistMM
from ..ops.einsum import Einsum, parse, sublist_equation
from ..ops.matmul import matmul as _matmul
from ..ops.same_dtype import check_same_dtype as _check_same_dtype
from ..size import norm_dim
from ..sparse_coo import SparseCOOTensor
from ._common import _with_out


@_with_out
def matmul(x: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul: 1-D operands get a dim added (and removed), batch dims broadcast."""
    if isinstance(x, SparseCOOTensor):  # sparse @ dense (or sparse)
        return x.matmul(other)
    if isinstance(other, SparseCOOTensor):  # dense @ sparse
        return other.__rmatmul__(x)
    return _matmul(x, other)


@_with_out
def mm(x: Tensor, mat2: Tensor) -> Tensor:
    return x.mm(mat2)


@_with_out
def bmm(x: Tensor, mat2: Tensor) -> Tensor:
    return x.bmm(mat2)


@_with_out
def mv(x: Tensor, vec: Tensor) -> Tensor:
    return x.mv(vec)


@_with_out
def dot(x: Tensor, other: Tensor) -> Tensor:
    return x.dot(other)


@_with_out
def outer(x: Any, vec2: Any) -> Any:
    return x.outer(vec2)


ger = outer


@_with_out
def addmm(x: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.addmm(mat1, mat2, beta=beta, alpha=alpha)


@_with_out
def baddbmm(x: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1) -> Any:
    return x.baddbmm(batch1, batch2, beta=beta, alpha=alpha)


@_with_out
def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Sum over pairs of dims of a and b: ``dims=k`` pairs a's last k dims with b's first k,
    ``dims=([a dims], [b dims])`` names them (either also as a tensor, as PyTorch takes it).
    A permute, a reshape and one matmul."""
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    if len(da) != len(db):
        raise RuntimeError(
            f"tensordot: both dimension lists should have same length, got {len(da)} and {len(db)}"
        )
    da = [norm_dim(d, a.ndim)[0] for d in da]
    db = [norm_dim(d, b.ndim)[0] for d in db]
    for i, j in zip(da, db, strict=True):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(
                f"tensordot: contracted dimensions need to match, but first has size "
                f"{a.shape[i]} in dim {i} and second has size {b.shape[j]} in dim {j}"
            )
    _check_same_dtype("tensordot", a=a, b=b)
    free_a = [d for d in range(a.ndim) if d not in da]
    free_b = [d for d in range(b.ndim) if d not in db]
    m, k, n = (_math.prod(t.shape[d] for d in ds) for t, ds in ((a, free_a), (a, da), (b, free_b)))
    # (sizes spelled out, not -1: a contraction over a size-0 dim is a (m, 0) @ (0, n) of zeros)
    left = a.permute(*(free_a + da)).reshape(m, k)
    right = b.permute(*(db + free_b)).reshape(k, n)
    shape = tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b)
    return _matmul(left, right).reshape(shape)


def einsum(*args: Any) -> Tensor:
    """einsum("ij,jk->ik", a, b): sums of products over subscripts (a-z, A-Z; '...' for broadcast
    batch dims; no '->' gives the letters used once, in alphabetical order). Also the sublist
    form einsum(a, [0, 1], b, [1, 2], [0, 2]), and the operands as one list."""
    if not args:
        raise TypeError("einsum(): must specify the equation string and at least one operand")
    if isinstance(args[0], Tensor):
        equation, operands = sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string, got {type(equation).__name__}")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, got {type(t).__name__}")
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    return Einsum.apply(parse(equation, [tuple(t.shape) for t in operands]), *operands)


def trace(x: Any) -> Any:
    return x.trace()


_CDIST_MODES = (
    "use_mm_for_euclid_dist_if_necessary",
    "use_mm_for_euclid_dist",
    "donot_use_mm_for_euclid_dist",
)


@autocast_function(FLOAT32)  # on both of PyTorch's float32 lists
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    """The p-norm distance between each row of x1 (*, P, M) and each row of x2 (*, R, M):
    out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p, shape (*, P, R), batch dims broadcast.

    For p = 2 and more than 25 rows on either side (or ``compute_mode="use_mm_for_euclid_dist"``)
    the squared distance comes from one matmul, ||a||^2 - 2 a.b + ||b||^2 (ops/distance.py), as
    PyTorch does; otherwise from the differences directly. Gradients are 0 at zero distance."""
    mode = compute_mode or _CDIST_MODES[0]
    if mode not in _CDIST_MODES:
        raise ValueError(f"cdist: compute_mode must be one of {_CDIST_MODES}, got {compute_mode!r}")
    if not p >= 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got p={p}")
    _check_same_dtype("cdist", x1=x1, x2=x2)
    if x1.ndim < 2 or x2.ndim < 2 or x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"cdist: x1 (*, P, M) and x2 (*, R, M) need at least 2 dims and the same M, got "
            f"shapes {tuple(x1.shape)} and {tuple(x2.shape)}"
        )
    xp = get_array_module(x1._data)
    batch = tuple(xp.broadcast_shapes(tuple(x1.shape[:-2]), tuple(x2.shape[:-2])))
    (p1, m), r = x1.shape[-2:], x2.shape[-2]
    a = x1.expand(batch + (p1, m))
    b = x2.expand(batch + (r, m))
    use_mm = p == 2 and (
        mode == "use_mm_for_euclid_dist"
        or (mode == "use_mm_for_euclid_dist_if_necessary" and (p1 > 25 or r > 25))
    )
    if use_mm:
        out = EuclideanDistMM.apply(a.reshape((-1, p1, m)), b.reshape((-1, r, m)))
        return out.reshape(batch + (p1, r))
    # (*, P, 1, M) - (*, 1, R, M): every pair's difference, then its norm (0-gradient at 0)
    return (a.unsqueeze(-2) - b.unsqueeze(-3)).norm(p, -1)


def _linalg_input(x: Any, name: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x


def det(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "det").det()


def logdet(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "logdet").logdet()


def slogdet(input: Tensor) -> tuple:  # noqa: A002
    return _linalg_input(input, "slogdet").slogdet()


def inverse(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "inverse").inverse()


def cholesky(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cholesky").cholesky(upper)


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    """X with A X = input, A = L L^T given by its factor ``input2`` (U^T U with ``upper``)."""
    return _linalg_input(input, "cholesky_solve").cholesky_solve(
        _linalg_input(input2, "cholesky_solve"), upper
    )


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cholesky_inverse").cholesky_inverse(upper)


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> tuple:  # noqa: A002
    return _linalg_input(input, "svd").svd(some, compute_uv)


def qr(input: Tensor, some: bool = True) -> tuple:  # noqa: A002
    return _linalg_input(input, "qr").qr(some)


@_with_out
def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:  # noqa: A002
    return _linalg_input(input, "cross").cross(other, dim)


@_with_out
def kron(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "kron").kron(other)


def matrix_power(input: Tensor, n: int) -> Tensor:  # noqa: A002
    return _linalg_input(input, "matrix_power").matrix_power(n)


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:  # noqa: A002
    return _linalg_input(input, "pinverse").pinverse(rcond)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    return _linalg_input(input, "diagonal").diagonal(offset, dim1, dim2)


def matrix_exp(input: Tensor) -> Tensor:  # noqa: A002
    return _linalg_input(input, "matrix_exp").matrix_exp()
