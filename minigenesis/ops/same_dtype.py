"""One dtype for the ops that compute in one: the check, and PyTorch's error.

Elementwise arithmetic promotes mixed dtypes (``float32 + float64`` is float64, see
``promotion.py``). The ops that run one kernel over several tensors do not: matrix products (mm,
bmm, mv, dot, matmul, addmm, baddbmm, tensordot, multi_dot, F.linear, F.bilinear, convolutions,
attention), cross, lerp, prelu, and the copies of one tensor into another (index_copy, scatter).
PyTorch raises when their tensors differ in dtype, and so does this. Promoting quietly would hide
a bug: an ``nn.Linear`` fed float64 data would run, and train, at twice the memory and time,
with float64 gradients flowing into float32 weights.

Autocast casts first. An op that autocast runs in its low dtype (``LOWER``) gets a float32 and a
bfloat16 tensor both as bfloat16, so for such an op the check compares the dtypes the tensors will
have after the casts (``autocast_policy.dtype_after``); float64 is never cast, so float32 with
float64 is an error under autocast too, as in PyTorch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autocast_policy import dtype_after
from ..autograd.tensor_base import TensorBase

# PyTorch's messages name the C++ element types
_C_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
}


def check_same_dtype(op: str, autocast_rule: str | None = None, **tensors: Any) -> None:
    """Raise PyTorch's RuntimeError unless the named tensors (``m1=a, m2=b``; None and numbers
    are skipped) share one dtype, compared after the casts autocast makes for ``autocast_rule``.

    ``check_same_dtype("mm", m1=a, m2=b)`` on float32 and float64 raises
    ``mm: expected m1 and m2 to have the same dtype, but got: float != double``."""
    first = None
    for t in tensors.values():  # the common case first: one dtype already, nothing to cast
        if isinstance(t, TensorBase):
            if first is None:
                first = t._data.dtype
            elif t._data.dtype != first:
                break
    else:
        return
    named = [(k, t) for k, t in tensors.items() if isinstance(t, TensorBase)]
    dtypes = [dtype_after(autocast_rule, t) for _, t in named]
    if all(d == dtypes[0] for d in dtypes):
        return
    names = [k for k, _ in named]
    got = [_C_NAMES.get(t.dtype.name, t.dtype.name) for _, t in named]
    if len(named) == 2:
        raise RuntimeError(
            f"{op}: expected {names[0]} and {names[1]} to have the same dtype, but got: "
            f"{got[0]} != {got[1]}"
        )
    raise RuntimeError(
        f"{op}: expected {', '.join(names[:-1])} and {names[-1]} to have the same dtype, but "
        f"got: {', '.join(got[:-1])} and {got[-1]}"
    )


def check_param_dtypes(op: str, input: Any, **params: Any) -> None:  # noqa: A002
    """The normalizations' rule (layer, group, batch and instance norm): each named parameter
    (weight, bias, running statistics; None is skipped) has the input's dtype, or is float32
    for a float16 / bfloat16 input (PyTorch's mixed-precision path). Anything else raises
    PyTorch's RuntimeError: a float64 weight on a float32 input is not quietly promoted. The
    input itself must be floating (PyTorch's NotImplementedError: integers would be truncated)."""
    d = input._data.dtype
    if d.kind not in "fV":  # (bfloat16 is a "V" dtype)
        raise NotImplementedError(f'"{op}" not implemented for {d.name} input')
    for name, t in params.items():
        if not isinstance(t, TensorBase) or t._data.dtype == d:
            continue  # the common case: nothing to compare
        p = t._data.dtype
        if p == np.float32 and d.itemsize == 2 and d.name in ("float16", "bfloat16"):
            continue
        raise RuntimeError(
            f"{op}: mixed dtype: expected {name} to have the input's dtype "
            f"{_C_NAMES.get(d.name, d.name)} (or float for a half-precision input), got "
            f"{_C_NAMES.get(p.name, p.name)}"
        )


# PyTorch's kernel errors name the scalar types as ATen spells them
SCALAR_NAMES = {
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def check_floating(kernel: str, *tensors: Any) -> None:
    """PyTorch's NotImplementedError for a floating-only kernel given integers or bools:
    ``"huber_cpu" not implemented for 'Long'``. The kernel runs in the dtype the (tensor)
    arguments promote to, so a float input with an integer target passes, as in PyTorch; an
    integer one would otherwise be computed in floats or truncated to integers."""
    dtypes = [t._data.dtype for t in tensors if isinstance(t, TensorBase)]
    if not dtypes or any(d.kind in "fcV" for d in dtypes):  # (bfloat16 is a "V" dtype)
        return
    d = dtypes[0]  # the message names the input's dtype
    raise NotImplementedError(
        f"\"{kernel}\" not implemented for '{SCALAR_NAMES.get(d.name, d.name)}'"
    )


def check_not_bool(kernel: str, input: Any) -> None:  # noqa: A002
    """PyTorch's NotImplementedError for a kernel with integer cases but no bool one
    (convolutions, reflection and replication padding): ``"slow_conv2d_cpu" not implemented for
    'Bool'``."""
    if isinstance(input, TensorBase) and input._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
