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

from .checks_grad import (
    _differentiable_function,
    _directions,
    _dot,
    _empty,
    _grad_specs,
    _host_grads,
    _leaves,
    _vjp,
    check_grad,
    check_grad_torch,
    check_gradgrad,
)
from .core import (
    FLOATS,
    MG,
    TOL,
    TORCH,
    OpEntry,
    Sample,
    T,
    close,
    describe_error,
    dtype_name,
    expected_dtype,
    host_args,
    map_specs,
    outputs,
    run,
    tensor_specs,
    to_host,
    torch,
)


# ------------------------------------------------------------------------------------ forward
def check_forward(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """Values against the float64 reference; the output dtype by the entry's rule."""
    fails = []
    for s in samples:
        try:
            outs = outputs(run(entry, MG, s))
        except Exception as e:  # noqa: BLE001 - a valid sample must run
            fails.append(f"{s}: raised {describe_error(e)}")
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


# ------------------------------------------------------------------------- requires_grad rules
def check_requires_grad(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """A float output requires grad iff the op is differentiable and an input does; integer and
    bool outputs never do; nothing does under no_grad."""
    fails = []
    for s in samples:
        if not any(t.is_float for t in tensor_specs(s)):
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
            args = tuple(map_specs(a, make) for a in s.args)
            kwargs = {k: map_specs(v, make) for k, v in s.kwargs.items()}
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
    if form.endswith("_") and args and isinstance(args[0], mg.Tensor):
        # an in-place alias (Tensor.arcsin_, torch.abs_) runs on a copy: the sample's tensor
        # may be an expanded view that nothing can be written to
        args = (args[0].clone(), *args[1:])
    if form in entry.alias_calls:  # an alias with another signature, or NotImplemented
        fn = getattr(mg.Tensor, form[7:]) if form.startswith("Tensor.") else MG.resolve(form)
        return entry.alias_calls[form](fn, *args, **kwargs)
    if form.startswith("Tensor."):
        return getattr(args[0], form[7:])(*args[1:], **kwargs)
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
            written = _inplace_alias_dtype(form, want, s)
            if written == "refused":
                # an in-place alias (arcsin_) cannot hold a float result in an integer self:
                # it must refuse, as the op's own in-place form does (check_inplace)
                try:
                    _call_form(entry, form, s)
                    fails.append(f"{s}: {form} ran where the result cannot be written to self")
                except RuntimeError:
                    pass
                continue
            if written == "cast":  # written in self's dtype: check_inplace checks that
                continue
            try:
                got = _call_form(entry, form, s)
                if got is NotImplemented:  # a call the alias's signature cannot express
                    continue
                bad = _same(got, want)
            except RuntimeError as e:
                # a result of another shape than self: refused (sub_ of a broadcast pair), or
                # self takes the result's shape (swapaxes_), as PyTorch
                bad = "" if written == "shape" else f"raised {describe_error(e)}"
            except Exception as e:  # noqa: BLE001
                bad = f"raised {describe_error(e)}"
            if bad:
                fails.append(f"{s}: {form}: {bad}")
    return fails


def _inplace_alias_dtype(form: str, want: Any, s: Sample) -> str:
    """For an in-place alias (``Tensor.arcsin_``): "refused" when the result's dtype cannot be
    written into the sample's first tensor (PyTorch's rule), "cast" when it is written in
    another dtype than the result's, "shape" when the result has another shape than self;
    else (and for any other form) "same"."""
    if not form.endswith("_") or not isinstance(outputs(want)[0], mg.Tensor):
        return "same"
    first, own = outputs(want)[0], MG.build(s)[0][0]
    result, self_dtype = dtype_name(first), dtype_name(own)
    if not _can_cast(result, self_dtype):
        return "refused"
    if result != self_dtype:
        return "cast"
    return "shape" if tuple(first.shape) != tuple(own.shape) else "same"


def check_out(entry: OpEntry, samples: list[Sample]) -> list[str]:
    """``out=`` writes the function's result into the given tensor and returns that tensor; an
    op with several results (sort's values and indices ...) takes and returns a tuple of them,
    as PyTorch's."""
    fails = []
    for s in samples:
        try:
            result = run(entry, MG, s)
        except Exception:  # noqa: BLE001 - check_forward reports it
            continue
        want = outputs(result)
        if not isinstance(want[0], mg.Tensor):
            continue
        args, kwargs = MG.build(s)
        several = isinstance(result, tuple)
        outs = tuple(mg.empty(*w.shape, dtype=w.dtype) for w in (want if several else want[:1]))
        try:
            got = MG.call(entry, args, {**kwargs, "out": outs if several else outs[0]})
            if several:
                same = isinstance(got, tuple) and len(got) == len(outs)
                bad = (
                    None
                    if same and all(g is o for g, o in zip(got, outs))
                    else ("out= did not return its out tensors")
                )
            else:
                bad = None if got is outs[0] else "out= did not return its out tensor"
            bad = bad or next(filter(None, (_same(o, w) for o, w in zip(outs, want))), None)
        except Exception as e:  # noqa: BLE001
            bad = f"raised {describe_error(e)}"
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
                fails.append(f"{s}: {entry.inplace} raised {describe_error(e)}")
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
            fails.append(f"{s}: raised {describe_error(e)}")
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
        if _empty(s) or s.args[0].layout == "expanded":  # an expanded self is never written
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
            bad = f"raised {describe_error(e)}"
        if bad:
            fails.append(f"{s}: {bad}")
    return fails


def _inplace_view_grad(entry: OpEntry, s: Sample) -> str | None:
    s64 = dataclasses.replace(
        s,
        args=tuple(
            map_specs(
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

    def as_tensor(t):  # the leaf made for a spec, or a constant tensor (never `or`: ambiguous)
        return by_id[id(t)] if id(t) in by_id else MG.tensor(t)

    others = tuple(map_specs(a, as_tensor) for a in s64.args[1:])
    kwargs = {k: map_specs(v, as_tensor) for k, v in s64.kwargs.items()}
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
            fails.append(f"{s}: raised {describe_error(e)}; expected {name}")
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
            what = (
                f"PyTorch raised {describe_error(terr)}"
                if terr
                else f"we raised {describe_error(oerr)}"
            )
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
    if check == "grad":
        return entry.differentiable
    if check == "grad_torch":
        return entry.differentiable and entry.torch
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
