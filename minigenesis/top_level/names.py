"""Stand-alone ``torch.*`` functions: ``asarray``, the deprecated end-inclusive ``range``,
``scalar_tensor``, ``unravel_index``, the window functions (Hann, Hamming, Blackman, Bartlett,
Kaiser), ``binomial`` draws, ``chain_matmul``, ``nuclear_norm`` / ``frobenius_norm``,
``lu_unpack``, ``can_cast``, ``typename``, ``frombuffer``, DLPack exchange, ``empty_permuted``,
``nonzero_static``, ``histogramdd``, and the process-wide switches PyTorch keeps at top level
(``set_default_tensor_type``, ``set_flush_denormal``, ``set_warn_always``, anomaly detection,
autocast's getters)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import amp, autograd, linalg, return_types
from .. import dtypes as _dt
from .._tensor import Tensor
from ..backend import to_numpy
from ..creation import empty, from_numpy, tensor
from ..functions import as_tensor
from ..ops import sampling
from ..tensor_memory import TypedStorage, UntypedStorage

__all__ = [
    "asarray", "range", "scalar_tensor", "unravel_index", "hann_window", "hamming_window",
    "blackman_window", "bartlett_window", "kaiser_window", "chain_matmul", "nuclear_norm",
    "frobenius_norm", "lu_unpack", "can_cast", "typename", "frombuffer", "from_dlpack",
    "to_dlpack", "empty_permuted", "real", "imag", "histogramdd", "is_storage",
    "set_default_tensor_type", "set_flush_denormal", "set_warn_always", "is_warn_always_enabled",
    "is_anomaly_enabled", "set_anomaly_enabled", "is_autocast_cpu_enabled",
    "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "binomial",
]  # fmt: skip

_builtin_range = range


# ---------------------------------------------------------------------- making tensors
def asarray(
    obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """obj as a tensor, sharing memory where it can (a tensor or a NumPy array of the asked
    dtype and device); ``copy=True`` always copies, ``copy=False`` refuses to."""
    if isinstance(obj, Tensor):
        out = obj.to(device=device if device is not None else obj.device, dtype=dtype or obj.dtype)
        shared = out is obj
    elif isinstance(obj, np.ndarray):
        out = as_tensor(obj, dtype=dtype, device=device)
        shared = np.shares_memory(obj, out.numpy()) if out.device.type == "cpu" else False
    else:
        out, shared = tensor(obj, dtype=dtype, device=device), False
    if copy is False and not shared:
        raise ValueError("asarray(copy=False): the data cannot be used without a copy")
    if copy and shared:
        out = out.clone()
    return out.requires_grad_(requires_grad) if requires_grad else out


def range(  # noqa: A001  (torch.range)
    start: float, end: float, step: float = 1, *, dtype: Any = None,
    device: Any = None, requires_grad: bool = False,
) -> Tensor:  # fmt: skip
    """start, start + step, ... up to and including ``end`` (deprecated in PyTorch for that
    difference from Python's range; ``arange`` stops before end). Default dtype: float."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its behavior "
        "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
        "values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    dtype = dtype or _dt.get_default_dtype()
    if not (dtype.is_floating_point or dtype is _dt.bool_):
        # an integer dtype counts in int64: start, end and step are truncated first, so
        # range(-1, -5, -1.5, dtype=int64) is -1, -2, -3, -4, -5 (PyTorch's kernel)
        start, end, step = int(start), int(end), int(step)
    elif dtype.itemsize == 2:  # float16 / bfloat16 count and step in float32 (PyTorch's acc type)
        start, end, step = (np.float32(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int((end - start) / step) + 1  # (a non-negative quotient: int() is C's truncation)
    values = start + step * np.arange(n, dtype=np.result_type(start, end, step))
    out = tensor(values, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def scalar_tensor(
    s: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """A 0-d tensor holding s, of the default float dtype unless ``dtype`` says otherwise."""
    out = tensor(s, dtype=dtype or _dt.get_default_dtype(), device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def unravel_index(indices: Any, shape: Any) -> tuple:
    """The coordinates of flat indices into a tensor of ``shape`` (row-major), one int64 tensor
    per dim; as PyTorch's, indices wrap modulo the dims (-1 is the last element)."""
    idx = indices if isinstance(indices, Tensor) else tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype is _dt.bool_:
        raise TypeError("expected 'indices' to be integer dtype, but got " + idx.dtype.name)
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    if 0 in shape and idx.numel() > 0:  # no element to index (PyTorch's floor division by 0)
        raise RuntimeError("ZeroDivisionError")
    rest, coords = idx._data.astype(np.int64), []  # on idx's device, as in PyTorch
    for size in reversed(shape):  # floor division and modulo, innermost dim first
        coords.append(rest % size)
        rest = rest // size
    return tuple(idx._make(c, False) for c in reversed(coords))


def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """One Binomial(count, prob) draw per element (count and prob broadcast): the number of
    successes in ``count`` trials of probability ``prob``, P(k) = C(count, k) prob^k
    (1 - prob)^(count - k), as a float tensor of count's dtype. PyTorch leaves counts < 0 and
    probabilities outside [0, 1] unchecked (its draws there are meaningless); here they raise."""
    for name, t in (("count", count), ("prob", prob)):
        if not isinstance(t, Tensor):
            raise TypeError(f"binomial(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not count.dtype.is_floating_point:
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {count.dtype.name}"
        )
    if prob.dtype != count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype.name} but expected {count.dtype.name}")
    n, p = count._data, prob._data
    if n.size and not bool((n >= 0).all()):
        raise ValueError("binomial: count must be non-negative")
    if p.size and not bool(((p >= 0) & (p <= 1)).all()):
        raise ValueError("binomial: prob must lie in [0, 1]")
    return sampling.binomial(count, prob, generator)


# ---------------------------------------------------------------------- windows
def _window(
    name: str, length: int, periodic: bool, dtype: Any, device: Any, requires_grad: bool, fn: Any
) -> Tensor:
    """``fn(n, N)`` over n = 0..N-1 with N = length (+1 when periodic, the last value dropped:
    a window for the DFT rather than a symmetric filter)."""
    if length < 0:
        raise RuntimeError(
            f"{name} requires non-negative window_length, got window_length={length}"
        )
    dtype = dtype or _dt.get_default_dtype()
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    if length <= 1:
        values = np.ones(length)
    else:
        n_points = length + 1 if periodic else length
        values = fn(np.arange(n_points, dtype=np.float64), n_points)[:length]
    out = tensor(values, dtype=dtype, device=device)
    return out.requires_grad_(requires_grad) if requires_grad else out


def hamming_window(
    window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
    dtype: Any = None, device: Any = None, requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """w[n] = alpha - beta cos(2 pi n / (N - 1))."""
    return _window(
        "hamming_window", window_length, periodic, dtype, device, requires_grad,
        lambda n, N: alpha - beta * np.cos(2 * np.pi * n / (N - 1)),  # noqa: N803
    )  # fmt: skip


def hann_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
    requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """w[n] = 0.5 - 0.5 cos(2 pi n / (N - 1)) = sin^2(pi n / (N - 1))."""
    return _window(
        "hann_window", window_length, periodic, dtype, device, requires_grad,
        lambda n, N: 0.5 - 0.5 * np.cos(2 * np.pi * n / (N - 1)),  # noqa: N803
    )  # fmt: skip


def blackman_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
    requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """w[n] = 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _window(
        "blackman_window", window_length, periodic, dtype, device, requires_grad,
        lambda n, N: (  # noqa: N803
            0.42 - 0.5 * np.cos(2 * np.pi * n / (N - 1)) + 0.08 * np.cos(4 * np.pi * n / (N - 1))
        ),
    )  # fmt: skip


def bartlett_window(
    window_length: int, periodic: bool = True, *, dtype: Any = None, device: Any = None,
    requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """The triangle w[n] = 1 - |2 n / (N - 1) - 1|."""
    return _window(
        "bartlett_window", window_length, periodic, dtype, device, requires_grad,
        lambda n, N: 1 - np.abs(2 * n / (N - 1) - 1),  # noqa: N803
    )  # fmt: skip


def kaiser_window(
    window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype: Any = None,
    device: Any = None, requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """w[n] = I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta), I0 the modified Bessel
    function of order 0."""
    return _window(
        "kaiser_window", window_length, periodic, dtype, device, requires_grad,
        lambda n, N: np.i0(beta * np.sqrt(1 - (2 * n / (N - 1) - 1) ** 2)) / np.i0(beta),  # noqa: N803
    )  # fmt: skip


# ---------------------------------------------------------------------- linear algebra
def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    """The product of 2-D matrices (deprecated alias of ``linalg.multi_dot``)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if any(m.ndim != 2 for m in matrices):
        raise RuntimeError("chain_matmul(): Expected 2-D tensors")
    result = matrices[0].clone() if len(matrices) == 1 else linalg.multi_dot(list(matrices))
    return out.copy_(result) if out is not None else result


def nuclear_norm(input: Tensor, dim: Any = (-2, -1), keepdim: bool = False) -> Tensor:  # noqa: A002
    """The sum of the singular values of the matrices in ``dim``."""
    if isinstance(dim, bool):  # torch.nuclear_norm(x, keepdim) positionally
        dim, keepdim = (-2, -1), dim
    return linalg.matrix_norm(input, "nuc", dim=tuple(dim), keepdim=keepdim)


def frobenius_norm(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    """sqrt(sum x^2) over ``dim`` (one or two dims)."""
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return linalg.vector_norm(input, 2, dim=dims, keepdim=keepdim)


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,  # noqa: N803
) -> tuple:
    """(P, L, U) from lu_factor's packed (LU, pivots): A = P L U."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    p = l_ = u = None
    if unpack_data:
        eye = Tensor._make(np.eye(m, k, dtype=LU_data.dtype.numpy_dtype)).to(LU_data.device)
        l_ = LU_data[..., :, :k].tril(-1) + eye
        u = LU_data[..., :k, :].triu()
    if unpack_pivots:
        piv = LU_pivots.numpy().astype(np.int64) - 1
        perm = np.broadcast_to(np.arange(m), piv.shape[:-1] + (m,)).copy()
        for i in _builtin_range(piv.shape[-1]):  # apply the row swaps in order
            j = piv[..., i]
            a = np.take_along_axis(perm, np.full(perm.shape[:-1] + (1,), i), -1)
            b = np.take_along_axis(perm, j[..., None], -1)
            np.put_along_axis(perm, np.full(perm.shape[:-1] + (1,), i), b, -1)
            np.put_along_axis(perm, j[..., None], a, -1)
        p_np = (perm[..., None, :] == np.arange(m)[:, None]).astype(LU_data.dtype.numpy_dtype)
        p = tensor(p_np, dtype=LU_data.dtype, device=LU_data.device)
    empty_ = LU_data.new_empty((0,))
    return (p if p is not None else empty_, l_ if l_ is not None else empty_,
            u if u is not None else empty_)  # fmt: skip


# ---------------------------------------------------------------------- types and exchange
def can_cast(from_: Any, to: Any) -> bool:
    """Does PyTorch's casting rule allow ``from_`` -> ``to`` in an in-place op? Not to a lower
    kind: float -> integer and anything but bool -> bool are refused."""
    return from_._kind <= to._kind  # 0 bool, 1 integer, 2 floating


def typename(obj: Any) -> str:
    """The type's name as PyTorch prints it: 'torch.FloatTensor' for a tensor (its legacy
    type), else module.qualname ('int' for builtins)."""
    if isinstance(obj, Tensor):
        return obj.type().replace("minigenesis.", "torch.")
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module, qualname = type(obj).__module__ or "", type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def frombuffer(
    buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False
) -> Tensor:
    """A 1-D tensor over an object with the buffer protocol (bytearray, array, mmap), sharing
    its memory: ``count`` elements (-1: all) from byte ``offset``. An empty buffer or
    ``count == 0`` is a ValueError, as in PyTorch (a tensor over no memory)."""
    length = memoryview(buffer).nbytes
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    array = np.frombuffer(buffer, dtype=_dt.to_dtype(dtype).numpy_dtype, count=count, offset=offset)
    if not array.flags.writeable:
        warnings.warn(
            "The given buffer is not writable, and PyTorch does not support non-writable "
            "tensors. This means you can write to the underlying (supposedly non-writable) "
            "buffer using the tensor.",
            UserWarning,
            stacklevel=2,
        )
        array = array.copy()
    out = from_numpy(array)
    return out.requires_grad_(requires_grad) if requires_grad else out


class _Capsule:
    """Hands a DLPack capsule to NumPy, which reads only objects with ``__dlpack__``."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **_: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)  # kDLCPU


def to_dlpack(tensor_: Tensor) -> Any:
    """A DLPack capsule over the tensor's memory (consumed once, by ``from_dlpack``)."""
    return tensor_._data.__dlpack__()


def from_dlpack(ext_tensor: Any) -> Tensor:
    """A tensor sharing the memory of an object with ``__dlpack__`` (a NumPy array, another
    framework's tensor) or of a capsule from ``to_dlpack``."""
    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    if isinstance(ext_tensor, np.ndarray):  # the same memory, writable: NumPy before 2.1 marks
        return from_numpy(ext_tensor)  # every array it imports through DLPack read-only
    source = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    return from_numpy(np.from_dlpack(source))


def is_storage(obj: Any) -> bool:
    """Is obj a TypedStorage or UntypedStorage?"""
    return isinstance(obj, TypedStorage | UntypedStorage)


def real(input: Tensor) -> Tensor:  # noqa: A002
    """The real part: input itself, for a real dtype."""
    return input.real


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary part: a real dtype has none (PyTorch's error)."""
    return input.imag


# ---------------------------------------------------------------------- shapes and picks
def empty_permuted(
    size: Any, physical_layout: Any, *, dtype: Any = None, device: Any = None,
    requires_grad: bool = False, **_: Any,
) -> Tensor:  # fmt: skip
    """An uninitialized tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first): (2, 3, 4) with (0, 2, 1) is channels-last-like."""
    size, layout = tuple(size), tuple(physical_layout)
    if sorted(layout) != list(_builtin_range(len(size))):
        raise RuntimeError(f"empty_permuted: {layout} is not a permutation of {len(size)} dims")
    physical = empty(*(size[d] for d in layout), dtype=dtype, device=device)
    out = physical.permute(*np.argsort(layout).tolist())
    return out.requires_grad_(requires_grad) if requires_grad else out


def histogramdd(
    input: Tensor, bins: Any = 10, *, range: Any = None, weight: Tensor | None = None,  # noqa: A002
    density: bool = False,
) -> tuple:  # fmt: skip
    """(hist, bin_edges), a named tuple: counts of the points (rows of the last dim D) in a
    D-dim grid of bins; bins an int, one int per dim or each dim's edges; bin_edges one tensor of
    edges per dim (the last edge included)."""
    # counted on the host (as histogram is) in float64: ml_dtypes' bfloat16 reductions warn on
    # NaN where NumPy's do not; the counts and edges go back to input's device and dtype below
    points = to_numpy(input._data).astype(np.float64).reshape(-1, input.shape[-1])
    d = points.shape[1]
    if isinstance(bins, int):
        spec: Any = [bins] * d
    else:
        spec = [to_numpy(b._data) if isinstance(b, Tensor) else b for b in bins]
    ranges = None if range is None else [tuple(range[2 * i : 2 * i + 2]) for i in _builtin_range(d)]
    w = None if weight is None else to_numpy(weight._data).reshape(-1)
    hist, edges = np.histogramdd(points, bins=spec, range=ranges, weights=w, density=density)
    out = tensor(hist, dtype=input.dtype, device=input.device)
    edges = tuple(tensor(e, dtype=input.dtype, device=input.device) for e in edges)
    return return_types.histogramdd(out, edges)


# ---------------------------------------------------------------------- process-wide switches
def set_default_tensor_type(t: Any) -> None:
    """Deprecated: the default dtype from a legacy type ('torch.DoubleTensor' or the class)."""
    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    name = t if isinstance(t, str) else t.__name__
    legacy = {"FloatTensor": _dt.float32, "DoubleTensor": _dt.float64,
              "HalfTensor": _dt.float16, "BFloat16Tensor": _dt.bfloat16}  # fmt: skip
    short = name.rsplit(".", 1)[-1]
    if short not in legacy:
        raise TypeError(f"only floating-point types are supported as the default type, got {name}")
    _dt.set_default_dtype(legacy[short])


def set_flush_denormal(mode: bool) -> bool:
    """PyTorch sets the CPU's flush-to-zero flags; NumPy leaves them alone, so this reports
    False: not supported (PyTorch's answer on CPUs without SSE3)."""
    return False


_warn_always = [False]


def set_warn_always(b: bool) -> None:
    """Warnings PyTorch gives once per process are given every time (a flag library code
    reads with ``is_warn_always_enabled``)."""
    _warn_always[0] = bool(b)


def is_warn_always_enabled() -> bool:
    """The flag ``set_warn_always`` sets."""
    return _warn_always[0]


def is_anomaly_enabled() -> bool:
    """Is anomaly detection on (``autograd.detect_anomaly``)?"""
    return autograd.is_anomaly_enabled()


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off (``autograd.set_detect_anomaly``)."""
    autograd.set_detect_anomaly(enabled, check_nan)


def is_autocast_cpu_enabled() -> bool:
    """Is a CPU autocast region active in this thread?"""
    return amp.is_autocast_enabled("cpu")


def get_autocast_cpu_dtype() -> Any:
    """The dtype CPU autocast lowers to."""
    return amp.get_autocast_dtype("cpu")


def get_autocast_gpu_dtype() -> Any:
    """The dtype CUDA autocast lowers to."""
    return amp.get_autocast_dtype("cuda")
