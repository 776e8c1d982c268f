"""One-launch CUDA kernels for the steps a training loop repeats most.

On a GPU every array operation is a kernel launch, and for the small tensors of a course's models
a launch costs more than its arithmetic: about 10 us of host work each (measured with CuPy 14 on an
H200), while the GPU finishes a 64K-element add in a fraction of that. Adam's update written as
array operations (``m += (g - m) * w``, ``v *= beta2``, ...) is 14 launches per parameter; written
as one elementwise kernel it is one launch, 10x faster per parameter on that GPU.

This module is the one place where minigenesis writes CUDA. A kernel here is a few lines of C for
ONE element (CuPy runs them for every element of the broadcast arguments), compiled by CuPy the
first time it runs and cached on disk. Every kernel has a NumPy twin: the CPU path of the op or
optimizer that calls it, with the same arithmetic in the same order. Read the NumPy twin first;
the kernel is the same math, fused.

Exactness. By default CUDA compilers contract ``a * b + c`` into one fused multiply-add: one
rounding instead of two, so the GPU would differ from NumPy (and from itself written unfused) in
the last bits. Every kernel here is compiled with ``--fmad=false``, so each float32 ``+ - * /`` and
``sqrt`` rounds exactly as NumPy's does: the fused Adam step matches the unfused one bit for bit
(checked on an H200). Functions such as ``erf`` and ``exp`` are CUDA's own, within 2 units in the
last place of the true value.

Writing a kernel body (what CuPy and the test suite's CPU stand-in for CuPy both accept): one
statement per line ending in ``;``, local variables declared with their type (``T d = ...;``), and
literals cast to the element type (``(T)0.5``), because a bare ``0.5`` is a C double and would
silently turn the arithmetic into float64. Two rules CuPy adds, both found on a GPU:

- inputs are ``const``: a value the kernel writes (an in-place update, a flag) is an output;
- a reduction with one input and one output goes through CUB, which rewrites the expressions as
  plain text (the input's name becomes ``in0`` and the output's ``out0``, even inside other
  words) and has no ``_in_ind.size()``: pass a count the reduction divides by as a second input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import cupy_module, get_array_module

# Turn off a * b + c -> fma(a, b, c) contraction (see the module docstring).
_EXACT = ("--fmad=false",)

# The dtypes kernel_fits takes (see there): float32/float64, and with float16 for the kernels
# whose float16 arithmetic rounds as their NumPy twin's does.
FLOAT32_64 = (np.dtype(np.float32), np.dtype(np.float64))
FLOAT16_32_64 = (np.dtype(np.float16), *FLOAT32_64)


def kernel_fits(*arrays: Any, dtypes: tuple = FLOAT32_64, contiguous: bool = False) -> bool:
    """Do ``arrays`` go to a fused kernel here, in place of its NumPy twin's array operations?

    Yes when the first is a GPU (CuPy) array of one of ``dtypes`` and every other one has its
    dtype (a kernel's ``T`` is one type; None entries stand for absent arguments, such as an
    optimizer's unused buffer, and are skipped). NumPy arrays always take the NumPy path.

    ``dtypes``: float32 and float64 by default, the types whose kernel arithmetic rounds each
    operation as NumPy does. Not float16 unless the caller says so: CuPy computes a float16
    kernel's expressions in float32 and rounds once, where the value is assigned, while NumPy
    rounds every float16 operation, so a kernel of several operations would differ from its twin
    in the last bits. A caller passes ``FLOAT16_32_64`` where that cannot happen: kernels that only
    select or compare (max pooling, where_or_zero), that do one operation per assignment, or whose
    NumPy twin itself computes 2-byte floats in float32 and rounds once (the normalizations).
    Never bfloat16: CuPy has no bfloat16 arithmetic in kernels, so it keeps the array path.

    ``contiguous``: the first array must also be C-contiguous. A kernel writes its result
    C-contiguous, where CuPy's array operations keep a strided input's layout (a convolution's
    transposed output, say), which later reshapes may rely on to stay views; so callers whose
    kernel makes a new result ask for this, and strided inputs keep the array operations. The
    first array is then the one of the result's shape (y, not dL/dy, which may be a broadcast
    view)."""
    a = arrays[0]
    if type(a) is np.ndarray or get_array_module(a) is np or a.dtype not in dtypes:
        return False
    if contiguous and not a.flags.c_contiguous:
        return False
    return all(b is None or b.dtype == a.dtype for b in arrays[1:])


class ElementwiseKernel:
    """A CUDA kernel applied element by element over its broadcast arguments.

    ``in_params``/``out_params`` declare the arguments as in CuPy (``"T g, T lr"``, ``"T p, T m"``):
    ``T`` is bound to the dtype of the arrays passed for it, and a scalar passed for a ``T`` takes
    that dtype. Output arguments may be passed after the inputs: they are then written in place
    and may be read by the body first (an in-place update). Compiled on first call.
    """

    def __init__(self, name: str, in_params: str, out_params: str, body: str) -> None:
        self.name, self.in_params, self.out_params, self.body = name, in_params, out_params, body
        self._kernel: Any = None

    def __call__(self, *args: Any) -> Any:
        if self._kernel is None:
            cupy = cupy_module()
            if cupy is None:
                raise RuntimeError(f"kernel {self.name!r} needs CuPy, which is not installed")
            self._kernel = cupy.ElementwiseKernel(
                self.in_params, self.out_params, self.body, self.name, options=_EXACT
            )
        return self._kernel(*args)


class ReductionKernel:
    """A CUDA reduction: ``map_expr`` for each element of the broadcast inputs, combined with
    ``reduce_expr`` (``a + b``, or ``max(a, b)``/``min(a, b)``) along ``axis``, then
    ``post_map_expr`` on the combined value ``a`` and the scalar inputs (a mean passes its count
    as one: see the module docstring on CUB). Called as ``kernel(*inputs, axis=...,
    keepdims=...)``; ``reduce_type`` is the C type the values are combined in."""

    def __init__(
        self,
        name: str,
        in_params: str,
        out_params: str,
        map_expr: str,
        reduce_expr: str,
        post_map_expr: str,
        identity: str,
        reduce_type: str,
    ) -> None:
        self.name = name
        self._spec = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity)
        self.reduce_type = reduce_type
        self._kernel: Any = None

    def __call__(self, *args: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if self._kernel is None:
            cupy = cupy_module()
            if cupy is None:
                raise RuntimeError(f"kernel {self.name!r} needs CuPy, which is not installed")
            self._kernel = cupy.ReductionKernel(
                *self._spec, name=self.name, reduce_type=self.reduce_type, options=_EXACT
            )
        return self._kernel(*args, axis=axis, keepdims=keepdims)
