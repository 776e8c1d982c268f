"""The battery's derivative checks, along random directions as PyTorch's fast gradcheck does:
for outputs y = f(x), random v (per output) and u (per input), backward's  v^T J u  must match
the central difference  v . (f(x + eps u) - f(x - eps u)) / (2 eps)  in float64; the second
derivative is the same check applied to  x -> w . grad(v . f)(x).  Two forwards per derivative
instead of one per input element keep the battery fast.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import minigenesis as mg

from .core import (
    MG,
    TORCH,
    Lib,
    OpEntry,
    Sample,
    T,
    close,
    describe_error,
    outputs,
    run,
    tensor_specs,
    to_host,
)


# ---------------------------------------------------------------------------------- gradients
def _grad_specs(sample: Sample) -> list[T]:
    return [t for t in tensor_specs(sample) if t.is_float and t.grad]


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
            fails.append(f"{s}: raised {describe_error(e)}")
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
            fails.append(f"{s}: raised {describe_error(e)}")
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
            fails.append(f"{s}: raised {describe_error(e)} (PyTorch computes the gradient)")
            continue
        for k, (a, b) in enumerate(zip(ours, theirs)):
            bad = close(a, b, "float64", {"float64": (1e-7, 1e-9)})
            if bad:
                fails.append(f"{s}: gradient {k}: {bad} (ours != PyTorch's)")
    return fails
