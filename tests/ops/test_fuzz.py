"""A differential fuzzer over the op database: random programs of 2-4 ops, each drawn from the
entries with one of its own samples' keyword arguments, run on a random float64 input.

Each program runs three ways: in minigenesis, through the entries' float64 NumPy references
(the oracle for the value, and for the gradient by central differences along a random
direction), and in PyTorch when installed (the oracle for the full gradient). Entries with a
known bug in the checks the fuzzer relies on are left out (the battery reports those).

The default run draws programs from a fixed seed for a bounded time; ``-m slow`` runs longer.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pytest

import minigenesis as mg

from . import db_binary, db_reductions, db_unary
from .checks import close
from .core import MG, TORCH, OpEntry, T, outputs, to_host
from .known_failures import known_failure

# Zero or jumping derivatives make central differences meaningless across a jump
_JUMPS = {"floor", "ceil", "trunc", "round", "round/decimals", "sign", "frac", "fmod",
          "remainder", "div/floor", "div/trunc", "heaviside", "nan_to_num"}  # fmt: skip
_RELIED_ON = ("forward", "grad", "torch", "grad_torch", "requires_grad")


def _chainable(entry: OpEntry) -> bool:
    """Float-valued, differentiable, with a reference, and called as ``name(x, ...)``."""
    if not (entry.differentiable and entry.ref is not None and entry.call is None and entry.torch):
        return False
    if entry.id in _JUMPS or entry.dtype in ("bool", "int64"):
        return False
    if any(known_failure(entry.id, check) for check in _RELIED_ON):
        return False
    first = next(iter(entry.samples())).args
    return bool(first) and isinstance(first[0], T) and len(first) <= 2


# the pointwise families and the reductions: any tensor shape is a valid input, so random
# chains of them are valid programs (shape ops, linear algebra and nn need their own shapes)
CHAIN = [
    e for e in (*db_unary.ENTRIES, *db_binary.ENTRIES, *db_reductions.ENTRIES) if _chainable(e)
]
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1, 2)]


@dataclass
class Step:
    entry: OpEntry
    partner: np.ndarray | None  # the second operand's host values, or None
    kwargs: dict

    def __repr__(self) -> str:
        other = "" if self.partner is None else f", <{self.partner.shape}>"
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.entry.id}(x{other}{kw})"


def _valid_dims(kwargs: dict, ndim: int) -> bool:
    dim = kwargs.get("dim")
    dims = dim if isinstance(dim, tuple) else () if dim is None else (dim,)
    return all(-max(ndim, 1) <= d < max(ndim, 1) for d in dims) and len(set(dims)) == len(dims)


def draw_program(rng: np.random.Generator) -> tuple[np.ndarray, list[Step]] | None:
    shape = SHAPES[rng.integers(len(SHAPES))]
    x = rng.uniform(0.2, 1.5, shape)
    steps, current = [], shape
    for _ in range(rng.integers(2, 5)):
        entry = CHAIN[rng.integers(len(CHAIN))]
        samples = [s for s in entry.samples() if s.ref and s.grad]
        s = samples[rng.integers(len(samples))]
        kwargs = dict(s.kwargs)
        if not _valid_dims(kwargs, len(current)):
            continue
        partner = None
        if len(s.args) == 2:
            other = s.args[1]
            if not isinstance(other, T):
                continue
            lo, hi = (
                (float(other.values.min()), float(other.values.max()))
                if other.values.size
                else (0.5, 1.0)
            )
            pshape = [(), current[-1:], current][rng.integers(3)]
            partner = rng.uniform(lo, max(hi, lo + 1e-3), pshape)
        steps.append(Step(entry, partner, kwargs))
        with np.errstate(all="ignore"):
            h = _run_reference(x, steps)
        if np.any(np.abs(h[np.isfinite(h)]) > 1e6):  # sin(pi 7e25): rounding, not the op
            steps.pop()
            continue
        current = np.shape(h)
    return (x, steps) if len(steps) >= 2 else None


def _first(result):
    return outputs(result)[0]


def _run_reference(x: np.ndarray, steps: list[Step]) -> np.ndarray:
    h = x
    for step in steps:
        args = (h,) if step.partner is None else (h, step.partner)
        r = step.entry.ref(*args, **step.kwargs)
        h = np.asarray(r[0] if isinstance(r, tuple) else r, np.float64)
    return h


def _run(lib, x, steps: list[Step]):
    h = x
    for step in steps:
        args = (
            (h,) if step.partner is None else (h, lib.L.tensor(step.partner, dtype=lib.L.float64))
        )
        h = _first(lib.call(step.entry, args, dict(step.kwargs)))
    return h


def check_program(x: np.ndarray, steps: list[Step]) -> list[str]:
    """The program's value against the composed references, its gradient against central
    differences of them and (with PyTorch) against PyTorch's gradient."""
    problems = []
    with np.errstate(all="ignore"):
        want = _run_reference(x, steps)
    leaf = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    try:
        out = _run(MG, leaf, steps)
    except Exception as e:  # noqa: BLE001
        return [f"raised {type(e).__name__}: {e}"]
    bad = close(to_host(out), want, "float64", {"float64": (1e-8, 1e-10)})
    if bad:
        problems.append(f"value: {bad}")
    if not np.all(np.isfinite(want)) or want.size == 0:
        return problems
    rng = np.random.default_rng(0)
    v, u = rng.standard_normal(want.shape), rng.standard_normal(x.shape)
    (grad,) = mg.autograd.grad((out * mg.tensor(v, dtype=mg.float64)).sum(), [leaf])
    ours = to_host(grad)

    def central(eps: float) -> float:
        with np.errstate(all="ignore"):
            plus = (_run_reference(x + eps * u, steps) * v).sum()
            minus = (_run_reference(x - eps * u, steps) * v).sum()
        return (plus - minus) / (2 * eps)

    # two step sizes: where they disagree (near a pole) the difference quotient says nothing
    numeric, coarse = central(1e-6), central(2e-6)
    reliable = np.isfinite(numeric) and abs(numeric - coarse) <= 1e-6 + 1e-5 * abs(numeric)
    analytic = float((ours * u).sum())
    if reliable and abs(analytic - numeric) > 1e-5 + 1e-4 * abs(numeric):
        problems.append(f"gradient: v.J.u = {analytic!r}, central differences {numeric!r}")
    # PyTorch too only where the gradient is well-conditioned: at an ill-conditioned point
    # (sinc of 1e14, where pi * x has lost its fractional digits) both sides are rounding noise
    if TORCH is not None and reliable:
        tleaf = TORCH.L.tensor(x, dtype=TORCH.L.float64, requires_grad=True)
        tout = _run(TORCH, tleaf, steps)
        (tgrad,) = TORCH.L.autograd.grad((tout * TORCH.L.tensor(v)).sum(), [tleaf])
        bad = close(ours, to_host(tgrad), "float64", {"float64": (1e-7, 1e-9)})
        if bad:
            problems.append(f"gradient vs PyTorch: {bad}")
    return problems


def fuzz(seed: int, seconds: float, max_programs: int) -> tuple[int, list[str]]:
    rng = np.random.default_rng(seed)
    start, n, failures = time.monotonic(), 0, []
    while n < max_programs and time.monotonic() - start < seconds:
        program = draw_program(rng)
        if program is None:
            continue
        n += 1
        x, steps = program
        for problem in check_program(x, steps):
            failures.append(f"x{x.shape} -> {' -> '.join(map(repr, steps))}: {problem}")
    return n, failures


def test_random_programs_match_the_references() -> None:
    n, failures = fuzz(seed=0, seconds=15.0, max_programs=2000)
    assert n >= 20, f"only {n} programs ran in the time bound"
    assert not failures, f"{len(failures)} of {n} programs disagree:\n" + "\n".join(failures[:10])


@pytest.mark.slow
def test_many_random_programs_match_the_references() -> None:
    n, failures = fuzz(seed=12345, seconds=300.0, max_programs=20000)
    assert not failures, f"{len(failures)} of {n} programs disagree:\n" + "\n".join(failures[:10])
