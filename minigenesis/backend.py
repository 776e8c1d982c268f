"""The array backend: NumPy on the CPU, CuPy on the GPU.

Every other module gets its array module from here (``xp = get_array_module(x)``), so one code path
serves both devices. This is the only place that knows CuPy exists; ``import minigenesis`` works
without it, and asking for ``"cuda"`` without it raises an error that says what is missing.
"""

from __future__ import annotations

import functools
import importlib
import math
import os
import warnings
from types import ModuleType
from typing import Any

import numpy as np

from .meta_array import MetaArray, as_meta, meta_namespace, no_data_error

# The tests' switch: MINIGENESIS_CUPY names a module that stands in for CuPy (the strict CPU
# stand-in in tests/cupy_standin), so the GPU code path runs and is checked without a GPU.
CUPY_ENV = "MINIGENESIS_CUPY"


# Why CuPy is not used although it was asked for (a stand-in that does not import), or "".
_cupy_problem = ""


def _import_cupy() -> tuple[ModuleType | None, ModuleType | None]:
    """CuPy and cupyx (None, None when CuPy is not installed or cannot load its CUDA libraries).

    A stand-in named by MINIGENESIS_CUPY that cannot be imported is not silently replaced by the
    real CuPy (the run would test something else): a warning says so and the GPU is not used,
    while ``import minigenesis`` itself keeps working."""
    global _cupy_problem
    standin = os.environ.get(CUPY_ENV)
    if standin:
        try:
            module = importlib.import_module(standin)
            return module, module.cupyx
        except Exception as err:  # not importable, or not a CuPy stand-in (no cupyx)
            reason = str(err).splitlines()[0] if str(err) else type(err).__name__
            _cupy_problem = (f"{CUPY_ENV}={standin!r} names no usable CuPy stand-in ({reason}); "
                             "CuPy is not used")  # fmt: skip
            warnings.warn(_cupy_problem, RuntimeWarning, stacklevel=2)
            return None, None
    try:  # CuPy is optional: the `gpu` extra installs it.
        import cupy
        import cupyx
    except Exception:  # ImportError, or a CuPy that cannot find its CUDA libraries
        return None, None
    return cupy, cupyx


_cupy, _cupyx = _import_cupy()

Array = Any  # numpy.ndarray or cupy.ndarray


def cupy_module() -> ModuleType | None:
    """CuPy if it is importable, else None."""
    return _cupy


def cupyx_module() -> ModuleType:
    """cupyx (CuPy's extras: ``scatter_add``, ``scipy.special``); only asked for with CuPy."""
    if _cupyx is None:
        raise RuntimeError("cupyx was asked for but CuPy is not installed")
    return _cupyx


def get_array_module(x: Any) -> ModuleType:
    """NumPy or CuPy, whichever owns ``x`` (NumPy for anything that is not a CuPy array)."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return _cupy
    return np


# ----------------------------------------------------------------------------------------------
# Devices
# ----------------------------------------------------------------------------------------------
class device:  # noqa: N801  (lower case, as torch.device)
    """Where a tensor lives: ``device("cpu")``, ``device("cuda")``, ``device("cuda:1")``.

    A tensor's device is a fact about its array: a NumPy array is on the CPU, a CuPy array on the
    GPU it was allocated on.
    """

    __slots__ = ("type", "index")

    def __init__(self, spec: str | device, index: int | None = None) -> None:
        if isinstance(spec, device):
            self.type, self.index = spec.type, spec.index
            return
        if not isinstance(spec, str):
            raise TypeError(f"device() expects a string like 'cpu' or 'cuda:0', got {spec!r}")
        kind, _, num = spec.partition(":")
        if kind not in ("cpu", "cuda", "meta"):
            raise ValueError(
                f"unknown device type {kind!r} in {spec!r}: expected 'cpu', 'cuda' or 'meta'"
            )
        if num:
            if not num.isdigit():
                raise ValueError(f"device index must be a non-negative integer, got {spec!r}")
            index = int(num)
        self.type = kind
        self.index = index if kind == "cuda" else None

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        if not isinstance(other, device):
            return NotImplemented
        if self.type != other.type:
            return False
        # "cuda" (no index) means the current device: equal to cuda:0 in a one-GPU world.
        return (self.index or 0) == (other.index or 0)

    def __hash__(self) -> int:
        return hash((self.type, self.index or 0))

    # ``with mg.device("cuda"):`` makes this device the default for the creation functions inside
    # the block (modules built there allocate their parameters on it), then puts the previous
    # default back; blocks nest. As PyTorch's device context.
    def __enter__(self) -> device:
        _device_context_stack.append(_default_device)
        set_default_device(self)
        return self

    def __exit__(self, *exc: object) -> None:
        global _default_device
        _default_device = _device_context_stack.pop()


CPU = device("cpu")
META = device("meta")  # shapes and dtypes without data (meta_array.py)


def as_device(spec: str | device | None) -> device | None:
    """Normalise a device argument (None stays None)."""
    if spec is None or isinstance(spec, device):
        return spec
    return device(spec)


# mg.set_default_device: where the creation functions (mg.tensor, mg.zeros, ...) allocate when
# they are given no device. None: the CPU (and no lookup cost).
_default_device: device | None = None
_device_context_stack: list[
    device | None
] = []  # the defaults that enclosing ``with`` blocks replaced


def set_default_device(spec: str | device | None) -> None:
    """Make ``spec`` the device that ``mg.tensor``, ``mg.zeros``, ``mg.randn`` ... allocate on when
    called without ``device=`` (None: back to the CPU). Operations on existing tensors are not
    affected: their results stay where their inputs are. As in PyTorch."""
    global _default_device
    dev = as_device(spec)
    _default_device = None if dev is None or dev.type == "cpu" else dev


def get_default_device() -> device:
    """The device set by ``set_default_device`` (the CPU unless changed)."""
    return _default_device or CPU


def creation_device(spec: str | device | None) -> device | None:
    """The device a creation function allocates on: ``spec``, else the default device."""
    return as_device(spec) if spec is not None else _default_device


def cuda_device_count() -> int:
    """How many GPUs CuPy sees (0 without CuPy or without a driver)."""
    if _cupy is None:
        return 0
    try:
        return int(_cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no driver, or no device
        return 0


def device_of(x: Array) -> device:
    """The device an array lives on."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return device("cuda", x.device.id)
    return META if type(x) is MetaArray else CPU


def _require_cuda() -> ModuleType:
    """CuPy with a usable GPU, or an error that says which of the two is missing."""
    if _cupy is None and _cupy_problem:
        raise RuntimeError(f"CUDA was requested but {_cupy_problem}")
    if _cupy is None:
        raise RuntimeError(
            "CUDA was requested but CuPy is not installed: "
            'install it with `pip install -e ".[gpu]"` in the repository (cupy-cuda12x)'
        )
    try:
        count = _cupy.cuda.runtime.getDeviceCount()
    except Exception as err:  # no driver, or no device
        raise RuntimeError(f"CUDA was requested but no GPU is usable: {err}") from err
    if count == 0:
        raise RuntimeError("CUDA was requested but no GPU was found (CuPy sees 0 devices)")
    return _cupy


def module_for(dev: device | None) -> ModuleType:
    """The array module that allocates on ``dev`` (NumPy for None or the CPU)."""
    if dev is None or dev.type == "cpu":
        return np
    if dev.type == "meta":
        return meta_namespace
    return _require_cuda()


def to_device(x: Array, dev: device) -> Array:
    """Move an array to ``dev`` (a no-op when it is already there)."""
    if dev.type == "meta":
        return as_meta(x if isinstance(x, np.ndarray) else to_numpy(x))
    if type(x) is MetaArray:
        raise no_data_error()
    if dev.type == "cpu":
        if _cupy is not None and isinstance(x, _cupy.ndarray):
            return device_to_host(x)
        return x
    cp = _require_cuda()
    index = dev.index or 0
    if isinstance(x, cp.ndarray) and x.device.id == index:
        return x
    with cp.cuda.Device(index):
        return cp.asarray(x)


def to_numpy(x: Array) -> np.ndarray:
    """A host (NumPy) copy of any array; NumPy arrays are returned as they are."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return device_to_host(x)
    if type(x) is MetaArray:
        raise no_data_error()
    return np.asarray(x)


def to_pickled(x: Array) -> np.ndarray:
    """What a tensor pickles its array as: ``to_numpy(x)``, but a meta array as it is (it
    pickles as its dtype and shape: meta_array.py), as PyTorch saves a meta tensor."""
    return x if type(x) is MetaArray else to_numpy(x)


def pickled_array(x: Array) -> tuple:
    """The array arguments a tensor's pickle reduction carries: ``(to_pickled(x),)`` on the
    CPU and meta; a GPU array as it is, with its device's name: ``(x, "cuda:1")``.

    The GPU array pickles through the host (CuPy's own pickling) and the tensor's rebuild
    function puts it back on that device (``unpickled_array``): as in PyTorch, a CUDA tensor
    unpickles on its GPU. ``copy.copy``, which reuses the arguments without pickling them,
    gets the same device array, so the copy shares it, as PyTorch's copy shares the storage
    (and as a CPU copy shares its array)."""
    if _cupy is not None and isinstance(x, _cupy.ndarray):
        return (x, str(device_of(x)))
    return (to_pickled(x),)


def unpickled_array(array: Any, location: str | None = None) -> Array:
    """The array a pickled tensor is rebuilt on: moved to ``location`` (a GPU, see
    ``pickled_array``), else the host array, copied if it is read-only."""
    if location is not None:
        return to_device(array, device(location))
    flags = getattr(array, "flags", None)
    return array if flags is not None and flags.writeable else np.array(array, copy=True)


# ----------------------------------------------------------------------------------------------
# Device-side asserts: checks whose verdict stays on the GPU until the host reads anyway
# ----------------------------------------------------------------------------------------------
# CuPy wraps an out-of-range index around (i % n) where NumPy raises, so every integer index on
# a GPU is checked; reading each verdict back would stop the host for the GPU once per op (three
# times per GPT step). PyTorch CUDA does not wait either: a kernel's device-side assert fails the
# stream, and the error surfaces at the next call that synchronises. Here a check computes its
# verdict on the device (a small int64 vector) and ``defer_device_assert`` queues it with the host
# function that judges it; ``device_to_host`` (every read of device data: ``to_numpy``,
# ``.item()``, ``.cpu()``, printing) and ``synchronize`` first read ALL queued verdicts in one
# transfer, and the first failed check's error is raised. As after PyTorch's device assert,
# whatever was computed from the wrapped indices before the error surfaces is garbage. The queue
# is bounded: when DEVICE_ASSERTS_LIMIT verdicts wait, the next check reads them first.
DEVICE_ASSERTS_LIMIT = 64
_device_asserts: list[tuple[Any, Any]] = []  # (verdict on the device, judge(list[int]) -> None)


def defer_device_assert(verdict: Array, judge: Any) -> None:
    """Queue ``verdict`` (a 1-D int64 GPU array of 2 values) for ``judge``, which raises the
    check's error given the verdict's values on the host, and returns otherwise."""
    if len(_device_asserts) >= DEVICE_ASSERTS_LIMIT:
        flush_device_asserts()
    _device_asserts.append((verdict, judge))


def flush_device_asserts() -> None:
    """Read every queued verdict in one transfer, empty the queue, and raise the error of the
    first failed check (in the order the checks ran)."""
    if _device_asserts:
        verdicts, judges = _take_device_asserts()
        _judge(_cupy.asnumpy(verdicts), judges)


def device_to_host(x: Array) -> np.ndarray:
    """A NumPy copy of a GPU array, after the queued verdicts are judged: the copy waits for the
    GPU anyway, so reading the small verdicts first costs one more short transfer, not a wait."""
    flush_device_asserts()
    return _cupy.asnumpy(x)


def _take_device_asserts() -> tuple[Array, list]:
    """The queued verdicts stacked into one (k, 2) GPU array and their judges; the queue empties."""
    pending = _device_asserts[:]
    del _device_asserts[: len(pending)]  # (a check queued meanwhile by another thread stays)
    return _cupy.stack([verdict for verdict, _ in pending]), [judge for _, judge in pending]


def _judge(verdicts: np.ndarray, judges: list) -> None:
    for row, judge in zip(verdicts.tolist(), judges, strict=True):
        judge(row)


# ----------------------------------------------------------------------------------------------
# Special functions that NumPy lacks
# ----------------------------------------------------------------------------------------------
# erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt is odd, so it is evaluated on a = |x| in two
# ranges, in float64 (the float32 result is then the float64 value rounded once: faithful, within
# 1 ulp of the true value, as PyTorch's float32 erf):
#
# - a < 1: erf(x) = x * P(x^2), with P a degree-6 polynomial fitted (least squares on Chebyshev
#   nodes) to erf(x)/x on [0, 1]; relative error 1.4e-9. Small x keep full relative accuracy.
# - a >= 1: erfc(a) = 1 - erf(a) = exp(-a^2) * Q(t), t = 2 / (2 + a), with Q a degree-8
#   polynomial fitted to erfc(a) exp(a^2) on [1, 6] (the variable t of Numerical Recipes' erfc);
#   relative error 2e-9 on erfc, so erf = 1 - erfc is good to 4e-10 absolute. Beyond a = 6 the
#   float32 (and float64) erf is 1 exactly, and erfc underflows as it should.
#
# 1.4e-9 is far below float32's half ulp (3e-8), but not float64's: float64 tensors take the
# Maclaurin series / continued fraction of ``_erf_erfc_series`` instead (slow, ~1e-15).
_ERF_SMALL = (
    1.1283791658815034,
    -0.3761262690358075,
    0.11283597463490906,
    -0.026854328796167993,
    0.00518931194285901,
    -0.0008018854994210395,
    7.882497114616369e-05,
)
_ERFC_LARGE = (
    -3.397428950119297e-05,
    0.28281273470408197,
    0.2755833702989703,
    0.279698245941014,
    0.07700410123883585,
    0.2596557613661914,
    -0.1552628750099468,
    -0.06674649182390259,
    0.04751377665910059,
)


def _horner(t: np.ndarray, coefs: tuple) -> np.ndarray:
    """sum_k coefs[k] t^k by Horner's rule, in place on one new array."""
    out = t * coefs[-1]
    out += coefs[-2]
    for c in coefs[-3::-1]:
        out *= t
        out += c
    return out


def _erf_erfc_fast(x: np.ndarray) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """erf(x) in float64 (relative error < 2e-9, see above), and erfc(|x|) where |x| >= 1:
    returns (erf, erfc of the large entries, the flat indices of those entries)."""
    shape, x = x.shape, x.reshape(-1)  # 1-D: NumPy turns 0-d results into scalars
    big = np.flatnonzero(np.abs(x) >= 1.0)
    with np.errstate(over="ignore", invalid="ignore"):  # large |x|: P overflows, then replaced
        out = _horner(x * x, _ERF_SMALL)
    out *= x
    erfc = None
    if big.size:
        xb = x[big]
        a = np.abs(xb)
        erfc = np.exp(-a * a)
        erfc *= _horner(2.0 / (2.0 + a), _ERFC_LARGE)
        out[big] = np.copysign(1.0 - erfc, xb)
    return out.reshape(shape), erfc, big


def _erf_erfc_series(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """erf(x) and erfc(|x|) in float64 to ~1e-15: the Maclaurin series
    erf(x) = 2/sqrt(pi) sum_n (-1)^n x^(2n+1) / (n! (2n+1)) for |x| < 2.5, and beyond it the
    continued fraction erfc(a) = exp(-a^2) / sqrt(pi) / (a + (1/2) / (a + 1 / (a + ...)))."""
    ax = np.abs(x)
    erf_abs, erfc = np.empty_like(ax), np.empty_like(ax)
    small = ax < 2.5
    xs = ax[small]
    term, total, x2 = xs.copy(), xs.copy(), xs * xs
    for n in range(1, 60):
        term = term * (-x2) / n
        total += term / (2 * n + 1)
    erf_abs[small] = total * (2.0 / math.sqrt(math.pi))
    erfc[small] = 1.0 - erf_abs[small]
    xl = ax[~small]
    f = np.zeros_like(xl)
    for k in range(60, 0, -1):
        f = (k / 2.0) / (xl + f)
    # a = inf: exp(-inf) / inf is NaN, made 0 (NaN stays); a = 1e300: a * a overflows to inf
    with np.errstate(invalid="ignore", over="ignore"):
        tail = np.exp(-xl * xl) / math.sqrt(math.pi) / (xl + f)
        erfc[~small] = np.where(np.isinf(xl), 0.0, tail)
    erf_abs[~small] = 1.0 - erfc[~small]
    return np.asarray(np.copysign(erf_abs, x)), erfc


def device_special(name: str, x: Array) -> Array:
    """``cupyx.scipy.special.<name>(x)`` in x's dtype. CuPy's special functions have no bfloat16
    loop, so the 2-byte floats are computed in float32 and rounded once, as PyTorch's CUDA
    kernels compute them (and as the NumPy path computes every float dtype in float64)."""
    fn = getattr(cupyx_module().scipy.special, name)
    if x.dtype.itemsize == 2 and x.dtype.kind != "i" and x.dtype.kind != "u":
        return fn(x.astype(np.float32)).astype(x.dtype)
    return fn(x)


def erf(x: Array) -> Array:
    """The error function erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, elementwise, in x's
    dtype (see the notes above ``_ERF_SMALL`` for how and how accurately)."""
    if get_array_module(x) is not np:
        return device_special("erf", x)
    if x.dtype == np.float64:
        return _erf_erfc_series(x)[0]
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=x.dtype)
    flat_in, flat_out = x.reshape(-1), out.reshape(-1)
    for i in range(0, flat_in.size, _ERF_BLOCK):  # see _ERF_BLOCK: cache-sized pieces
        block = flat_in[i : i + _ERF_BLOCK].astype(np.float64)
        flat_out[i : i + _ERF_BLOCK] = _erf_erfc_fast(block)[0]
    return out


def erfc(x: Array) -> Array:
    """The complementary error function erfc(x) = 1 - erf(x), elementwise in x's dtype, without
    the cancellation of 1 - erf(x) for large x: erfc(|x|) from the float64 series above, and
    erfc(x) = 2 - erfc(|x|) for negative x."""
    if get_array_module(x) is not np:
        return device_special("erfc", x)
    x = np.asarray(x)
    _, tail = _erf_erfc_series(x.astype(np.float64))
    out = np.where(x < 0, 2.0 - tail, tail)
    return np.where(np.isnan(x), np.nan, out).astype(x.dtype)


# The float64 evaluation makes ~25 passes over its temporaries (two Horner polynomials, exp, the
# gather/scatter of the large entries). On a whole GELU activation (millions of elements) each
# pass streams from main memory; in pieces of 32,768 elements (256 KiB of float64) the
# temporaries stay in the CPU's L2 cache, which measured 2x faster on 524,288 elements. The
# values are the same, element by element.
_ERF_BLOCK = 1 << 15


# M. Giles' single-precision erfinv polynomials (lowest power first): in w - 2.5 for w < 5,
# in sqrt(w) - 3 beyond
_GILES_CENTRAL = (
    1.50140941,
    0.246640727,
    -0.00417768164,
    -0.00125372503,
    0.00021858087,
    -4.39150654e-06,
    -3.5233877e-06,
    3.43273939e-07,
    2.81022636e-08,
)
_GILES_TAIL = (
    2.83297682,
    1.00167406,
    0.00943887047,
    -0.0076224613,
    0.00573950773,
    -0.00367342844,
    0.00134934322,
    0.000100950558,
    -0.000200214257,
)


def erfinv(y: Array) -> Array:
    """The inverse of erf on (-1, 1): erfinv(erf(x)) = x; +-inf at +-1 and NaN beyond, as PyTorch.

    A start from M. Giles' polynomial approximation ("Approximating the erfinv function", 2010)
    in w = -log(1 - y^2), then Newton steps (2, or 5 for float64) on erf(x) = y in float64 with
    d erf(x)/dx = 2/sqrt(pi) exp(-x^2). For |y| > 1/2 the step solves erfc(|x|) = 1 - |y|
    instead, which keeps its relative accuracy as y nears 1 (1 - |y| is exact there)."""
    if get_array_module(y) is not np:
        return device_special("erfinv", y)
    yd = np.asarray(y, dtype=np.float64).reshape(-1)
    ay = np.abs(yd)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = -np.log((1.0 - ay) * (1.0 + ay))
        central = _horner(w - 2.5, _GILES_CENTRAL)
        tail = _horner(np.sqrt(w) - 3.0, _GILES_TAIL)
        x = np.where(w < 5.0, central, tail) * ay
        x = np.where(ay < 1.0, x, np.where(ay == 1.0, np.inf, np.nan))  # NaN stays NaN
        inside = np.isfinite(x)
        a, target = x[inside], ay[inside]
        erf_of = _erf_erfc_series if y.dtype == np.float64 else _erf_erfc_fast
        for _ in range(5 if y.dtype == np.float64 else 2):
            a = a - _erf_residual(a, target, erf_of) / (2.0 / math.sqrt(math.pi) * np.exp(-a * a))
        x[inside] = a
    return np.copysign(x, yd).reshape(y.shape).astype(y.dtype, copy=False)


def _erf_residual(a: np.ndarray, target: np.ndarray, erf_of: Any) -> np.ndarray:
    """erf(a) - target for a >= 0. Where target > 1/2 it is taken on the complement c = 1 - target
    as erfc(a) log(c / erfc(a)): the same to first order, but Newton on log erfc (nearly linear in
    a^2) converges from a start far in the tail too."""
    if erf_of is _erf_erfc_fast:
        value, erfc_big, big = _erf_erfc_fast(a)
        erfc = 1.0 - value
        if big.size:
            erfc[big] = erfc_big
    else:
        value, erfc = _erf_erfc_series(a)
    c = 1.0 - target
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = erfc * np.log(c / erfc)
    return np.where(target > 0.5, tail, value - target)


def quiet_fp(func):
    """``func`` with NumPy's floating-point warnings off (0/0, x/0, log 0, sqrt(-1), overflow).

    PyTorch computes the same inf and NaN silently; NumPy also prints a RuntimeWarning ("divide
    by zero encountered in log", "overflow encountered in multiply") that would only puzzle a
    learner. The ops that can meet such inputs are wrapped (arithmetic, casts, sums, products,
    the log/power/trig families, exp, softmax, ...). Nothing is set at import time, and the
    user's own NumPy code keeps its settings. CuPy never warns: the setting is NumPy's alone.

    How: ``np.errstate`` keeps NumPy's setting in a context variable; setting that variable
    directly around the call (and resetting it after, exceptions included) is what
    ``np.errstate(...)(func)`` does, at a third of its cost (about 0.4 us a call instead of
    1-2 us, measured on a 16-element add), which matters on the add/mul chain. Where NumPy has no
    such variable (before 2.0) the decorator is used as it is."""
    if _FP_VAR is None:
        return np.errstate(divide="ignore", invalid="ignore", over="ignore")(func)
    quiet, set_fp, reset_fp = _QUIET_FP, _FP_VAR.set, _FP_VAR.reset

    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        token = set_fp(quiet)
        try:
            return func(*args, **kwargs)
        finally:
            reset_fp(token)

    return call


try:  # NumPy >= 2.0: np.errstate's context variable and how it makes a setting
    from numpy._core._multiarray_umath import _extobj_contextvar as _FP_VAR
    from numpy._core._multiarray_umath import _make_extobj

    _QUIET_FP = _make_extobj(divide="ignore", invalid="ignore", over="ignore", under="ignore")
except ImportError:  # pragma: no cover - older NumPy: quiet_fp falls back to np.errstate
    _FP_VAR = _QUIET_FP = None


@quiet_fp  # 1e5 into float16 is inf, 1e300 into float32 too, silently as in PyTorch
def cast_array(arr: Array, np_dtype: Any) -> Array:
    """``arr.astype(np_dtype)`` as PyTorch converts: float64 -> float16 goes through float32.

    PyTorch builds a ``c10::Half`` from a float, so a double is first rounded to float32 and then
    to float16: two roundings. They differ from NumPy's single rounding where the float32 step
    lands exactly halfway between two float16 values: 1760.5000001 is 1760.5 in float32, which
    ties to even, 1760 (NumPy's one rounding gives 1761). bfloat16 (ml_dtypes) already converts a
    float64 through float32, as PyTorch's ``c10::BFloat16`` does.

    A float64 beyond uint8's range goes to uint8 through int64, as PyTorch's CPU conversion
    does: the low byte of the truncated integer (-2^31 - 1 is 255, 2^32 + 3 is 3), where
    NumPy's direct conversion gives 0 outside int32's range. (The other integer targets already
    agree with NumPy's.)"""
    if arr.dtype == np.float64 and np_dtype == np.float16:
        arr = arr.astype(np.float32)
    elif arr.dtype == np.float64 and np_dtype == np.uint8:
        arr = arr.astype(np.int64)
    return arr.astype(np_dtype)
