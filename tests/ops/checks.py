"""The battery: each check runs one entry over all its samples and returns what went wrong, as
readable lines (an empty list when the entry passes).

Derivatives are checked along random directions, as PyTorch's fast gradcheck does: for outputs
y = f(x), random v (per output) and u (per input), backward's  v^T J u  must match the central
difference  v . (f(x + eps u) - f(x - eps u)) / (2 eps)  in float64; the second derivative is the
same check applied to  x -> w . grad(v . f)(x).  Two forwards per derivative instead of one per
input element keep the battery fast.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

import minigenesis as mg

from .core import (
    FLOATS,
    MG,
    TOL,
    TORCH,
    Lib,
    OpEntry,
    Sample,
    T,
    dtype_name,
    expected_dtype,
    host_args,
    outputs,
    to_host,
    torch,
)


def _fmt(e: BaseException) -> str:
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


def _map(a: Any, fn: Callable) -> Any:
    """``a`` with every ``T`` inside (lists and tuples included) replaced by ``fn(T)``."""
    if isinstance(a, T):
        return fn(a)
    if isinstance(a, list):
        return [_map(x, fn) for x in a]
    if isinstance(a, tuple):
        return tuple(_map(x, fn) for x in a)
    return a


def _specs(sample: Sample) -> list[T]:
    found: list[T] = []
    _map((sample.args, tuple(sample.kwargs.values())), lambda t: found.append(t) or t)
    return found


def run(entry: OpEntry, lib: Lib, sample: Sample, make: Callable | None = None) -> Any:
    """Call the entry on the sample in ``lib``; ``make(T) -> tensor`` overrides how tensors are
    built (the gradient checks pass views of float64 leaves)."""
    make = make or lib.tensor
    args = tuple(_map(a, make) for a in sample.args)
    kwargs = {k: _map(v, make) for k, v in sample.kwargs.items()}
    return lib.call(entry, args, kwargs)


# ------------------------------------------------------------------------------------ forward
def check_forward(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Values against the float64 reference; the output dtype by the entry's rule."""
    fails = []
    for s in samples:
        try:
            outs = outputs(run(entry, MG, s))
        except Exception as e:  # noqa: BLE001 - a valid sample must run
            fails.append(f"{s}: raised {_fmt(e)}")
            continue
        want_dtype = expected_dtype(entry, s)
        first = outs[0]
        if want_dtype and isinstance(first, mg.Tensor) and dtype_name(first) != want_dtype:
            fails.append(f"{s}: dtype {dtype_name(first)}, expected {want_dtype}")
        if entry.ref is None or not s.ref:
            continue
        hargs, hkwargs = host_args(s)
        with np.errstate(all="ignore"):
            ref = entry.ref(*hargs, **hkwargs)
        for k, (o, r) in enumerate(zip(outs, ref if isinstance(ref, tuple) else (ref,))):
            if r is None:
                continue
            if not isinstance(o, mg.Tensor):
                if not (o == r or (o != o and r != r)):
                    fails.append(f"{s}: output {k}: {o!r} != {r!r}")
                continue
            name = dtype_name(o)
            if name in ("int64", "int32", "int16", "int8", "uint8"):  # wraps as the dtype does
                r = np.asarray(r).astype(np.int64).astype(name).astype(np.int64)
            bad = close(to_host(o), r, name, entry.tol)
            if bad:
                fails.append(f"{s}: output {k}: {bad}")
    return fails


# ---------------------------------------------------------------------------------- gradients
def _grad_specs(sample: Sample) -> list[T]:
    return [t for t in _specs(sample) if t.is_float and t.grad]


def _differentiable_function(entry: OpEntry, sample: Sample, lib: Lib = MG) -> tuple:
    """(f, x0): f(leaves) -> the float outputs, with the sample's float inputs as float64 leaves
    viewed in their layouts; x0 the leaves' host values."""
    specs = _grad_specs(sample)
    x0 = [np.asarray(lib.base_values(t), np.float64) for t in specs]

    def f(leaves: list) -> list:
        by_id = {id(t): (t, leaf) for t, leaf in zip(specs, leaves)}

        def make(t: T) -> Any:
            if id(t) in by_id:
                spec, leaf = by_id[id(t)]
                return lib.view(spec, leaf)
            return lib.tensor(t)

        outs = outputs(run(entry, lib, sample, make))
        return [o for o in outs if lib.is_tensor(o) and o.is_floating_point()]

    return f, x0


def _leaves(lib: Lib, arrays: list, requires_grad: bool = True) -> list:
    L = lib.L
    return [L.tensor(a, dtype=L.float64).requires_grad_(requires_grad) for a in arrays]


def _dot(lib: Lib, outs: list, vs: list) -> Any:
    total = None
    for o, v in zip(outs, vs):
        term = (o * lib.L.tensor(v, dtype=lib.L.float64)).sum()
        total = term if total is None else total + term
    return total


def _vjp(lib: Lib, f: Callable, xs: list, vs: list, create_graph: bool = False) -> list:
    """grad of v . f(x) at xs (zeros where an input is unused or nothing needs a gradient)."""
    leaves = _leaves(lib, xs)
    outs = f(leaves)
    loss = _dot(lib, outs, vs)
    if loss is None or not loss.requires_grad:
        return [np.zeros_like(x) for x in xs], leaves, None
    grads = lib.L.autograd.grad(loss, leaves, create_graph=create_graph, allow_unused=True)
    return grads, leaves, loss


def _host_grads(grads: list, xs: list) -> list[np.ndarray]:
    return [
        np.zeros_like(x) if g is None or isinstance(g, np.ndarray) else to_host(g)
        for g, x in zip(grads, xs)
    ]


def _directions(sample: Sample, f: Callable, x0: list) -> tuple[list, list]:
    rng = np.random.default_rng(1)
    with mg.no_grad():
        outs = f(_leaves(MG, x0, False))
    return [rng.standard_normal(tuple(o.shape)) for o in outs], [
        rng.standard_normal(x.shape) for x in x0
    ]


def _numeric(g: Callable, x0: list, us: list, eps: float) -> float:
    plus = g([x + eps * u for x, u in zip(x0, us)])
    minus = g([x - eps * u for x, u in zip(x0, us)])
    return (plus - minus) / (2 * eps)


def _agree(analytic: float, numeric: float) -> bool:
    if not (np.isfinite(analytic) and np.isfinite(numeric)):  # NaN / inf: the same one
        return bool(np.isnan(analytic) and np.isnan(numeric)) or analytic == numeric
    return abs(analytic - numeric) <= 1e-5 + 1e-4 * abs(numeric)


def _grad_samples(entry: OpEntry, samples: list[Sample], second: bool = False) -> list[Sample]:
    return [
        s
        for s in samples
        if _grad_specs(s) and s.grad and (s.gradgrad or not second) and not _empty(s)
    ]


def _empty(s: Sample) -> bool:
    return any(0 in t.shape for t in _grad_specs(s))


def check_grad(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """First derivatives: backward against float64 central differences."""
    fails = []
    for s in _grad_samples(entry, samples):
        try:
            f, x0 = _differentiable_function(entry, s)
            vs, us = _directions(s, f, x0)
            grads, _, _ = _vjp(MG, f, x0, vs)
            analytic = sum(float((g * u).sum()) for g, u in zip(_host_grads(grads, x0), us))

            def value(xs: list, f: Callable = f, vs: list = vs) -> float:
                with mg.no_grad():
                    loss = _dot(MG, f(_leaves(MG, xs, False)), vs)
                return 0.0 if loss is None else float(loss.item())

            numeric = _numeric(value, x0, us, entry.grad_eps)
        except Exception as e:  # noqa: BLE001
            fails.append(f"{s}: raised {_fmt(e)}")
            continue
        if not _agree(analytic, numeric):
            fails.append(f"{s}: v.J.u = {analytic!r}, central differences {numeric!r}")
    return fails


def check_gradgrad(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Second derivatives: the gradient of w . grad(v . f) against central differences of it."""
    fails = []
    for s in _grad_samples(entry, samples, second=True):
        try:
            f, x0 = _differentiable_function(entry, s)
            vs, us = _directions(s, f, x0)
            ws = [np.random.default_rng(2).standard_normal(x.shape) for x in x0]
            grads, leaves, _ = _vjp(MG, f, x0, vs, create_graph=True)
            inner = _dot(
                MG,
                [g for g in grads if g is not None and not isinstance(g, np.ndarray)],
                [w for g, w in zip(grads, ws) if g is not None and not isinstance(g, np.ndarray)],
            )
            if inner is None or not inner.requires_grad:
                analytic = 0.0
            else:
                second = mg.autograd.grad(inner, leaves, allow_unused=True)
                analytic = sum(float((g * u).sum()) for g, u in zip(_host_grads(second, x0), us))

            def first(xs: list, f: Callable = f, vs: list = vs, ws: list = ws) -> float:
                g, _, _ = _vjp(MG, f, xs, vs)
                return sum(float((h * w).sum()) for h, w in zip(_host_grads(g, xs), ws))

            numeric = _numeric(first, x0, us, 1e-5)
            if np.isnan(numeric):  # the first derivative is NaN here (var of one element)
                continue
        except Exception as e:  # noqa: BLE001
            fails.append(f"{s}: raised {_fmt(e)}")
            continue
        if not (_agree(analytic, numeric) or abs(analytic - numeric) <= 1e-4 * (1 + abs(numeric))):
            fails.append(f"{s}: w.H.u = {analytic!r}, central differences {numeric!r}")
    return fails


def check_grad_torch(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """First derivatives equal PyTorch's at every sample, the edge values (ties, kinks, NaN,
    poles) included, where finite differences say nothing."""
    fails = []
    for s in samples:
        if not _grad_specs(s) or _empty(s):
            continue
        f, x0 = _differentiable_function(entry, s)
        ft, _ = _differentiable_function(entry, s, TORCH)
        try:
            with mg.no_grad():
                n_out = [tuple(o.shape) for o in f(_leaves(MG, x0, False))]
        except Exception:  # noqa: BLE001 - check_forward reports it
            continue
        vs = [np.random.default_rng(3).standard_normal(shape) for shape in n_out]
        try:
            theirs = _host_grads(_vjp(TORCH, ft, x0, vs)[0], x0)
        except Exception:  # noqa: BLE001 - no PyTorch gradient to compare
            continue
        try:
            ours = _host_grads(_vjp(MG, f, x0, vs)[0], x0)
        except Exception as e:  # noqa: BLE001
            fails.append(f"{s}: raised {_fmt(e)} (PyTorch computes the gradient)")
            continue
        for k, (a, b) in enumerate(zip(ours, theirs)):
            bad = close(a, b, "float64", {"float64": (1e-7, 1e-9)})
            if bad:
                fails.append(f"{s}: gradient {k}: {bad} (ours != PyTorch's)")
    return fails


# ------------------------------------------------------------------------- requires_grad rules
def check_requires_grad(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """A float output requires grad iff the op is differentiable and an input does; integer and
    bool outputs never do; nothing does under no_grad."""
    fails = []
    for s in samples:
        if not any(t.is_float for t in _specs(s)):
            continue
        for grad_on, mode in ((True, contextlib.nullcontext), (True, mg.no_grad), (False, None)):

            def make(t: T, grad_on: bool = grad_on) -> Any:
                base = MG._base(MG.base_values(t), t.dtype)
                if grad_on and t.is_float:
                    base.requires_grad_(True)
                return MG.view(t, base)

            try:
                with (mode or contextlib.nullcontext)():
                    outs = outputs(run(entry, MG, s, make))
            except Exception:  # noqa: BLE001 - check_forward reports it
                break
            want = entry.differentiable and grad_on and mode is contextlib.nullcontext
            for k, o in enumerate(outs):
                if not isinstance(o, mg.Tensor):
                    continue
                w = want and o.is_floating_point()
                if o.requires_grad != w:
                    how = "no_grad" if mode is mg.no_grad else f"inputs requiring grad={grad_on}"
                    fails.append(f"{s}: output {k} requires_grad={o.requires_grad} ({how})")
    return fails


# ----------------------------------------------------------------------------- input integrity
def _snapshot(tensors: list) -> list[bytes]:
    return [np.asarray(mg.backend.to_numpy(t._data)).tobytes() for t in tensors]


def check_no_input_writes(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """The op (forward and backward, every form but the in-place one) leaves its inputs' bytes as
    they were."""
    fails = []
    for s in samples:
        bases: list = []

        def make(t: T, bases: list = bases) -> Any:
            base = MG._base(MG.base_values(t), t.dtype)
            if entry.differentiable and t.is_float and t.grad:
                base.requires_grad_(True)
            bases.append(base)
            return MG.view(t, base)

        try:
            before = None
            args = tuple(_map(a, make) for a in s.args)
            kwargs = {k: _map(v, make) for k, v in s.kwargs.items()}
            before = _snapshot(bases)
            outs = outputs(MG.call(entry, args, kwargs))
            diff = [o for o in outs if isinstance(o, mg.Tensor) and o.requires_grad]
            if diff:
                sum(o.sum() for o in diff).backward()
        except Exception:  # noqa: BLE001 - check_forward reports it
            if before is None:
                continue
        after = _snapshot(bases)
        for k, (b, a) in enumerate(zip(before, after)):
            if b != a:
                fails.append(f"{s}: input {k} was written")
    return fails


# ------------------------------------------------------------------------------------ variants
def _same(a: Any, b: Any) -> str | None:
    oa, ob = outputs(a), outputs(b)
    if len(oa) != len(ob):
        return f"{len(oa)} outputs != {len(ob)}"
    for x, y in zip(oa, ob):
        if isinstance(x, mg.Tensor) != isinstance(y, mg.Tensor):
            return f"{type(x).__name__} != {type(y).__name__}"
        if not isinstance(x, mg.Tensor):
            if not (x == y or (x != x and y != y)):
                return f"{x!r} != {y!r}"
            continue
        if dtype_name(x) != dtype_name(y):
            return f"dtype {dtype_name(x)} != {dtype_name(y)}"
        bad = close(to_host(x), to_host(y), dtype_name(x), {d: (0, 0) for d in FLOATS})
        if bad:
            return bad
    return None


def _call_form(entry: OpEntry, form: str, s: Sample) -> Any:
    args, kwargs = MG.build(s)
    if form.startswith("Tensor."):
        self = args[0].clone() if form.endswith("_") else args[0]  # an in-place alias: a copy
        return getattr(self, form[7:])(*args[1:], **kwargs)
    return MG.resolve(form)(*args, **kwargs)


def _can_cast(src: str, dst: str) -> bool:
    """PyTorch's in-place rule: no float result into an integer self, no integer into bool."""

    def category(d: str) -> int:
        return 2 if d in FLOATS else 0 if d == "bool" else 1

    return category(src) <= category(dst)


def check_variants(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """The function, the method and the aliases compute the same."""
    fails = []
    forms = list(entry.aliases)
    if entry.method and not entry.name.startswith("Tensor."):
        forms.append(f"Tensor.{entry.method}")
    for s in samples:
        try:
            want = run(entry, MG, s)
        except Exception:  # noqa: BLE001 - check_forward reports it
            continue
        for form in forms:
            try:
                bad = _same(_call_form(entry, form, s), want)
            except Exception as e:  # noqa: BLE001
                bad = f"raised {_fmt(e)}"
            if bad:
                fails.append(f"{s}: {form}: {bad}")
    return fails


def check_out(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """``out=`` writes the function's result into the given tensor and returns that tensor."""
    fails = []
    for s in samples:
        try:
            first = outputs(run(entry, MG, s))[0]
        except Exception:  # noqa: BLE001 - check_forward reports it
            continue
        if not isinstance(first, mg.Tensor):
            continue
        args, kwargs = MG.build(s)
        out = mg.empty(*first.shape, dtype=first.dtype)
        try:
            got = MG.call(entry, args, {**kwargs, "out": out})
            bad = None if got is out else "out= did not return its out tensor"
            bad = bad or _same(out, first)
        except Exception as e:  # noqa: BLE001
            bad = f"raised {_fmt(e)}"
        if bad:
            fails.append(f"{s}: out=: {bad}")
    return fails


def check_inplace(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """The in-place form writes the function's result into self and returns self; where the
    result cannot be cast into self's dtype, or has another shape, it raises."""
    fails = []
    for s in samples:
        if not isinstance(s.args[0], T):
            continue
        try:
            first = outputs(run(entry, MG, s))[0]
        except Exception:  # noqa: BLE001 - check_forward reports it
            continue
        args, kwargs = MG.build(s)
        target = args[0].clone()
        fits = tuple(first.shape) == tuple(target.shape) and _can_cast(
            dtype_name(first), dtype_name(target)
        )
        if entry.inplace_same_dtype:
            fits = fits and dtype_name(first) == dtype_name(target)
        try:
            got = getattr(target, entry.inplace)(*args[1:], **kwargs)
        except Exception as e:  # noqa: BLE001
            if fits:
                fails.append(f"{s}: {entry.inplace} raised {_fmt(e)}")
            continue
        if not fits:
            fails.append(f"{s}: {entry.inplace} ran where the result cannot be written to self")
        elif got is not target:
            fails.append(f"{s}: {entry.inplace} did not return self")
        else:
            bad = close(to_host(target), to_host(first.to(target.dtype)), dtype_name(target))
            if bad:
                fails.append(f"{s}: {entry.inplace}: {bad}")
    return fails


def check_inplace_view(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """A view made before an in-place write sees the write."""
    fails = []
    for s in samples:
        if not isinstance(s.args[0], T) or not s.args[0].is_float:
            continue
        try:
            want = outputs(run(entry, MG, s))[0]
        except Exception:  # noqa: BLE001
            continue
        if tuple(want.shape) != s.args[0].shape or dtype_name(want) != s.args[0].dtype:
            continue
        args, kwargs = MG.build(s)
        target = args[0].clone()
        view = target.view(*target.shape) if target.is_contiguous() else target[...]
        try:
            getattr(target, entry.inplace)(*args[1:], **kwargs)
        except Exception as e:  # noqa: BLE001
            fails.append(f"{s}: raised {_fmt(e)}")
            continue
        bad = close(to_host(view), to_host(target), dtype_name(target), {d: (0, 0) for d in FLOATS})
        if bad:
            fails.append(f"{s}: the view does not see the write: {bad}")
    return fails


def check_inplace_view_grad(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Gradients through a view made before an in-place write are those of the out-of-place op:
    the write rebases the view's history too."""
    fails = []
    for s in samples:
        if not (isinstance(s.args[0], T) and s.args[0].is_float and s.grad and _grad_specs(s)):
            continue
        if _empty(s):
            continue
        try:
            want = outputs(run(entry, MG, s))[0]
        except Exception:  # noqa: BLE001
            continue
        if tuple(want.shape) != s.args[0].shape or dtype_name(want) != s.args[0].dtype:
            continue
        try:
            bad = _inplace_view_grad(entry, s)
        except Exception as e:  # noqa: BLE001
            bad = f"raised {_fmt(e)}"
        if bad:
            fails.append(f"{s}: {bad}")
    return fails


def _inplace_view_grad(entry: OpEntry, s: Sample) -> str | None:
    s64 = dataclasses.replace(
        s,
        args=tuple(
            _map(
                a,
                lambda t: dataclasses.replace(
                    t, layout="contiguous", dtype="float64" if t.is_float else t.dtype
                ),
            )
            for a in s.args
        ),
    )
    f, x0 = _differentiable_function(entry, s64)
    vs, _ = _directions(s64, f, x0)
    want = _host_grads(_vjp(MG, f, x0, vs)[0], x0)
    specs = _grad_specs(s64)
    leaves = _leaves(MG, x0)
    by_id = {id(t): leaf for t, leaf in zip(specs, leaves)}
    first = s64.args[0]
    others = tuple(_map(a, lambda t: by_id.get(id(t), None) or MG.tensor(t)) for a in s64.args[1:])
    kwargs = {
        k: _map(v, lambda t: by_id.get(id(t), None) or MG.tensor(t)) for k, v in s64.kwargs.items()
    }
    target = by_id[id(first)].clone() if id(first) in by_id else MG.tensor(first)
    view = target.view(*target.shape)
    getattr(target, entry.inplace)(*others, **kwargs)
    loss = _dot(MG, [view], vs[:1])
    if not loss.requires_grad:
        return "the view made before the write does not require grad"
    got = _host_grads(mg.autograd.grad(loss, leaves, allow_unused=True), x0)
    for k, (a, b) in enumerate(zip(got, want)):
        bad = close(a, b, "float64", {"float64": (1e-9, 1e-12)})
        if bad:
            return f"gradient {k} through the view: {bad}"
    return None


# -------------------------------------------------------------------------------------- errors
def check_errors(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Each invalid sample raises the entry's exception type (and, with PyTorch installed, PyTorch
    raises on it too: the sample really is invalid)."""
    fails = []
    for s, exc in entry.errors() if entry.errors else ():
        name = "/".join(e.__name__ for e in exc) if isinstance(exc, tuple) else exc.__name__
        try:
            run(entry, MG, s)
            fails.append(f"{s}: ran; expected {name}")
        except exc:
            pass
        except Exception as e:  # noqa: BLE001
            fails.append(f"{s}: raised {_fmt(e)}; expected {name}")
        if TORCH is not None and entry.torch:
            try:
                run(entry, TORCH, s)
                fails.append(f"{s}: PyTorch runs this invalid sample")
            except Exception:  # noqa: BLE001
                pass
    return fails


def check_torch(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Where PyTorch raises we raise, where it runs we run; the same dtypes, shapes and (loosely,
    as PyTorch's CPU kernels round differently) values."""
    fails = []
    loose = {d: (r * 10, a * 10) for d, (r, a) in TOL.items()}
    for s in samples:
        try:
            theirs = outputs(run(entry, TORCH, s))
            terr = None
        except Exception as e:  # noqa: BLE001
            theirs, terr = None, e
        try:
            ours = outputs(run(entry, MG, s))
            oerr = None
        except Exception as e:  # noqa: BLE001
            ours, oerr = None, e
        if (terr is None) != (oerr is None):
            what = f"PyTorch raised {_fmt(terr)}" if terr else f"we raised {_fmt(oerr)}"
            fails.append(f"{s}: only one raises: {what}")
            continue
        if terr is not None:
            continue
        for k, (o, t) in enumerate(zip(ours, theirs)):
            if not isinstance(o, mg.Tensor):
                continue
            if dtype_name(o) != dtype_name(t):
                fails.append(f"{s}: output {k} dtype {dtype_name(o)}, PyTorch {dtype_name(t)}")
            elif tuple(o.shape) != tuple(t.shape):
                fails.append(f"{s}: output {k} shape {tuple(o.shape)}, PyTorch {tuple(t.shape)}")
            elif s.ref:
                bad = close(to_host(o), to_host(t), dtype_name(o), loose)
                if bad:
                    fails.append(f"{s}: output {k} vs PyTorch: {bad}")
    return fails


CHECKS: dict[str, Callable] = {
    "forward": check_forward,
    "grad": check_grad,
    "gradgrad": check_gradgrad,
    "requires_grad": check_requires_grad,
    "no_input_writes": check_no_input_writes,
    "variants": check_variants,
    "out": check_out,
    "inplace": check_inplace,
    "inplace_view": check_inplace_view,
    "inplace_view_grad": check_inplace_view_grad,
    "errors": check_errors,
    "torch": check_torch,
    "grad_torch": check_grad_torch,
}
TORCH_CHECKS = ("torch", "grad_torch")


def applies(entry: OpEntry, check: str) -> bool:
    """Whether a check means anything for an entry (the others are not generated)."""
    if check in ("grad", "grad_torch"):
        return entry.differentiable
    if check == "gradgrad":
        return entry.differentiable and entry.gradgrad
    if check in ("inplace", "inplace_view"):
        return entry.inplace is not None
    if check == "inplace_view_grad":
        return entry.inplace is not None and entry.differentiable
    if check == "out":
        return entry.out
    if check == "errors":
        return entry.errors is not None
    if check in TORCH_CHECKS:
        return entry.torch
    return True


__all__ = ["CHECKS", "TORCH_CHECKS", "applies", "close", "run", "torch"]
