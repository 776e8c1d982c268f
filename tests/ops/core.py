"""The op database's building blocks: a tensor argument (``T``), a sample (``Sample``), an entry
(``OpEntry``), and how either library (minigenesis or PyTorch) builds a sample's tensors and calls
an entry.

A sample holds host values (float64 / int64 / bool NumPy arrays) and says how to turn them into a
tensor: its dtype and its layout (contiguous, transposed, a strided slice, an expanded size-1
dim). Both libraries build the same tensors from the same values, so an entry is written once and
runs in minigenesis, in PyTorch (the optional second oracle) and in the float64 reference.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minigenesis as mg

try:
    import torch
except ImportError:  # PyTorch is an optional oracle: the checks that need it skip
    torch = None

FLOATS = ("float64", "float32", "float16", "bfloat16")
INTS = ("int64", "int32", "uint8")
ALL_DTYPES = (*FLOATS, *INTS, "bool")
LAYOUTS = ("contiguous", "transposed", "strided", "expanded")

# rtol, atol of a forward value against the float64 reference, by the output's dtype: the
# rounding of the output itself plus a few roundings inside the op
TOL = {
    "float64": (1e-10, 1e-12),
    "float32": (2e-5, 1e-6),
    "float16": (4e-3, 1e-3),
    "bfloat16": (2e-2, 1e-2),
}


@dataclass(frozen=True)
class T:
    """A tensor argument: host ``values``, the ``dtype`` to build, and the ``layout`` to view them
    in. ``grad``: the argument takes part in gradient checks (floats only). For "expanded" the
    values have a size-1 dim that is expanded to ``expand`` (the shape the op sees)."""

    values: np.ndarray
    dtype: str = "float64"
    layout: str = "contiguous"
    grad: bool = True
    expand: tuple | None = None

    @property
    def shape(self) -> tuple:
        return tuple(self.expand) if self.layout == "expanded" else self.values.shape

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOATS


@dataclass
class Sample:
    """One call of an op: positional ``args`` (``T`` or plain Python values), ``kwargs``.

    ``grad`` / ``gradgrad``: the op is smooth at these values, so finite differences are
    meaningful (False at ties, kinks, NaN). ``ref``: compare with the reference (False where the
    reference is not defined for the sample, e.g. a tie-breaking index)."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    desc: str = ""
    grad: bool = True
    gradgrad: bool = True
    ref: bool = True

    def tensors(self) -> list[T]:
        return [a for a in self.args if isinstance(a, T)] + [
            v for v in self.kwargs.values() if isinstance(v, T)
        ]

    def __repr__(self) -> str:
        def show(a: Any) -> str:
            if isinstance(a, T):
                return f"T{a.shape}:{a.dtype}:{a.layout}"
            return repr(a)

        parts = [show(a) for a in self.args] + [f"{k}={show(v)}" for k, v in self.kwargs.items()]
        return f"<{self.desc}: {', '.join(parts)}>"


@dataclass
class OpEntry:
    """One public op and what the battery needs to check it.

    name: the public name, qualified by its namespace: ``exp`` (mg.exp), ``F.relu``,
        ``linalg.svdvals``, ``special.erf``, ``Tensor.t`` (a method only).
    samples: yields the ``Sample`` s; errors: yields ``(Sample, exception type)`` that must raise.
    ref: the float64 reference, called with the samples' host values (arrays in place of ``T``);
        returns an array, or a tuple of arrays for an op with several outputs.
    method / inplace: the Tensor method names (None where the op has none); out: takes ``out=``.
    aliases: other public names of the same op (``arccos`` for ``acos``): they must agree.
    alias_calls: for an alias whose signature differs from the op's (``torch.kl_div`` takes
        ``reduction`` as an int), ``{alias: call(fn, *args, **kwargs)}`` calls ``fn`` (the
        alias) with the sample's arguments rewritten to its signature.
    call: how to call the op when not ``name(*args, **kwargs)``: ``call(lib, *args, **kwargs)``.
    dtype: the output dtype rule ("promote", "same", "float", "bool", "int64", or a function of
        the sample's input dtypes) for the first output.
    differentiable / gradgrad: the float outputs have first / second derivatives.
    torch: PyTorch has the op under the same name (False: no PyTorch comparison).
    """

    name: str
    samples: Callable[[], Iterator[Sample]]
    ref: Callable | None = None
    method: str | None = None
    inplace: str | None = None
    out: bool = False
    aliases: tuple = ()
    alias_calls: dict = field(default_factory=dict)
    call: Callable | None = None
    dtype: Any = "promote"
    differentiable: bool = True
    gradgrad: bool = True
    torch: bool = True
    errors: Callable[[], Iterator[tuple]] | None = None
    tol: dict | None = None
    grad_eps: float = 1e-6
    variant: str = ""
    inplace_same_dtype: bool = False  # the in-place form needs self in the result's dtype

    @property
    def id(self) -> str:
        """The test id: the name, and the variant where one op has several entries."""
        return f"{self.name}/{self.variant}" if self.variant else self.name

    def rng(self) -> np.random.Generator:
        """A generator seeded by the entry's name: the same samples every run."""
        return np.random.default_rng(zlib.crc32(self.id.encode()))


# ---------------------------------------------------------------------------------- libraries
@dataclass(frozen=True)
class Lib:
    """minigenesis or PyTorch, with the namespaces an entry's name can point into."""

    name: str
    L: Any

    def resolve(self, qualname: str) -> Callable:
        space, _, attr = qualname.rpartition(".")
        root = {
            "": self.L,
            "F": self.L.nn.functional if self.L is not None else None,
            "linalg": getattr(self.L, "linalg", None),
            "special": getattr(self.L, "special", None),
        }[space]
        return getattr(root, attr)

    def dtype(self, name: str) -> Any:
        return getattr(self.L, name)

    def tensor(self, spec: T, values: np.ndarray | None = None) -> Any:
        """The sample's tensor in this library: built from float64/int64/bool host values (the
        2-byte floats through float32, so both libraries round the same way), then viewed in
        the layout."""
        values = self.base_values(spec) if values is None else values
        return self.view(spec, self._base(values, spec.dtype))

    def view(self, spec: T, t: Any) -> Any:
        """The layout's view of a contiguous base built by ``tensor``."""
        if spec.layout == "transposed" and t.dim() >= 2:
            return t.transpose(-1, -2)
        if spec.layout == "strided" and t.dim() >= 1:
            return t[..., ::2]
        if spec.layout == "expanded":
            return t.expand(*spec.expand)
        return t

    def base_values(self, spec: T) -> np.ndarray:
        """The host values of the contiguous base ``tensor`` builds for the spec."""
        values = spec.values
        if spec.layout == "transposed" and values.ndim >= 2:
            return np.ascontiguousarray(np.swapaxes(values, -1, -2))
        if spec.layout == "strided" and values.ndim >= 1:
            # the skipped elements hold 7: an op that reads them shows it
            wide = np.full((*values.shape[:-1], 2 * values.shape[-1]), 7, values.dtype)
            wide[..., ::2] = values
            return wide
        return values

    def _base(self, values: np.ndarray, dtype: str) -> Any:
        L = self.L
        if dtype in ("float16", "bfloat16"):
            return L.tensor(np.asarray(values, np.float32)).to(self.dtype(dtype))
        if dtype in FLOATS:
            return L.tensor(np.asarray(values, np.float64)).to(self.dtype(dtype))
        if dtype == "bool":
            return L.tensor(np.asarray(values, bool))
        return L.tensor(np.asarray(values).astype(np.int64)).to(self.dtype(dtype))

    def build(self, sample: Sample) -> tuple[tuple, dict]:
        """The sample's args and kwargs with its tensors built in this library."""

        def one(a: Any) -> Any:
            return self.tensor(a) if isinstance(a, T) else _deep(a, self)

        return tuple(one(a) for a in sample.args), {k: one(v) for k, v in sample.kwargs.items()}

    def call(self, entry: OpEntry, args: tuple, kwargs: dict) -> Any:
        if entry.call is not None:
            return entry.call(self, *args, **kwargs)
        if entry.name.startswith("Tensor."):
            return getattr(args[0], entry.name[7:])(*args[1:], **kwargs)
        return self.resolve(entry.name)(*args, **kwargs)

    def is_tensor(self, x: Any) -> bool:
        return isinstance(x, mg.Tensor) if self.name == "mg" else isinstance(x, torch.Tensor)


def _deep(a: Any, lib: Lib) -> Any:
    """Tensors inside lists and tuples (cat's list, an index tuple) built too."""
    if isinstance(a, list):
        return [lib.tensor(x) if isinstance(x, T) else _deep(x, lib) for x in a]
    if isinstance(a, tuple):
        return tuple(lib.tensor(x) if isinstance(x, T) else _deep(x, lib) for x in a)
    return a


MG = Lib("mg", mg)
TORCH = Lib("torch", torch) if torch is not None else None


def dtype_name(t: Any) -> str:
    return str(t.dtype).split(".")[-1]


def to_host(t: Any) -> np.ndarray:
    """A float64 (or int64 / bool) host copy of either library's tensor."""
    t = t.detach()
    name = dtype_name(t)
    kind = np.bool_ if name == "bool" else np.float64 if "float" in name else np.int64
    if torch is not None and isinstance(t, torch.Tensor):
        t = t.to(torch.float64) if t.is_floating_point() else t
        return np.asarray(t.tolist(), dtype=kind).reshape(tuple(t.shape))
    t = t.to(mg.float64) if t.is_floating_point() else t
    return np.asarray(t.tolist(), dtype=kind).reshape(tuple(t.shape))


def host_args(sample: Sample, lib: Lib = MG) -> tuple[tuple, dict]:
    """The sample's arguments for the reference: each tensor's values as the op sees them (the
    2-byte floats rounded), as float64 / int64 / bool arrays."""

    def one(a: Any) -> Any:
        if isinstance(a, T):
            return to_host(lib.tensor(a))
        if isinstance(a, list):
            return [one(x) for x in a]
        if isinstance(a, tuple):
            return tuple(one(x) for x in a)
        return a

    return tuple(one(a) for a in sample.args), {k: one(v) for k, v in sample.kwargs.items()}


def outputs(result: Any) -> list:
    """An op's result as a flat list: a tensor, the tensors of a tuple / list / named tuple, or
    a plain value (``equal``'s bool, ``item``'s number)."""
    if isinstance(result, (tuple, list)):
        return [x for r in result for x in outputs(r)]
    return [result]


# ------------------------------------------------------------------------------- dtype rules
_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}
_INT_RANK = {"bool": 0, "uint8": 1, "int8": 1, "int16": 2, "int32": 3, "int64": 4}


def _category(dtype: str) -> int:
    return 2 if dtype in _FLOAT_RANK else 0 if dtype == "bool" else 1


def _join(dtypes: list[str]) -> str | None:
    """The promoted dtype of one priority group (all tensors of the same rank class)."""
    if not dtypes:
        return None
    floats = [d for d in dtypes if d in _FLOAT_RANK]
    if floats:
        if set(floats) == {"float16", "bfloat16"}:
            return "float32"
        return max(floats, key=lambda d: (_FLOAT_RANK[d], d == "bfloat16"))
    ints = [d for d in dtypes if d != "bool"]
    if not ints:
        return "bool"
    if "uint8" in ints and any(d in ("int8",) for d in ints):
        return "int16"
    return max(ints, key=lambda d: _INT_RANK[d])


def promote(sample: Sample) -> str:
    """PyTorch's result type of the sample's arguments, written out independently: tensors with
    dims outrank 0-d tensors, which outrank Python numbers; a lower group only wins by a higher
    category (bool < integer < floating), and a Python number then brings the default dtype."""
    dims = [a.dtype for a in sample.args if isinstance(a, T) and len(a.shape) > 0]
    zero = [a.dtype for a in sample.args if isinstance(a, T) and len(a.shape) == 0]
    scalars = [
        "float32" if isinstance(a, float) else "bool" if isinstance(a, bool) else "int64"
        for a in sample.args
        if isinstance(a, (int, float)) and not isinstance(a, T)
    ]
    result = _join(dims)
    for group in (_join(zero), _join(scalars)):
        if group is None:
            continue
        if result is None or _category(group) > _category(result):
            result = group
    return result or "float32"


def expected_dtype(entry: OpEntry, sample: Sample) -> str | None:
    rule = entry.dtype
    if callable(rule):
        return rule(sample)
    if rule == "promote":
        return promote(sample)
    if rule == "float":  # integer and bool inputs compute in the default float dtype
        d = promote(sample)
        return d if d in _FLOAT_RANK else "float32"
    if rule == "same":
        return sample.tensors()[0].dtype
    return rule  # "bool", "int64", or None (not checked)


# ------------------------------------------------------------------ helpers for the checks
def describe_error(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"


def close(got: np.ndarray, want: np.ndarray, dtype: str, tol: dict | None = None) -> str | None:
    """None when ``got`` matches ``want`` (same shape; NaN where NaN; +-inf where +-inf; else
    within the dtype's tolerance; integers and bools exactly), else what differs."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if dtype not in FLOATS:
        return None if np.array_equal(got, want) else f"{got.tolist()} != {want.tolist()}"
    rtol, atol = (tol or TOL)[dtype] if dtype in (tol or TOL) else TOL[dtype]
    want = want.astype(np.float64)
    ok = np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if ok.all():
        return None
    i = np.argwhere(~ok)[0]
    return f"at {tuple(i)}: {got[tuple(i)]!r} != {want[tuple(i)]!r} ({int((~ok).sum())} differ)"


def map_specs(a: Any, fn: Callable) -> Any:
    """``a`` with every ``T`` inside (lists and tuples included) replaced by ``fn(T)``."""
    if isinstance(a, T):
        return fn(a)
    if isinstance(a, list):
        return [map_specs(x, fn) for x in a]
    if isinstance(a, tuple):
        return tuple(map_specs(x, fn) for x in a)
    return a


def tensor_specs(sample: Sample) -> list[T]:
    found: list[T] = []
    map_specs((sample.args, tuple(sample.kwargs.values())), lambda t: found.append(t) or t)
    return found


def run(entry: OpEntry, lib: Lib, sample: Sample, make: Callable | None = None) -> Any:
    """Call the entry on the sample in ``lib``; ``make(T) -> tensor`` overrides how tensors are
    built (the gradient checks pass views of float64 leaves)."""
    make = make or lib.tensor
    args = tuple(map_specs(a, make) for a in sample.args)
    kwargs = {k: map_specs(v, make) for k, v in sample.kwargs.items()}
    return lib.call(entry, args, kwargs)
