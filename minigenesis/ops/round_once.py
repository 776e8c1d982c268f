"""Two-byte floats (float16, bfloat16) computed in float32 and rounded once, at the output.

PyTorch's CPU kernels for a composite op such as conv2d or bilinear interpolation load 2-byte
inputs into float32, do all the arithmetic there and round the op's output once, so each output
is within about half an ulp of the low dtype from the exact result. Built here from several ops
(a matmul, then a bias add; a gather, then weights), a 2-byte input would be rounded after every
step instead, and the errors pile up (several ulps; the gradients worse, being sums of such
terms). ``in_float32`` runs such a function on float32 copies of its 2-byte tensors and casts the
result back: the casts are differentiable, so the gradients are computed in float32 too and
rounded once, when they reach the 2-byte leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autocast_policy import state, without_autocast
from ..autograd.tensor_base import TensorBase as Tensor
from ..dtypes import bfloat16, float16, float32

TWO_BYTE_FLOATS = (float16, bfloat16)


def is_two_byte_float(t: Any) -> bool:
    """Whether ``t`` is a float16 or bfloat16 tensor."""
    return isinstance(t, Tensor) and t.dtype in TWO_BYTE_FLOATS


def widen(t: Any) -> Any:
    """A 2-byte float tensor as float32 (a differentiable cast), anything else as it is: a
    backward formula on widened operands returns a float32 gradient, which the engine rounds to
    the input's dtype once."""
    return t.to(float32) if is_two_byte_float(t) else t


def same_two_byte_float(*tensors: Any) -> bool:
    """Whether the tensors (None skipped) are all float16, or all bfloat16 (no promotion)."""
    present = [t for t in tensors if t is not None]
    return all(map(is_two_byte_float, present)) and len({t.dtype for t in present}) == 1


def in_float32(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs) with every 2-byte float tensor argument in float32 (autocast off, so
    nothing inside casts back down), the tensor result(s) cast to the first such argument's
    dtype: one rounding per output element. Without a 2-byte argument: fn as it is."""
    dtype = next((a.dtype for a in (*args, *kwargs.values()) if is_two_byte_float(a)), None)
    if dtype is None:
        return fn(*args, **kwargs)

    def up(a: Any) -> Any:
        return a.to(float32) if is_two_byte_float(a) else a

    out = without_autocast(fn)(*map(up, args), **{k: up(v) for k, v in kwargs.items()})
    if isinstance(out, tuple):
        return tuple(o.to(dtype) if isinstance(o, Tensor) else o for o in out)
    return out.to(dtype)


def cuda_autocast_widens(t: Tensor) -> bool:
    """Whether CUDA autocast is on for a CUDA tensor ``t``: ops on its float32 list (upsampling)
    then widen ``t`` themselves and return float32, which rounding back would undo."""
    setting = state.autocast_dtype
    return setting is not None and getattr(setting, "cuda", None) is not None and t.is_cuda
