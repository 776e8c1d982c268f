"""Matrix multiplication, and how low precision is made fast on the CPU.

``MatMul`` handles operands of 2 or more dims (batch dims broadcast as in NumPy); the 1-D cases of
PyTorch's ``matmul`` (``a @ b``, ``mg.matmul``) are reduced to it in ``matmul`` below by adding and
removing a dim.

NumPy has no BLAS kernel for float16/bfloat16 (such a matmul runs 20-50x slower than float32). So on
the CPU a low-precision matmul rounds nothing extra: its inputs are already low precision; it
multiplies them in float32 with BLAS (float32 accumulation, as tensor cores do) and rounds the
result back. On CuPy the low dtype goes to cuBLAS directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import kernels
from ..autocast_policy import LOWER
from ..autograd.function import Op
from ..autograd.grad_mode import state
from ..autograd.node_names import node_variant
from ..backend import get_array_module, quiet_fp
from .same_dtype import check_same_dtype


def _via_float32(xp, a, b) -> bool:
    """Must a @ b of 2-byte floats be computed in float32 and rounded once? On the CPU always
    (NumPy has no 2-byte BLAS); on the GPU for bfloat16 with batch dimensions (cuBLAS multiplies
    bfloat16 matrices, but CuPy's batched matmul does not know the dtype)."""
    if a.dtype != b.dtype or a.dtype.itemsize != 2 or a.dtype.kind not in "fV":
        return False
    return xp is np or (a.dtype.kind == "V" and (a.ndim != 2 or b.ndim != 2))


@quiet_fp  # overflow to inf, inf * 0 = NaN inside the product, as in PyTorch
def matmul_arrays(a, b, bias=None):
    """a @ b (+ bias) on arrays; 2-byte floats where the library has no 2-byte product are
    multiplied in float32 and rounded once (_matmul_via_float32)."""
    xp = get_array_module(a)
    if a.dtype.itemsize == 2 and _via_float32(xp, a, b):
        return _matmul_via_float32(xp, a, b, bias)
    if xp is np and a.ndim == 2 and b.ndim == 2:
        # np.dot: the same BLAS product for matrices, with less dispatch than the matmul
        # gufunc (0.3-0.4 us a call) and a product over K = 1 as an outer product (1.4 us, where
        # matmul's gemm takes 6: an LSTM's scalar input times W_ih)
        out = xp.dot(a, b)
    else:
        out = xp.matmul(a, b)
    if bias is not None:
        out += bias.astype(out.dtype, copy=False)
    return out


def _matmul_via_float32(xp, a, b, bias):
    """a @ b (+ bias) of 2-byte floats, computed in float32 and rounded once. A bias is added to
    the float32 result before the rounding, as PyTorch's addmm does: one rounding instead of
    two, and no slow 2-byte elementwise add."""
    out = xp.matmul(a.astype(xp.float32), b.astype(xp.float32))
    if bias is not None:
        out += bias.astype(xp.float32, copy=False)
    return out.astype(a.dtype)


class MatMul(Op):
    """C = A @ B;   dL/dA = dL/dC @ B^T,   dL/dB = A^T @ dL/dC (batch dims summed by the engine)."""

    autocast = LOWER  # matmul, @, and the matmuls inside conv2d and attention

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim < 2 or b.ndim < 2:
            raise RuntimeError("MatMul expects operands with at least 2 dims; use matmul")
        if a.shape[-1] != b.shape[-2]:
            raise RuntimeError(
                f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be multiplied "
                f"({a.shape[-1]} != {b.shape[-2]})"
            )
        need_a, need_b = ctx.needs_input_grad
        ctx.save_for_backward(a if need_b else None, b if need_a else None)
        ctx.fold = a.dtype.itemsize == 2 and a.ndim != b.ndim and min(a.ndim, b.ndim) == 2
        return matmul_arrays(a, b)

    @staticmethod
    def backward(ctx, gc):
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        if ctx.fold:  # a 2-byte matrix's gradient summed over the other's batch, rounded once
            return _folded_grads(gc, a, b, need_a, need_b)
        if not state.grad_enabled:  # nothing records: the two products on arrays (as Linear's)
            return _matmul_grads_on_arrays(gc, a, b)
        ga = gc @ b.mT if need_a else None
        gb = a.mT @ gc if need_b else None
        return ga, gb


def _folded_grads(gc, a, b, need_a, need_b) -> tuple:
    """MatMul's gradients where one operand is a matrix and the other has batch dims, in 2-byte
    floats: the matrix's gradient, a sum over the batch of products (each rounded, then the sum
    rounded again), is one product with the batch folded into its inner dim, rounded once, as
    PyTorch folds such a matmul into one mm:  a (..., m, k) @ b (k, n): gb = A^T G with
    A = a.reshape(-1, k), G = gc.reshape(-1, n);  a (m, k) @ b (..., k, n): ga^T = B G^T with
    B = b^T rows stacked, (-1, k), G^T = gc^T rows stacked, (-1, m)."""
    ga = gb = None
    if a is not None and a.ndim > 2:  # b the matrix
        gb = a.reshape(-1, a.shape[-1]).mT @ gc.reshape(-1, gc.shape[-1]) if need_b else None
        ga = gc @ b.mT if need_a else None
    elif b is not None and b.ndim > 2:  # a the matrix
        ga = gc.mT.reshape(-1, gc.shape[-2]).mT @ b.mT.reshape(-1, b.shape[-2]) if need_a else None
        gb = a.mT @ gc if need_b else None
    else:  # only the batched operand's gradient is needed: no sum to fold
        ga = gc @ b.mT if need_a else None
        gb = a.mT @ gc if need_b else None
    return ga, gb


def _matmul_grads_on_arrays(gc, a, b) -> tuple:
    """MatMul's gradients gc @ b^T and a^T @ gc on the arrays (None for the one not needed):
    the same products, without two ops and two transposed views of recording machinery each."""
    g, make = gc._data, type(gc)._make
    swap = get_array_module(g).swapaxes
    ga = gb = None
    if b is not None:  # (g of a few rows: the product taken the faster way round, blas.py)
        ga = kernels.blas.times_transposed(g, b._data)
        ga = make(matmul_arrays(g, swap(b._data, -1, -2)) if ga is None else ga)
    if a is not None:
        gb = make(matmul_arrays(swap(a._data, -1, -2), g))
    return ga, gb


def _node_class(a: Any, b: Any, op: str) -> type:
    """MatMul, recorded under the node PyTorch's call leaves: MmBackward0 for two matrices,
    BmmBackward0 for bmm, UnsafeViewBackward0 for matmul's batched product (its bmm's result
    reshaped)."""
    if a.ndim == 2 and b.ndim == 2:
        return MatMul
    if op == "bmm":
        return _BMM
    return _BATCHED if a.ndim > 2 else MatMul


def matmul(a: Any, b: Any, op: str = "matmul") -> Any:
    """PyTorch's matmul: 1-D operands get a dim added (and removed from the result), batch dims
    broadcast. Both operands must have one dtype (after autocast's casts), as in PyTorch."""
    x, y = a._data, b._data
    if x.ndim == 2 and y.ndim == 2 and x.dtype == y.dtype:  # two matrices: none of the below
        return MatMul.apply(a, b)
    if x.dtype != y.dtype:  # (autocast may still make them one: it casts in apply)
        check_same_dtype(op, LOWER, m1=a, m2=b)
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(
            f"both arguments to {op} need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    if a.ndim == 1 and b.ndim == 1:
        if a.shape != b.shape:
            raise RuntimeError(
                f"{op}: vectors of shapes {tuple(a.shape)} and {tuple(b.shape)} differ in length"
            )
        return MatMul.apply(a.unsqueeze(0), b.unsqueeze(1)).reshape(())
    if a.ndim == 1:
        return MatMul.apply(a.unsqueeze(0), b).squeeze(-2)
    if b.ndim == 1:
        return MatMul.apply(a, b.unsqueeze(1)).squeeze(-1)
    try:
        return _node_class(a, b, op).apply(a, b)
    except ValueError:  # NumPy's, for batch dims that do not broadcast: PyTorch's RuntimeError
        raise RuntimeError(
            f"{op}: batch dims of shapes {tuple(a.shape)} and {tuple(b.shape)} cannot be broadcast"
        ) from None


_BMM = node_variant(MatMul, "BmmBackward0")
_BATCHED = node_variant(MatMul, "UnsafeViewBackward0")
