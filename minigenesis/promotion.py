"""PyTorch's type promotion, written once: which dtype ``a (op) b`` computes in.

Every arithmetic operator of the Tensor (``+``, ``*``, ``**``, ``maximum`` ...) and the mg.*
functions that combine tensors go through :func:`binary_op`, which promotes the operands and then
runs the op; :func:`where` (``mg.where``, ``Tensor.where``) promotes its two values the same way.
The rules, as PyTorch's:

- two tensors of different dtypes compute in the wider one (``promote_types`` in ``dtypes.py``):
  int32 + float16 is float16, float16 + bfloat16 is float32;
- a 0-d tensor is like a Python number: it cannot widen a tensor with dims of its own category
  (float32 tensor + float64 0-d tensor stays float32), only lift it to a higher category
  (int tensor + float 0-d tensor is floating);
- a Python number only changes the category: float16 tensor * 2.5 stays float16, int tensor * 2.5
  is the default float dtype;
- bool < integer < floating (``CATEGORY``).

NumPy's own rules differ (it widens bfloat16 with a Python float to float32, int8 + int8 scalar
overflow rules ...), which is why the promotion is done here before NumPy sees the arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import autocast_policy as _policy
from . import dtypes as _dt
from .autograd.tensor_base import TensorBase
from .backend import cast_array, get_array_module, quiet_fp
from .conversions import as_array
from .ops import elementwise as E
from .ops import rounding as RD
from .ops.elementwise import Where
from .size import broadcast_error, python_number

SCALARS = (int, float, bool)
SCALAR_TYPES = frozenset(SCALARS)
# A list or tuple is no operand of PyTorch's arithmetic: its operators return NotImplemented
# (so Python raises TypeError, or repeats the list for ``int_tensor * [1, 2]``) and its methods
# and functions raise TypeError (``refuse_sequence``). NumPy arrays are still taken.
SEQUENCES = (list, tuple)
NOT_MATRICES = (*SEQUENCES, int, float, complex, np.generic)  # no operand of @ (TypeError)
NUMBERS = frozenset((int, float))  # Python numbers that keep a float tensor's dtype (not bool)
FLOAT_KINDS = "fV"  # 'V' is how NumPy reports ml_dtypes' bfloat16
CATEGORY = {"b": 0, "i": 1, "u": 1, "f": 2, "V": 2}  # bool < integer < floating


def as_tensor_like(x: Any, ref: Any) -> Any:
    """A NumPy/CuPy array or a list in an expression with a tensor becomes a tensor; a NumPy
    scalar (``np.float64(2.5)``, ``np.int8(3)``, also the Python float subclass np.float64) is
    read as the Python number it holds, as PyTorch reads it: it changes only the category
    (``float16_tensor * np.sqrt(2)`` stays float16). A 0-d array is a 0-d tensor."""
    if isinstance(x, TensorBase):
        return x
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, SCALARS):
        return x
    return TensorBase._make(as_array(x, None, ref.device), False)


def refuse_sequence(
    name: str, other: Any, position: int = 1, arg: str = "other", kinds: tuple = SEQUENCES
) -> None:
    """PyTorch's TypeError for a list or tuple (or other ``kinds``) given where a tensor goes."""
    if isinstance(other, kinds):
        raise TypeError(
            f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
            f"{type(other).__name__}"
        )


def binary_op(op: Any, a: Any, b: Any) -> Any:
    """Run ``op(a, b)`` after PyTorch's type promotion. One of a, b is a Tensor; NotImplemented
    when the other is a list or tuple (``SEQUENCES``)."""
    t, s = (a, b) if isinstance(a, TensorBase) else (b, a)  # the tensor, and the other operand
    # Every arithmetic operator comes here, so the common cases go straight to the op: a
    # floating-point tensor with a Python float or int (NumPy keeps the tensor's dtype, as
    # PyTorch does), and two tensors of one dtype on one device.
    try:
        if type(s) in NUMBERS:
            dtype = t._data.dtype
            if dtype.itemsize == 2 and dtype.kind in FLOAT_KINDS:
                return _half_with_number(op, a, b, t, s)
            if dtype.kind == "f":
                return op.apply(a, b)
        elif (
            op in _OPMATH_SCALAR_OPS
            and isinstance(s, TensorBase)
            and s._data.ndim == 0
            and t._data.ndim > 0
            and (t is a or op not in _ROUNDED_DIVISIONS)
            and t._data.dtype.itemsize == 2
            and t._data.dtype.kind in FLOAT_KINDS
            and s._data.dtype.kind in "fiub"
            and s.device.type == "cpu"
            and not s.requires_grad
        ):  # a 0-d CPU tensor is a scalar operand to PyTorch's multiply and divide kernels
            return _half_with_number(op, a, b, t, float(s._data.astype(_np_float32)))
        elif (
            isinstance(s, TensorBase)
            and s._data.dtype is t._data.dtype
            and type(s._data) is type(t._data)
        ):
            return op.apply(a, b)
        if isinstance(s, TensorBase):
            if type(s._data) is not type(t._data):
                a, b = same_device(a, b)
        elif type(s) not in SCALAR_TYPES:  # (a NumPy float64 is a float too: made a number)
            if isinstance(s, SEQUENCES) or getattr(s, "is_sparse", False):
                # (the operators' protocol; methods raise: refuse_sequence.) A sparse operand
                # computes it in its reflected method: dense + sparse is dense, * is sparse
                return NotImplemented
            s = as_tensor_like(s, t)  # an array or NumPy scalar: a tensor (or a number)
            a, b = (t, s) if t is a else (s, t)
        a, b, low = promote(a, b)
        out = op.apply(a, b)
    except ValueError as err:
        if "broadcast" not in str(err):
            raise
        shapes = [tuple(x.shape) for x in (a, b) if isinstance(x, TensorBase)]
        raise broadcast_error(*shapes) from None
    if low is not None and out._data.dtype != low and not _policy.casts_to_float32(op, t):
        out = out._cast(low)
    return out


def _half_with_number(op: Any, a: Any, b: Any, t: Any, s: Any) -> Any:
    """A float16/bfloat16 tensor ``t`` with a number ``s``, as PyTorch computes it.

    Its multiply and divide kernels (``t * s``, ``s * t``, ``t / s``, ``t // s``) read a scalar
    operand in float32 (their "opmath" type): ``s`` is rounded to float32, not to the tensor's
    2-byte type, and the result is rounded back once. (NumPy rounds ``s`` to float16 first:
    ``x * 0.1`` then multiplies by 0.0999755859375 and is one unit off in a third of the
    elements.) ``s / t`` is divided the same way; PyTorch computes it as ``t.reciprocal() * s``,
    two roundings, which is one unit off the exact quotient in places, for every dtype: we keep
    the one rounding. Every other op (+, -, **, %, fmod, ...) rounds ``s`` to the tensor's type
    first, then computes as for two tensors. ``s`` may also be the value of a 0-d CPU tensor
    (PyTorch's kernels take one as a scalar operand), rounded to float32."""
    low = t._data.dtype
    if op in _OPMATH_SCALAR_OPS and (t is a or op not in _ROUNDED_DIVISIONS):
        # the op's forward reads the number in float32 (ops/elementwise.py, opmath_scalar)
        return op.apply(t, s) if t is a else op.apply(s, t)
    if s.__class__ in NUMBERS:  # rounded to the tensor's type (float16 through float32)
        s = float(cast_array(np.asarray(float(s)), low))
    out = op.apply(t, s) if t is a else op.apply(s, t)
    if out._data.dtype != low and not _policy.casts_to_float32(op, t):
        out = out._cast(low)
    return out


_np_float32 = np.dtype(np.float32)
_OPMATH_SCALAR_OPS = frozenset((E.Mul, E.Div, E.FloorDiv, RD.DivFloor, RD.DivTrunc))
_ROUNDED_DIVISIONS = frozenset((E.FloorDiv, RD.DivFloor, RD.DivTrunc))


def same_device(a: Any, b: Any) -> tuple:
    """Two tensors on different devices: a 0-d CPU tensor joins the other one's device (PyTorch
    treats it as a scalar); any other pair is PyTorch's error."""
    if a.device != b.device:
        if b.device.type == "cpu" and b._data.ndim == 0:
            return a, b.to(a.device)
        if a.device.type == "cpu" and a._data.ndim == 0:
            return a.to(b.device), b
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{a.device} and {b.device}!"
        )
    return a, b


def promote(a: Any, b: Any) -> tuple:
    """PyTorch's type promotion for ``a (op) b`` (a tensor and a tensor or Python number):
    the operands cast to the result's dtype, and the dtype the result must be rounded back to
    (bfloat16, which NumPy would widen to float32) or None."""
    a_is_t, b_is_t = isinstance(a, TensorBase), isinstance(b, TensorBase)
    if a_is_t and b_is_t:
        da, db = a._data.dtype, b._data.dtype
        if da != db:
            target = _dt.promote_types(_dt.from_numpy_dtype(da), _dt.from_numpy_dtype(db))
            target = target.numpy_dtype
            if (a._data.ndim == 0) != (b._data.ndim == 0):  # a 0-d tensor acts like a scalar:
                zd, dd = (da, db) if a._data.ndim == 0 else (db, da)  # it cannot widen a
                if CATEGORY[zd.kind] <= CATEGORY[dd.kind]:  # dimensioned tensor of its kind
                    target = dd
            a, b = a._cast(target), b._cast(target)
        return a, b, None
    t, s = (a, b) if a_is_t else (b, a)  # a tensor and a Python number
    kind = t._data.dtype.kind
    if kind in "iu" and s.__class__ is int:  # cast to the tensor's integer type, as PyTorch
        w = wrap_int(s, t._data.dtype)
        a, b = (t, w) if a_is_t else (w, t)
    if kind == "V":  # bfloat16: NumPy would upcast to float32; PyTorch keeps bfloat16
        return a, b, t._data.dtype
    if kind != "f" and isinstance(s, float):  # int tensor (op) float scalar -> default float
        t = t._cast(_dt.get_default_dtype().numpy_dtype)
        a, b = (t, s) if a_is_t else (s, t)
    return a, b, None


def wrap_int(value: int, np_dtype: Any) -> int:
    """A Python int cast to an integer dtype as C casts it (modulo 2**bits, two's complement):
    PyTorch casts a scalar to the tensor's dtype, so ``uint8_tensor + (-2)`` adds 254 (the same
    sum modulo 256) and ``uint8_tensor < -2`` compares with 254; NumPy would refuse the value."""
    info = np.iinfo(np_dtype)
    if info.min <= value <= info.max:
        return value
    return (value - info.min) % (1 << info.bits) + info.min


def written_int(value: Any, np_dtype: Any) -> Any:
    """A Python int about to be written into an integer tensor (``x[i] = v``, ``fill_``,
    ``masked_fill``), as PyTorch converts it: checked, an int out of the dtype's range refused
    with PyTorch's RuntimeError, except that an unsigned dtype takes a negative int down to
    minus its maximum, wrapped (``uint8`` stores -1 as 255). A Python float must lie in the
    dtype's range (it is then truncated: 2.7 is 2; -0.5 does not fit uint8, NaN nothing).
    A Python float written into float16 is rounded through float32, as PyTorch rounds it
    (``cast_array``). A NumPy scalar is checked as the Python number it holds (``np.uint8(200)``
    does not fit int8). Anything else passes unchanged."""
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        value = value.item()
    if value.__class__ is float and np_dtype == np.float16:
        return float(cast_array(np.asarray(value), np_dtype))
    if np_dtype.kind not in "iu" or value.__class__ not in (int, float):
        return value
    info = np.iinfo(np_dtype)
    if value.__class__ is float:
        if not info.min <= value <= info.max:  # (False for NaN)
            raise RuntimeError(
                f"value cannot be converted to type {np_dtype.name}_t without overflow"
            )
        return value
    if info.min <= value <= info.max:
        return value
    if info.min == 0 and -info.max <= value < 0:
        return value + info.max + 1
    raise RuntimeError(f"value cannot be converted to type {np_dtype.name}_t without overflow")


def compare_operands(a: Any, b: Any) -> tuple:
    """The arrays (or number) that a comparison or a bitwise op of tensor ``a`` with ``b``
    computes on: both in PyTorch's promoted dtype (``result_type``), so a float16 tensor is
    compared with a 0-d float64 tensor in float16, an int64 tensor with a Python float in the
    default float dtype, and a uint8 tensor with -2 as with 254. Other operands (arrays, lists)
    pass as they are."""
    ad = a._data
    if isinstance(b, TensorBase):
        if b._data.dtype == ad.dtype:
            return ad, b._data
        if type(b._data) is not type(ad):
            a, b = same_device(a, b)
        target = result_type(a, b).numpy_dtype
        return ad.astype(target, copy=False), b._data.astype(target, copy=False)
    b = python_number(b)  # a NumPy scalar compares as the Python number it holds
    if b.__class__ not in (int, float, bool):
        return ad, b
    kind = ad.dtype.kind
    if kind == "f":  # NumPy casts a Python number to the array's float type, as PyTorch does
        return ad, b
    target = _dt.scalar_result_type(_dt.from_numpy_dtype(ad.dtype), b).numpy_dtype
    ad = ad.astype(target, copy=False)
    if target.kind in "iu" and b.__class__ is int:
        return ad, wrap_int(b, target)
    if target.kind == "V":  # bfloat16: compare with the number rounded to bfloat16
        return ad, get_array_module(ad).asarray(b, dtype=target)
    return ad, b


def result_type(*operands: Any) -> Any:
    """PyTorch's result dtype of several operands (tensors, Python numbers, None skipped):
    tensors with dims promote among themselves; 0-d tensors only count where they are of a
    higher category (bool < integer < floating); Python numbers only change the category."""
    tensors = [o for o in operands if isinstance(o, TensorBase)]
    dims = [t.dtype for t in tensors if t._data.ndim] or [t.dtype for t in tensors]
    zero_d = [t.dtype for t in tensors if not t._data.ndim]
    out = dims[0]
    for d in dims[1:]:
        out = _dt.promote_types(out, d)
    for d in zero_d:
        if CATEGORY[d.numpy_dtype.kind] > CATEGORY[out.numpy_dtype.kind]:
            out = _dt.promote_types(out, d)
    for s in operands:
        if s is not None and not isinstance(s, TensorBase):
            out = _dt.scalar_result_type(out, s)
    return out


def is_float(x: Any) -> bool:
    """A Python float or a floating-point tensor (what makes a promoted result floating)."""
    if isinstance(x, TensorBase):
        return x._data.dtype.kind in FLOAT_KINDS
    return isinstance(x, float)


def is_bool(x: Any) -> bool:
    """A Python bool or a bool tensor."""
    if isinstance(x, TensorBase):
        return x._data.dtype.kind == "b"
    return x.__class__ is bool


def float_in(t: Any) -> Any:
    """Float math (exp, log, ...) on a bool/integer tensor computes in the default float dtype, as
    PyTorch does (NumPy would pick float16 for int8, float64 for int64)."""
    if t._data.dtype.kind in "biu":
        return t._cast(_dt.get_default_dtype().numpy_dtype)
    return t


def need_float(t: Any, name: str, error: type = RuntimeError) -> None:
    """PyTorch's float-only ops (var, std, norm, softmax ...) refuse bool/integer tensors, with
    its RuntimeError, or NotImplementedError where it has no kernel for the dtype (softmax)."""
    if t._data.dtype.kind not in FLOAT_KINDS:
        raise error(
            f"{name}() needs a floating-point tensor, got {t.dtype.name}: call .float() first"
        )


def alpha_scaled(t: Any, other: Any, alpha: Any) -> Any:
    """alpha * other for add/sub/index_add(alpha=): PyTorch refuses a float alpha with integer
    tensors. A NumPy scalar alpha is the Python number it holds (np.float32(2.5) is a float)."""
    alpha = python_number(alpha)
    if alpha == 1 and alpha.__class__ is not float:
        return other
    if isinstance(alpha, float) and not (is_float(t) or is_float(other)):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    if is_bool(t) and is_bool(other):  # PyTorch casts alpha to bool: other AND alpha
        return other if alpha else other & False
    if isinstance(other, TensorBase) and isinstance(t, TensorBase):
        target = result_type(t, other).numpy_dtype
        # other in the result's dtype first: a bool or int8 other times an int alpha would be
        # int64 (int16 + bool * 3 is int16), an integer other times a float alpha float32
        # (float16 stays float16)
        if other._data.dtype != target and (is_float(t) or not is_float(other)):
            other = other._cast(target)
    return other * alpha


@quiet_fp
def where(condition: Any, x: Any, y: Any) -> Any:
    """Elementwise ``x if condition else y``; x and y broadcast and promote like ``x + y``.

    A Python scalar only changes the category, as in ``x + 2.5``: ``where(c, half_tensor, 0.0)``
    stays float16, ``where(c, int_tensor, 2.5)`` is float32; two scalars give the dtype a tensor
    of them would have (float32 for floats, int64 for ints)."""
    cond = condition._data if isinstance(condition, TensorBase) else condition
    if getattr(cond, "dtype", None) is not None and cond.dtype.kind != "b":
        # PyTorch's words; it still takes uint8 with a deprecation warning, refused here
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{_dt.from_numpy_dtype(cond.dtype)}"
        )
    # a NumPy scalar is the Python number it holds (np.float16(3) beside an int tensor: float32)
    x, y = python_number(x), python_number(y)
    x_scalar, y_scalar = isinstance(x, SCALARS), isinstance(y, SCALARS)
    if x_scalar and y_scalar:
        xp = get_array_module(cond)
        dt = _dt.promote_types(_dt.infer_dtype(x), _dt.infer_dtype(y)).numpy_dtype
        return TensorBase._make(xp.where(cond, xp.asarray(x, dt), xp.asarray(y, dt)), False)
    ref = x if isinstance(x, TensorBase) else y
    if x_scalar or y_scalar:
        t = _tensor(y if x_scalar else x, ref)
        target = _dt.scalar_result_type(t.dtype, x if x_scalar else y).numpy_dtype
        t = t._cast(target)
        # written as a fill writes it: an int beyond the dtype's range is PyTorch's RuntimeError,
        # a negative one in an unsigned dtype wraps (uint8: -2 is 254)
        value = written_int(x if x_scalar else y, target)
        s = TensorBase._make(get_array_module(t._data).asarray(value, target), False)
        x, y = (s, t) if x_scalar else (t, s)
    else:
        x, y = _tensor(x, ref), _tensor(y, ref)
    if x._data.dtype != y._data.dtype:  # as x + y: a 0-d tensor does not widen its category
        x, y, _ = promote(x, y)
    try:
        return Where.apply(cond, x, y)
    except ValueError as err:  # checked only on failure: the shapes do not broadcast
        if "broadcast" not in str(err):
            raise
        raise broadcast_error(cond.shape, x.shape, y.shape) from None


def _tensor(x: Any, like: Any) -> Any:
    """x as a tensor (data is converted on ``like``'s device, without gradient)."""
    if isinstance(x, TensorBase):
        return x
    return TensorBase._make(as_array(x, None, like.device if like is not None else None), False)


_ADDCDIV_INTEGERS = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
    "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
    "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
    "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
    "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all "
    "dtypes."
)


def refuse_integer_addcdiv(tensor1: Any, tensor2: Any) -> None:
    """addcdiv's check: PyTorch refuses two integer (or bool) operands with its long message."""
    if all(isinstance(t, TensorBase) and t._data.dtype.kind in "biu" for t in (tensor1, tensor2)):
        raise RuntimeError(_ADDCDIV_INTEGERS)
