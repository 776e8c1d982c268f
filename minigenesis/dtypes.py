"""The dtype table and PyTorch's type-promotion rules.

Each DType wraps the NumPy dtype that stores it. bfloat16 is real 2-byte storage from
``ml_dtypes`` (1 sign bit, 8 exponent bits, 7 mantissa bits: float32's range, less precision).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


class DType:
    """A tensor element type: ``mg.float32``, ``mg.bfloat16``, ``mg.int64`` ..."""

    __slots__ = ("name", "numpy_dtype", "itemsize", "is_floating_point", "_kind", "_rank")

    def __init__(self, name: str, numpy_dtype: type, kind: int, rank: int) -> None:
        self.name = name
        self.numpy_dtype = np.dtype(numpy_dtype)
        self.itemsize = self.numpy_dtype.itemsize
        self._kind = kind  # 0 bool, 1 integer, 2 floating: the promotion category
        self._rank = rank  # order inside the category
        self.is_floating_point = kind == 2

    @property
    def is_signed(self) -> bool:
        return self.name not in ("bool", "uint8")

    def __repr__(self) -> str:
        return f"minigenesis.{self.name}"

    def __reduce__(self):  # pickled by name, so the safe unpickler only meets a string
        return (get_dtype, (self.name,))


bool_ = DType("bool", np.bool_, 0, 0)
uint8 = DType("uint8", np.uint8, 1, 1)
int8 = DType("int8", np.int8, 1, 1)
int16 = DType("int16", np.int16, 1, 2)
int32 = DType("int32", np.int32, 1, 3)
int64 = DType("int64", np.int64, 1, 4)
float16 = DType("float16", np.float16, 2, 1)
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, 2, 1)
float32 = DType("float32", np.float32, 2, 2)
float64 = DType("float64", np.float64, 2, 3)

ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NAME.update({"half": float16, "float": float32, "double": float64, "long": int64, "int": int32})
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}

_default_float = float32


_SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                      "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                      "int8": "Char", "uint8": "Byte", "bool": "Bool"}  # fmt: skip


def scalar_type_name(dtype: DType) -> str:
    """The name PyTorch's messages give a dtype (its ScalarType): Float, Double, Long, Bool ..."""
    return _SCALAR_TYPE_NAMES.get(dtype.name, dtype.name)


def get_dtype(name: str) -> DType:
    """Look a dtype up by name (``"float32"``, ``"bfloat16"``, ``"half"`` ...)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown dtype name {name!r}") from None


def from_numpy_dtype(np_dtype: np.dtype) -> DType:
    """The DType that stores ``np_dtype`` (an error for types minigenesis does not have)."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        raise TypeError(
            f"NumPy dtype {np_dtype} has no minigenesis equivalent; supported: "
            + ", ".join(d.name for d in ALL_DTYPES)
        ) from None


def to_dtype(spec) -> DType:
    """Accept a DType, a NumPy dtype or type, a name, or a Python type: as in PyTorch, ``float`` is
    float64 (whatever the default dtype), ``int`` int64 and ``bool`` bool."""
    if isinstance(spec, DType):
        return spec
    if spec is float:
        return float64
    if spec is int:
        return int64
    if spec is bool:
        return bool_
    if isinstance(spec, str):
        return get_dtype(spec)
    return from_numpy_dtype(np.dtype(spec))


def get_default_dtype() -> DType:
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default_float


def set_default_dtype(dtype: DType) -> None:
    """Set the default floating dtype (float16, bfloat16, float32 or float64)."""
    global _default_float
    dtype = to_dtype(dtype)
    if not dtype.is_floating_point:
        raise TypeError(f"default dtype must be a floating type, got {dtype}")
    _default_float = dtype


def promote_types(a: DType, b: DType) -> DType:
    """PyTorch's promotion of two tensor dtypes.

    The higher category wins (bool < integer < floating); inside a category the wider type wins;
    float16 with bfloat16 gives float32 (neither holds the other), uint8 with int8 gives int16.
    """
    if a is b:
        return a
    if a._kind != b._kind:
        return a if a._kind > b._kind else b
    if a._kind == 2 and a._rank == b._rank:  # float16 vs bfloat16
        return float32
    if a._kind == 1 and {a, b} == {uint8, int8}:
        return int16
    if a._kind == 1 and (a is uint8 or b is uint8):
        other = b if a is uint8 else a
        return other if other._rank > 1 else int16
    return a if a._rank >= b._rank else b


def scalar_result_type(tensor_dtype: DType, scalar) -> DType:
    """The dtype of ``tensor op python_scalar``: a scalar only changes the category.

    An int tensor with a float scalar becomes the default float dtype; a bool tensor with an int
    scalar becomes int64; otherwise the tensor's dtype wins (``half_tensor * 2.5`` stays half).
    """
    if isinstance(scalar, bool | np.bool_):  # (a NumPy scalar counts as the number it holds)
        kind = 0
    elif isinstance(scalar, int | np.integer):
        kind = 1
    else:
        kind = 2
    if kind <= tensor_dtype._kind:
        return tensor_dtype
    return _default_float if kind == 2 else int64


def infer_dtype(data) -> DType:
    """The dtype ``mg.tensor(data)`` gives nested Python data (PyTorch's rules)."""
    kind = _scan_kind(data)
    return (bool_, int64, _default_float)[kind]


def _scan_kind(data) -> int:
    if isinstance(data, bool):
        return 0
    if isinstance(data, int):
        return 1
    if isinstance(data, float):
        return 2
    if isinstance(data, (list, tuple)):
        return max((_scan_kind(d) for d in data), default=2)
    return 2


class finfo:  # noqa: N801  (torch.finfo)
    """The limits of a floating dtype: ``mg.finfo(mg.bfloat16).eps`` is 2^-7.

    eps is the gap between 1 and the next number; tiny (= smallest_normal) the smallest positive
    normal number; resolution 10^-precision, precision being the decimal digits the type keeps.
    """

    def __init__(self, dtype: DType | None = None) -> None:
        dtype = get_default_dtype() if dtype is None else dtype
        if not isinstance(dtype, DType) or not dtype.is_floating_point:
            raise TypeError(f"finfo needs a floating dtype, got {dtype!r} (use iinfo for ints)")
        info = ml_dtypes.finfo(dtype.numpy_dtype)  # NumPy's finfo, and bfloat16's
        self.dtype = dtype.name
        self.bits = dtype.itemsize * 8
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)  # PyTorch's exact power of ten

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.tiny:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801  (torch.iinfo)
    """The limits of an integer dtype: ``mg.iinfo(mg.int8).max`` is 127."""

    def __init__(self, dtype: DType) -> None:
        if not isinstance(dtype, DType) or dtype._kind != 1:
            raise TypeError(f"iinfo needs an integer dtype, got {dtype!r} (use finfo for floats)")
        info = np.iinfo(dtype.numpy_dtype)
        self.dtype = dtype.name
        self.bits = dtype.itemsize * 8
        self.max = int(info.max)
        self.min = int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"
