"""Differential testing of the nn layer against PyTorch: one random configuration of a module (or
a functional form), built the same in both libraries, run forward and backward on the same input.

A ``Case`` names the target (``"nn.Conv2d"`` or ``"F.interpolate"``), its constructor arguments,
its forward inputs and the dtype. ``run_case`` then

1. builds the module in PyTorch, moves every floating parameter and buffer a little off its
   initial value (a bias of 0 or a BatchNorm weight of 1 would hide a missing term), and loads
   the same state into the minigenesis module (the state_dict keys must agree);
2. runs forward on the same host data in both and compares every output (values, shape, dtype);
3. runs backward of ``sum_i <out_i, w_i>`` with the same random ``w_i`` and compares the
   gradients of every input and every parameter, and every buffer afterwards (running
   statistics, ``num_batches_tracked``);
4. where PyTorch raises (constructor or forward), expects minigenesis to raise too.

Each finding is a line of text; ``run_case`` returns the list (empty when both libraries agree).
Tolerances: float64 results must agree to ~1e-9 of their scale (both compute the same formula,
only the summation order differs), float32 ones to ~1e-4 of their scale.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

import minigenesis as mg

# max |ours - theirs| / (max |theirs| + 1) allowed, per dtype
TOL = {"float64": 1e-9, "float32": 2e-4}


@dataclass
class T:
    """A tensor input: host data, its kind (float | long | bool), whether it needs a gradient."""

    data: np.ndarray
    kind: str = "float"
    grad: bool = True


@dataclass
class Packed:
    """A PackedSequence input, made by ``pack_padded_sequence`` in each library."""

    data: T
    lengths: list
    batch_first: bool = False
    enforce_sorted: bool = True


@dataclass
class Case:
    target: str  # "nn.Name" (module) or "F.name" (function)
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)  # forward's positional args (T, Packed or values)
    call_kwargs: dict = field(default_factory=dict)  # forward's keyword args
    dtype: str = "float64"
    train: bool = True
    input_dtype: str | None = None  # the inputs' dtype where it differs from the module's
    backward: bool = True

    def __str__(self) -> str:
        def show(v: Any) -> str:
            if isinstance(v, T):
                return f"T{tuple(v.data.shape)}:{v.kind}{'' if v.grad else ',nograd'}"
            if isinstance(v, Packed):
                return f"Packed({show(v.data)}, {v.lengths}, bf={v.batch_first})"
            return repr(v)

        ins = ", ".join(show(v) for v in self.inputs)
        kw = ", ".join(f"{k}={show(v)}" for k, v in self.call_kwargs.items())
        mode = ("" if self.train else " eval") + (
            f" input {self.input_dtype}" if self.input_dtype else ""
        )
        return (
            f"{self.target}(*{self.args!r}, **{self.kwargs!r})[{self.dtype}{mode}]"
            f"({ins}{', ' if ins and kw else ''}{kw})"
        )


class _Lib:
    """What differs between the two libraries when a case is built and run."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib
        self.is_torch = lib is torch
        self.nn = lib.nn
        self.F = lib.nn.functional
        self.leaves: list = []

    def tensor(self, t: T, dtype: str) -> Any:
        if t.kind == "long":
            x = self.lib.tensor(np.asarray(t.data, dtype=np.int64))
        elif t.kind == "bool":
            x = self.lib.tensor(np.asarray(t.data, dtype=bool))
        else:
            x = self.lib.tensor(
                np.asarray(t.data, dtype=np.float64), dtype=getattr(self.lib, dtype)
            )
            if t.grad:
                x.requires_grad_(True)
                self.leaves.append(x)
                return x
        self.leaves.append(None)
        return x

    def value(self, v: Any, dtype: str) -> Any:
        if isinstance(v, T):
            return self.tensor(v, dtype)
        if isinstance(v, Packed):
            x = self.tensor(v.data, dtype)
            return self.nn.utils.rnn.pack_padded_sequence(
                x, self.lib.tensor(v.lengths), v.batch_first, v.enforce_sorted
            )
        if isinstance(v, tuple) and any(isinstance(e, (T, Packed)) for e in v):
            return tuple(self.value(e, dtype) for e in v)
        return v


def host(x: Any) -> Any:
    """float64/int/bool host array of a tensor of either library (None stays None)."""
    if x is None or isinstance(x, (int, float, bool)):
        return x
    x = x.detach()
    if x.is_floating_point():
        x = x.double()
    return np.asarray(x.numpy())


def _flatten(out: Any) -> list:
    """Every tensor (or None) in a forward's output, PackedSequence as (data, batch_sizes)."""
    if isinstance(out, (tuple, list)) and not hasattr(out, "batch_sizes"):
        return [t for o in out for t in _flatten(o)]
    if hasattr(out, "batch_sizes"):
        return [out.data, out.batch_sizes]
    return [out]


def compare(what: str, ours: Any, theirs: Any, dtype: str, scale: float = 1.0) -> list:
    """Findings of one output/gradient/buffer comparison (empty when they agree)."""
    if theirs is None or ours is None:
        if (theirs is None) != (ours is None):
            return [
                f"{what}: ours {'None' if ours is None else 'a value'}, torch's "
                f"{'None' if theirs is None else 'a value'}"
            ]
        return []
    if isinstance(theirs, (int, float, bool)):
        if not isinstance(ours, (int, float, bool)) or not np.isclose(ours, theirs, equal_nan=True):
            return [f"{what}: ours {ours!r}, torch {theirs!r}"]
        return []
    if not hasattr(ours, "shape"):
        return [f"{what}: ours is {type(ours).__name__}, torch's a tensor"]
    found = []
    t_dt = str(theirs.dtype).replace("torch.", "")
    m_dt = ours.dtype.name if hasattr(ours.dtype, "name") else str(ours.dtype)
    if t_dt != m_dt:
        found.append(f"{what} dtype: ours {m_dt}, torch {t_dt}")
    if tuple(ours.shape) != tuple(theirs.shape):
        return [*found, f"{what} shape: ours {tuple(ours.shape)}, torch {tuple(theirs.shape)}"]
    a, b = host(ours), host(theirs)
    if a.size == 0:
        return found
    if b.dtype.kind in "biu":
        if not np.array_equal(a, b):
            found.append(f"{what}: integer values differ ({np.sum(a != b)} of {a.size})")
        return found
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    if not np.array_equal(nan_a, nan_b):
        found.append(f"{what}: NaN in ours at {np.sum(nan_a)}, in torch's at {np.sum(nan_b)}")
        return found
    fin = np.isfinite(b) & ~nan_a
    if not np.array_equal(a[~fin & ~nan_b], b[~fin & ~nan_b]):
        found.append(f"{what}: infinities differ")
    if fin.any():
        err = np.max(np.abs(a[fin] - b[fin])) / (np.max(np.abs(b[fin])) + scale)
        # mixed float32/float64 inputs: float32 roundings reach a float64 result
        tol = TOL["float32"] if dtype == "mixed" else TOL.get(t_dt, TOL["float32"])
        if not err <= tol:
            found.append(f"{what}: relative error {err:.3g}")
    return found


def _outcome(fn: Callable) -> tuple:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(), None
    except Exception as e:  # noqa: BLE001 - any error is an outcome to compare
        return None, e


def _perturb_state(module: Any, rng: np.random.Generator) -> None:
    """Move the torch module's floating state off its initial values (in place)."""
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.tensor(rng.standard_normal(tuple(p.shape)) * 0.2, dtype=p.dtype))
        for name, b in module.named_buffers():
            if b is None or not b.is_floating_point():
                continue
            shape = tuple(b.shape)
            if name.endswith("running_var"):
                b.copy_(torch.tensor(rng.uniform(0.5, 1.5, shape), dtype=b.dtype))
            elif name.endswith("running_mean"):
                b.copy_(torch.tensor(rng.standard_normal(shape) * 0.3, dtype=b.dtype))


def _load_state(m_module: Any, t_module: Any) -> list:
    t_state = t_module.state_dict()
    m_keys = sorted(m_module.state_dict())
    if m_keys != sorted(t_state):
        return [f"state_dict keys: ours {m_keys}, torch {sorted(t_state)}"]
    state = {}
    for k, v in t_state.items():
        dt = str(v.dtype).replace("torch.", "")
        state[k] = mg.tensor(host(v), dtype=getattr(mg, dt))
    m_module.load_state_dict(state)
    return []


def _build(lib: _Lib, case: Case) -> Any:
    kind, name = case.target.split(".", 1)
    if kind == "F":
        return getattr(lib.F, name)
    if kind == "X":
        return lambda *a, **k: CUSTOM[name](lib, *a, **k)
    module = getattr(lib.nn, name)(*case.args, **case.kwargs)
    module.to(getattr(lib.lib, case.dtype))
    module.train(case.train)
    return module


def _forward(lib: _Lib, case: Case, fn: Any) -> Any:
    lib.leaves = []
    dtype = case.input_dtype or case.dtype
    ins = [lib.value(v, dtype) for v in case.inputs]
    kw = {k: lib.value(v, dtype) for k, v in case.call_kwargs.items()}
    if not case.target.startswith("nn."):
        return fn(*ins, *case.args, **kw, **case.kwargs)
    return fn(*ins, **kw)


def _error_findings(stage: str, m_err: Any, t_err: Any) -> list:
    if t_err is not None and m_err is None:
        return [f"{stage}: torch raised {type(t_err).__name__}: {str(t_err)[:120]!r}, ours ran"]
    if t_err is None and m_err is not None:
        return [f"{stage}: ours raised {type(m_err).__name__}: {str(m_err)[:160]!r}, torch ran"]
    return []


def _tolerance_dtype(case: Case) -> str:
    """The dtype whose tolerance applies: "mixed" when inputs and module differ in dtype."""
    return "mixed" if case.input_dtype not in (None, case.dtype) else case.dtype


def run_case(case: Case, seed: int = 0) -> list:
    """Every disagreement between minigenesis and PyTorch on ``case`` (see the module doc)."""
    rng = np.random.default_rng(seed)
    ml, tl = _Lib(mg), _Lib(torch)
    torch.manual_seed(seed)
    t_mod, t_err = _outcome(lambda: _build(tl, case))
    m_mod, m_err = _outcome(lambda: _build(ml, case))
    if t_err is not None or m_err is not None:
        return _error_findings("constructor", m_err, t_err)
    is_module = case.target.startswith("nn.")
    if is_module:
        _perturb_state(t_mod, rng)
        found = _load_state(m_mod, t_mod)
        if found:
            return found
    t_out, t_err = _outcome(lambda: _forward(tl, case, t_mod))
    m_out, m_err = _outcome(lambda: _forward(ml, case, m_mod))
    if t_err is not None or m_err is not None:
        return _error_findings("forward", m_err, t_err)
    t_outs, m_outs = _flatten(t_out), _flatten(m_out)
    if len(t_outs) != len(m_outs):
        return [f"output count: ours {len(m_outs)}, torch {len(t_outs)}"]
    found = []
    for i, (a, b) in enumerate(zip(m_outs, t_outs)):
        found += compare(f"output {i}", a, b, _tolerance_dtype(case))
    if found:
        return found
    if is_module:
        m_buf = dict(m_mod.named_buffers())
        for name, b in t_mod.named_buffers():
            found += compare(f"buffer {name}", m_buf.get(name), b, _tolerance_dtype(case))
        m_par = dict(m_mod.named_parameters())  # forward may write them (Embedding's max_norm)
        for name, p in t_mod.named_parameters():
            found += compare(
                f"parameter {name} after forward", m_par.get(name), p, _tolerance_dtype(case)
            )
    if case.backward:
        found += _backward(case, rng, ml, tl, m_mod, t_mod, m_outs, t_outs)
    return found


def _backward(case, rng, ml, tl, m_mod, t_mod, m_outs, t_outs) -> list:
    """Backward of sum <out_i, w_i> over the floating outputs that need a gradient."""
    t_loss, m_loss = None, None
    for a, b in zip(m_outs, t_outs):
        if b is None or isinstance(b, (int, float)) or not b.requires_grad:
            continue
        w = rng.standard_normal(tuple(b.shape))
        t_term = (b * torch.tensor(w, dtype=b.dtype)).sum()
        m_term = (a * mg.tensor(w, dtype=a.dtype)).sum()
        t_loss = t_term if t_loss is None else t_loss + t_term
        m_loss = m_term if m_loss is None else m_loss + m_term
    if t_loss is None:
        return []
    _, t_err = _outcome(t_loss.backward)
    _, m_err = _outcome(m_loss.backward)
    if t_err is not None or m_err is not None:
        return _error_findings("backward", m_err, t_err)
    found = []
    for i, (a, b) in enumerate(zip(ml.leaves, tl.leaves)):
        if b is not None:
            found += compare(f"grad of input {i}", a.grad, b.grad, _tolerance_dtype(case))
    if case.target.startswith("nn."):
        m_par = dict(m_mod.named_parameters())
        for name, p in t_mod.named_parameters():
            mp = m_par.get(name)
            found += compare(
                f"grad of {name}", None if mp is None else mp.grad, p.grad, _tolerance_dtype(case)
            )
    return found


def _max_unpool(lib: _Lib, x: Any, d: int, k: int, s: int) -> Any:
    """Max pooling with indices, then unpooling to the input's size."""
    y, idx = getattr(lib.F, f"max_pool{d}d")(x, k, s, return_indices=True)
    return getattr(lib.F, f"max_unpool{d}d")(y, idx, k, s, output_size=x.shape[-d:])


def _ctc(lib: _Lib, x: Any, *args: Any, **kwargs: Any) -> Any:
    """CTC loss of log_softmax(x): PyTorch's backward with respect to log_probs adds
    exp(log_probs) (which cancels through log_softmax), so only this gradient is comparable."""
    return lib.F.ctc_loss(x.log_softmax(-1), *args, **kwargs)


def _inplace_activation(lib: _Lib, x: Any, name: str, kwargs: dict) -> Any:
    """An activation module with inplace=True applied to x * 1: (its output, the written
    tensor), which must be equal, and a gradient that flows back to x."""
    y = x * 1.0
    out = getattr(lib.nn, name)(**kwargs, inplace=True)(y)
    return out, y


# Targets "X.name": small programs over several functions, called as CUSTOM[name](lib, ...)
CUSTOM: dict = {"max_unpool": _max_unpool, "ctc": _ctc, "inplace_activation": _inplace_activation}


def sweep(generators: dict, n: int, seed0: int = 0, known: Callable | None = None) -> list:
    """Run ``n`` random cases of each generator; the findings as ``(case, seed, problems)``."""
    report = []
    for name, gen in generators.items():
        for k in range(n):
            seed = seed0 + k
            rng = np.random.default_rng([seed0, k, *name.encode()])
            case = gen(rng)
            problems = run_case(case, seed=seed)
            if known is not None:
                problems = [p for p in problems if not known(case, p)]
            if problems:
                report.append((name, case, problems))
    return report
