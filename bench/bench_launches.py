"""Kernels per training step: minigenesis on the CuPy stand-in against PyTorch's operators.

No GPU needed, no timing: counts only, and they are deterministic. Small models on a GPU are
launch-bound (BENCHMARKS.md, GPU), so the number of kernels a step launches is what sets its time.

    python bench/bench_launches.py                  # mlp-big cnn gpt, each fp32 and bf16 autocast
    python bench/bench_launches.py gpt --top 25

The step is bench_gpu.py's (same models, inputs, AdamW): zero_grad, forward and loss (under
autocast(bfloat16) for the -bf16 rows), backward, optimizer step. One warm-up step runs first (it
creates the optimizer's state); the second step is counted, split into forward / backward / optim.

What is counted on our side. minigenesis runs with device "cuda" on the strict CuPy stand-in
(tests/cupy_standin, selected by MINIGENESIS_CUPY as the test suite does). Its entry points are
wrapped from outside (nothing in the package or the stand-in changes): every ufunc call and ufunc
method (reduce, at, ...), every module function (cupy.sum, cupy.zeros, cupy.linalg.*, ...),
every ndarray method reached through its attribute lookup (astype, sum, copy, fill, ...), every
operator (a + b, a @ b, a += b, -a), indexing (a[i], a[i] = v), cupyx.scatter_add, and each
call of one of our own kernels (minigenesis/kernels/cuda.py, run by the stand-in with NumPy). A call
counts as one kernel when it writes device memory: it is in place (``out=``, ``a += b``,
``a[i] = v``, ``ufunc.at``, ``fill``) or it returns an array that shares no memory with its
inputs. A call that returns a view (reshape of a contiguous array, transpose, basic slicing,
``asarray`` of a device array) or only metadata (result_type, shape) is no kernel; neither is
``empty``/``empty_like`` (an allocation from the pool). Calls made inside a counted call are not
counted again. Real CuPy launches one kernel for each of these, except: a reduction over several
axes or a large einsum may take two, and cuBLAS may add a small one; so ours is close to a lower
bound of what the GPU sees.

What is counted on PyTorch's side. The same step on the CPU under torch.profiler (autocast on
the CPU for the -bf16 rows), with AdamW(foreach=True), the optimizer CUDA picks by default. An
aten operator counts as one kernel when it is the lowest operator on its path that is not a view
or metadata op (view, reshape, t, transpose, expand, slice, select, detach, empty, to/contiguous
that did not copy, ...): composite operators (linear, layer_norm, cross_entropy) are not counted,
the operators they dispatch to (addmm, native_layer_norm, _log_softmax, nll_loss) are, and an
operator whose only sub-calls are views or allocations (native_layer_norm calling empty) is a
leaf. A ``_foreach_*`` operator counts as one (on CUDA it is one multi-tensor launch per list of
up to 36-110 tensors; on the CPU it loops per tensor, which is not descended into), so the
optimizer's count is a lower bound. CPU and CUDA dispatch the same aten leaves for these models
(addmm/mm, convolution via its backend op, native_layer_norm, gelu, _softmax/_log_softmax,
scaled dot-product attention, embedding_dense_backward, the elementwise ops), which is why the
count of CPU leaf operators is a fair proxy for CUDA kernel launches; where CUDA splits an op
into more kernels (cuDNN convolution, flash attention's backward, the reductions inside
layer_norm's backward) PyTorch launches a few more than counted here, as we do.

The stand-in runs all six rows (bfloat16 autocast included); a row it could not run would be
printed as "not counted" with the error.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import functools
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ["MINIGENESIS_CUPY"] = "tests.cupy_standin"  # the backend reads it when imported

from bench_gpu import build  # noqa: E402

import minigenesis as mg  # noqa: E402
import tests.cupy_standin as cp  # noqa: E402
import tests.cupy_standin._cupyx as cpx  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

ROWS = ["mlp-big", "mlp-big-bf16", "cnn", "cnn-bf16", "gpt", "gpt-bf16"]
PHASES = ("forward", "backward", "optim")

# ----------------------------------------------------------------------------------------------
# Our side: wrapping the stand-in's entry points
# ----------------------------------------------------------------------------------------------
MATMUL = {"matmul", "dot", "einsum", "tensordot", "__matmul__", "__rmatmul__", "inner", "outer"}
REDUCE = {
    "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "prod",
    "any", "all", "cumsum", "cumprod", "count_nonzero", "nansum", "nanmax", "nanmin",
}  # fmt: skip
FILL = {
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "arange", "eye", "fill",
    "tri", "triu", "tril", "linspace",
}  # fmt: skip
COPY = {
    "astype", "copy", "ascontiguousarray", "array", "asarray", "concatenate", "stack", "reshape",
    "ravel", "flatten", "__copy__", "__deepcopy__", "pad", "split",
}  # fmt: skip
NO_KERNEL = {"empty", "empty_like"}  # an allocation from the pool, nothing written


class _Counter:
    """Kernels by (phase, kind, name) and by (phase, caller in minigenesis)."""

    def __init__(self) -> None:
        self.on = False
        self.depth = 0
        self.phase = "forward"
        self.kinds: collections.Counter = collections.Counter()
        self.callers: collections.Counter = collections.Counter()

    def reset(self) -> None:
        self.kinds.clear()
        self.callers.clear()


COUNT = _Counter()
_PKG = str(ROOT / "minigenesis")


def _caller() -> str:
    """The innermost minigenesis function on the stack, outside the backend module: the op or
    layer that asked for this kernel (e.g. ``ops/activation.py GELU.forward``)."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if name.startswith(_PKG) and not name.endswith(("backend.py", "kernels/cuda.py")):
            rel = os.path.relpath(name, _PKG)
            return f"{rel} {f.f_code.co_qualname}"
        f = f.f_back
    return "(outside minigenesis)"


def _arrays(obj) -> list[np.ndarray]:
    """The NumPy data of the stand-in arrays in ``obj`` (one level of tuples/lists/dicts)."""
    if type(obj) is cp.ndarray:
        return [obj._a]
    if isinstance(obj, (tuple, list)):
        return [a for o in obj for a in _arrays(o)]
    if isinstance(obj, dict):
        return [a for o in obj.values() for a in _arrays(o)]
    return []


def _kind(name: str, method: str | None) -> str:
    if name.startswith("kernel "):
        return "fused kernel"
    if method in ("reduce", "accumulate", "reduceat"):
        return "reduction"
    if method == "at" or name.startswith("scatter_") or name == "__setitem__":
        return "scatter/setitem"
    if name in MATMUL or name.startswith("linalg."):
        return "matmul"
    if name in REDUCE:
        return "reduction"
    if name in FILL:
        return "fill"
    if name in COPY or name == "__getitem__":
        return "copy/cast/gather"
    return "elementwise"


def _record(name: str, method: str | None, inplace: bool, args, kwargs, result) -> None:
    if name in NO_KERNEL:
        return
    if not inplace:
        new = _arrays(result)
        if not new:
            return  # metadata (a dtype, a shape, a Python number)
        inputs = _arrays(args) + _arrays(kwargs)
        if all(any(np.shares_memory(n, i) for i in inputs) for n in new):
            return  # a view of an input: no kernel
    label = f"{name}.{method}" if method else name
    if name in ("astype",) and result is not None and type(result) is cp.ndarray:
        label = f"astype->{result.dtype}"
    COUNT.kinds[(COUNT.phase, _kind(name, method), label)] += 1
    COUNT.callers[(COUNT.phase, _caller())] += 1


def _counted(fn, name: str, method: str | None = None, inplace: bool = False, owner=None):
    """``fn`` that records one kernel per outermost call that writes device memory (``owner``:
    the array a bound method belongs to, an input too)."""

    def call(*args, **kwargs):
        if not COUNT.on or COUNT.depth:
            return fn(*args, **kwargs)
        COUNT.depth += 1
        try:
            result = fn(*args, **kwargs)
        finally:
            COUNT.depth -= 1
        writes = inplace or kwargs.get("out") is not None
        _record(name, method, writes, (owner, *args), kwargs, result)
        return result

    return call


def instrument() -> None:
    """Wrap the stand-in's entry points (ufuncs, functions, ndarray methods and operators)."""
    # ufuncs: the call and every method (reduce, at, ...)
    ufunc_call, ufunc_getattr = cp.ufunc.__call__, cp.ufunc.__getattr__

    def u_call(self, *args, **kwargs):
        return _counted(lambda *a, **k: ufunc_call(self, *a, **k), self.name)(*args, **kwargs)

    def u_getattr(self, attr):
        method = ufunc_getattr(self, attr)
        return _counted(method, self.name, attr, inplace=attr == "at")

    cp.ufunc.__call__, cp.ufunc.__getattr__ = u_call, u_getattr

    # module functions (cupy.sum, cupy.zeros, ...): made lazily by _function and cached
    make_function = cp._function
    cp._function = lambda name, np_func: _counted(make_function(name, np_func), name)
    cp._cache.clear()
    for mod in ("linalg", "fft"):  # cupy.linalg.*: wrap the submodule's lookup
        cp._cache.pop(mod, None)
    make_module = cp._wrap_module

    def wrap_module(np_module, name, allowed=None):
        mod = make_module(np_module, name, allowed)
        inner = mod.__getattr__
        short = name.removeprefix("cupy.")
        mod.__getattr__ = lambda attr: (
            _counted(v, f"{short}.{attr}") if callable(v := inner(attr)) else v
        )
        return mod

    cp._wrap_module = wrap_module

    # ndarray methods reached through __getattr__ (astype, sum, copy, fill, ...)
    nd_getattr = cp.ndarray.__getattr__

    def n_getattr(self, attr):
        value = nd_getattr(self, attr)
        if not callable(value):
            return value
        inplace = attr in ("fill", "sort", "put")
        return _counted(value, attr, inplace=inplace, owner=self)

    cp.ndarray.__getattr__ = n_getattr

    # operators, indexing, copies
    operators = {f"__{p}{op}__" for op in _OPERATORS for p in ("", "r", "i")}
    operators |= {"__neg__", "__pos__", "__abs__", "__getitem__", "__setitem__", "__copy__"}
    for name in sorted(operators & set(vars(cp.ndarray))):
        inplace = name == "__setitem__" or (name.startswith("__i") and name[3:-2] in _OPERATORS)
        label = name if name in ("__getitem__", "__setitem__", "__matmul__") else name.strip("_")
        setattr(cp.ndarray, name, _method(vars(cp.ndarray)[name], label, inplace))

    # our own kernels (minigenesis/kernels/cuda.py): one launch per call, whatever the body does
    for cls in (cp.ElementwiseKernel, cp.ReductionKernel):
        kernel_call = cls.__call__

        def k_call(self, *args, _call=kernel_call, **kwargs):
            label = f"kernel {self.name}"
            return _counted(lambda *a, **k: _call(self, *a, **k), label, inplace=True)(
                *args, **kwargs
            )

        cls.__call__ = k_call

    # cupyx.scatter_add and friends (embedding's backward)
    for name in ("scatter_add", "scatter_max", "scatter_min"):
        setattr(cpx, name, _counted(getattr(cpx, name), name, inplace=True))


_OPERATORS = (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor",
    "lshift", "rshift", "eq", "ne", "lt", "le", "gt", "ge", "invert",
)  # fmt: skip


def _method(fn, label: str, inplace: bool):
    counted = _counted(fn, label, inplace=inplace)

    def method(self, *args, **kwargs):
        return counted(self, *args, **kwargs)

    return method


# ----------------------------------------------------------------------------------------------
# Our side: the step
# ----------------------------------------------------------------------------------------------
@contextlib.contextmanager
def phase(name: str):
    COUNT.phase = name
    yield


def count_ours(row: str) -> tuple[collections.Counter, collections.Counter]:
    """Kernels of the second training step of ``row`` on the stand-in."""
    mg.set_default_device("cuda")
    try:
        model, x, y, amp = build(mg, row)
        opt = mg.optim.AdamW(model.parameters(), lr=1e-3)
        F = mg.nn.functional

        def step():
            opt.zero_grad()
            with phase("forward"), mg.autocast("cuda", dtype=mg.bfloat16, enabled=amp):
                out = model(x)
                loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
            with phase("backward"):
                loss.backward()
            with phase("optim"):
                opt.step()

        step()  # warm-up: the optimizer's state is created here
        COUNT.reset()
        COUNT.on = True
        try:
            step()
        finally:
            COUNT.on = False
        return collections.Counter(COUNT.kinds), collections.Counter(COUNT.callers)
    finally:
        mg.set_default_device("cpu")


# ----------------------------------------------------------------------------------------------
# PyTorch's side: leaf aten operators under the profiler
# ----------------------------------------------------------------------------------------------
TORCH_NO_KERNEL = {
    "aten::" + n
    for n in (
        "view", "reshape", "_reshape_alias", "_unsafe_view", "as_strided", "t", "transpose",
        "permute", "expand", "expand_as", "slice", "select", "narrow", "unsqueeze", "squeeze",
        "detach", "detach_", "alias", "empty", "empty_like", "empty_strided", "resize_",
        "unflatten", "flatten", "split", "split_with_sizes", "chunk", "unbind", "lift_fresh",
        "view_as", "contiguous", "to", "numpy_T", "movedim", "set_", "result_type", "size",
        "stride", "is_nonzero", "item", "_local_scalar_dense", "dim", "numel", "is_same_size",
        "_has_compatible_shallow_copy_type", "requires_grad_", "_foreach_copy_",
        "resolve_conj", "resolve_neg", "conj", "_conj", "_neg_view",
    )
}  # fmt: skip


@functools.cache
def _composite(name: str) -> bool:
    """Whether aten operator ``name`` is CompositeImplicitAutograd (its default overload, or
    every overload where it has no default): made of other operators, with no kernel of its own
    on any device (linear, layer_norm, to)."""
    packet = getattr(torch.ops.aten, name.removeprefix("aten::"), None)
    if packet is None:
        return False
    overloads = packet.overloads()
    keys = [name] if "default" in overloads else [f"{name}.{o}" for o in overloads]
    found = []
    for key in keys:
        try:  # TorchScript-only overloads (to.prim_Device) are not in the dispatcher
            found.append(
                torch._C._dispatch_has_kernel_for_dispatch_key(key, "CompositeImplicitAutograd")
            )
        except RuntimeError:
            continue
    return bool(found) and all(found)


def _torch_kernels(event, phase_name: str, out: collections.Counter) -> None:
    """Count the outermost aten operators under ``event`` that have a kernel of their own
    (not composite, not a view): their sub-calls are their implementation and not counted."""
    name = event.name
    if name.startswith("aten::") and not _composite(name):
        if name not in TORCH_NO_KERNEL:
            out[(phase_name, name)] += 1
        return
    for child in event.cpu_children:
        _torch_kernels(child, phase_name, out)


def count_torch(row: str) -> collections.Counter:
    """Leaf aten operators of the second training step of ``row`` on the CPU."""
    model, x, y, amp = build(torch, row)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    F = torch.nn.functional
    rf = torch.autograd.profiler.record_function

    def step():
        opt.zero_grad()
        with rf("phase:forward"), torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            out = model(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        with rf("phase:backward"):
            loss.backward()
        with rf("phase:optim"):
            opt.step()

    step()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        step()
    counts: collections.Counter = collections.Counter()
    for event in prof.events():
        if event.name.startswith("phase:") and event.cpu_parent is None:
            _torch_kernels(event, event.name.removeprefix("phase:"), counts)
    return counts


# ----------------------------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------------------------
def _by_phase(counter: collections.Counter) -> dict[str, int]:
    out = dict.fromkeys(PHASES, 0)
    for key, n in counter.items():
        out[key[0]] += n
    return out


def report(row: str, top: int) -> None:
    try:
        kinds, callers = count_ours(row)
    except Exception as exc:  # a model the stand-in cannot run: say which and why
        print(f"{row}: ours not counted ({type(exc).__name__}: {exc})")
        return
    ours = _by_phase(kinds)
    line = f"{row:<13} ours {sum(ours.values()):5d} (" + " ".join(f"{p} {ours[p]}" for p in PHASES)
    theirs_counts = count_torch(row) if torch is not None else None
    if theirs_counts is not None:
        theirs = _by_phase(theirs_counts)
        line += f")  torch {sum(theirs.values()):5d} (" + " ".join(
            f"{p} {theirs[p]}" for p in PHASES
        )
        line += f")  ratio {sum(ours.values()) / max(1, sum(theirs.values())):.2f}x"
    print(line, flush=True)
    if top <= 0:
        return
    by_kind = collections.Counter()
    for (_, kind, _), n in kinds.items():
        by_kind[kind] += n
    print("  ours by kind: " + ", ".join(f"{k} {n}" for k, n in by_kind.most_common()))
    print("  ours by caller (phase, function in minigenesis):")
    for (ph, caller), n in callers.most_common(top):
        print(f"    {n:5d}  {ph:<8} {caller}")
    print("  ours by array call:")
    merged = collections.Counter()
    for (ph, _, label), n in kinds.items():
        merged[(ph, label)] += n
    for (ph, label), n in merged.most_common(top):
        print(f"    {n:5d}  {ph:<8} {label}")
    if theirs_counts is not None:
        print("  torch by operator:")
        for (ph, name), n in theirs_counts.most_common(top):
            print(f"    {n:5d}  {ph:<8} {name}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("rows", nargs="*", default=ROWS)
    p.add_argument("--top", type=int, default=12, help="lines per breakdown (0: totals only)")
    args = p.parse_args()
    instrument()
    print(
        f"kernels per training step (second step; stand-in {cp.__version__} names, "
        f"torch {getattr(torch, '__version__', 'absent')}: CPU aten ops with a kernel of their own)"
    )
    for row in args.rows:
        report(row, args.top)


if __name__ == "__main__":
    main()
