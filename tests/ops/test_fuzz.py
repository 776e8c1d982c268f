"""A differential fuzzer over the op database: random programs of 2-5 steps, each step an entry
of the database - a pointwise op or a reduction with one of its own samples' keyword arguments,
or a structural step drawn for the shape it receives (``fuzz_steps.py``: reshape, permute,
transpose, expand, narrow, matmul, linear, softmax, log_softmax) - optionally ending in a loss
(mse, l1, smooth l1, huber, BCE with logits, cross-entropy with class indices).

A float64 program runs three ways: in minigenesis, through the entries' float64 NumPy
references (the oracle for the value, and for the gradient by central differences along a random
direction), and in PyTorch when installed (the oracle for the full gradient). A float32 or
bfloat16 program must keep its dtype and match the float64 reference of its rounded inputs
within what rounding explains (``check_low_precision``). Entries with a known bug in the checks
the fuzzer relies on are left out (the battery reports those).

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
from .core import MG, TORCH, OpEntry, T, dtype_name, outputs, to_host
from .database import BY_ID
from .fuzz_steps import LOSSES, SHAPE_STEPS
from .known_failures import known_failure

# Zero or jumping derivatives make central differences meaningless across a jump
_JUMPS = {"floor", "ceil", "trunc", "round", "round/decimals", "sign", "frac", "fmod",
          "remainder", "div/floor", "div/trunc", "heaviside", "nan_to_num"}  # fmt: skip
_RELIED_ON = ("forward", "grad", "torch", "grad_torch", "requires_grad")


def _known_bad(entry: OpEntry) -> bool:
    return any(known_failure(entry.id, check) for check in _RELIED_ON)


def _chainable(entry: OpEntry) -> bool:
    """Float-valued, differentiable, with a reference, and called as ``name(x, ...)``."""
    if not (entry.differentiable and entry.ref is not None and entry.call is None and entry.torch):
        return False
    if entry.id in _JUMPS or entry.dtype in ("bool", "int64"):
        return False
    if _known_bad(entry):
        return False
    first = next(iter(entry.samples())).args
    return bool(first) and isinstance(first[0], T) and len(first) <= 2


# the pointwise families and the reductions: any tensor shape is a valid input, so random
# chains of them are valid programs; the structural steps (fuzz_steps.py: shape ops, products,
# softmax, losses) are drawn for the shape they receive
CHAIN = [
    e for e in (*db_unary.ENTRIES, *db_binary.ENTRIES, *db_reductions.ENTRIES) if _chainable(e)
]
STRUCTURAL = {i: d for i, d in SHAPE_STEPS.items() if not _known_bad(BY_ID[i])}
ENDINGS = {i: d for i, d in LOSSES.items() if not _known_bad(BY_ID[i])}
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1, 2), (3, 4)]
# the program's dtypes: float64 (value, gradient by central differences and PyTorch), float32
# and bfloat16 (value and dtype against the float64 reference of the rounded inputs)
DTYPES = ("float64", "float64", "float32", "bfloat16")
_FLOAT64_OUT = "float_power"  # computes in float64 whatever its inputs: not a low-precision step
_CANCELS = ("log_softmax", "F.cross_entropy")  # subtract a logsumexp of the same size
UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "bfloat16": 2.0**-8}


@dataclass
class Step:
    entry: OpEntry
    extra: tuple  # the arguments after the input (arrays become tensors)
    kwargs: dict

    def __repr__(self) -> str:
        def show(a):
            return f"<{a.shape}>" if isinstance(a, np.ndarray) else repr(a)

        args = "".join(f", {show(a)}" for a in self.extra)
        kw = "".join(f", {k}={v!r}" for k, v in self.kwargs.items())
        return f"{self.entry.id}(x{args}{kw})"


def _valid_dims(kwargs: dict, ndim: int) -> bool:
    dim = kwargs.get("dim")
    dims = dim if isinstance(dim, tuple) else () if dim is None else (dim,)
    return all(-max(ndim, 1) <= d < max(ndim, 1) for d in dims) and len(set(dims)) == len(dims)


def _pointwise_step(rng: np.random.Generator, current: tuple) -> Step | None:
    entry = CHAIN[rng.integers(len(CHAIN))]
    samples = [s for s in entry.samples() if s.ref and s.grad]
    s = samples[rng.integers(len(samples))]
    kwargs = dict(s.kwargs)
    if not _valid_dims(kwargs, len(current)):
        return None
    if len(s.args) == 1:
        return Step(entry, (), kwargs)
    other = s.args[1]
    if not isinstance(other, T):
        return None
    lo, hi = (
        (float(other.values.min()), float(other.values.max())) if other.values.size else (0.5, 1.0)
    )
    pshape = [(), current[-1:], current][rng.integers(3)]
    return Step(entry, (rng.uniform(lo, max(hi, lo + 1e-3), pshape),), kwargs)


def _drawn_step(rng: np.random.Generator, current: tuple, steps: dict) -> Step | None:
    name = list(steps)[rng.integers(len(steps))]
    drawn = steps[name](rng, current)
    return None if drawn is None else Step(BY_ID[name], *drawn)


def draw_program(rng: np.random.Generator) -> tuple[np.ndarray, list[Step], str] | None:
    """A random input, 2-5 steps (pointwise, reductions, structural ones, maybe a loss last)
    and the dtype it runs in."""
    dtype = DTYPES[rng.integers(len(DTYPES))]
    shape = SHAPES[rng.integers(len(SHAPES))]
    x = rng.uniform(0.2, 1.5, shape)
    steps: list[Step] = []
    current = shape
    for _ in range(rng.integers(2, 6)):
        if rng.random() < 0.35:
            step = _drawn_step(rng, current, STRUCTURAL)
        else:
            step = _pointwise_step(rng, current)
        if step is None or not _extend(x, steps, step):
            continue
        current = np.shape(_run_reference(x, steps))
    if rng.random() < 0.3:
        step = _drawn_step(rng, current, ENDINGS)
        if step is not None:
            _extend(x, steps, step)
    if dtype != "float64" and any(s.entry.id.startswith(_FLOAT64_OUT) for s in steps):
        dtype = "float64"
    return (x, steps, dtype) if len(steps) >= 2 else None


def _extend(x: np.ndarray, steps: list[Step], step: Step) -> bool:
    """Append the step unless its values blow up (sin(pi 7e25): rounding, not the op)."""
    steps.append(step)
    with np.errstate(all="ignore"):
        h = _run_reference(x, steps)
    if np.any(np.abs(h[np.isfinite(h)]) > 1e6):
        steps.pop()
        return False
    return True


def _first(result):
    return outputs(result)[0]


def _run_reference(
    x: np.ndarray, steps: list[Step], dtype: str = "float64", shake=None
) -> np.ndarray:
    """The float64 references composed, on the inputs rounded to the program's dtype;
    ``shake(array)``, where given, moves every input and intermediate value (a model of the
    roundings of a low-precision run)."""
    shake = shake or (lambda a, scale=0.0: a)
    h = shake(_rounded(x, dtype))
    for step in steps:
        extra = tuple(shake(_rounded(a, dtype)) for a in step.extra)
        r = step.entry.ref(h, *extra, **step.kwargs)
        # x - logsumexp(x) cancels: its rounding is relative to the input's size, not its own
        scale = float(np.abs(h).max(initial=0.0)) if step.entry.id in _CANCELS else 0.0
        h = shake(np.asarray(r[0] if isinstance(r, tuple) else r, np.float64), scale)
    return h


def _rounded(a, dtype: str):
    """A float array as the dtype holds it (through float32, as the database builds tensors)."""
    if not (isinstance(a, np.ndarray) and a.dtype.kind == "f") or dtype == "float64":
        return a
    return to_host(mg.tensor(np.asarray(a, np.float32)).to(getattr(mg, dtype)))


def _run(lib, x, steps: list[Step], dtype: str = "float64"):
    def arg(a):
        if not isinstance(a, np.ndarray):
            return a
        if a.dtype.kind != "f":
            return lib.L.tensor(a, dtype=lib.L.int64)
        if dtype == "float64":
            return lib.L.tensor(a, dtype=lib.L.float64)
        return lib.L.tensor(np.asarray(a, np.float32)).to(getattr(lib.L, dtype))

    h = x
    for step in steps:
        h = _first(lib.call(step.entry, (h, *map(arg, step.extra)), dict(step.kwargs)))
    return h


def check_program(x: np.ndarray, steps: list[Step], dtype: str = "float64") -> list[str]:
    """The program's value against the composed references, its gradient against central
    differences of them and (with PyTorch) against PyTorch's gradient; float32 and bfloat16
    programs: their dtype, and their value within what rounding can explain."""
    if dtype != "float64":
        return check_low_precision(x, steps, dtype)
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


def check_low_precision(x: np.ndarray, steps: list[Step], dtype: str) -> list[str]:
    """A float32 / bfloat16 program keeps its dtype, and its value is the float64 reference's
    (of the rounded inputs) up to rounding: the tolerance is how far the reference moves when
    every input and every intermediate value is moved by up to the dtype's unit roundoff (the
    program's conditioning, step by step), with a margin, plus a few roundings of the result."""
    with np.errstate(all="ignore"):
        want = _run_reference(x, steps, dtype)
    try:
        out = _run(MG, MG._base(x, dtype), steps, dtype)
    except Exception as e:  # noqa: BLE001
        return [f"{dtype}: raised {type(e).__name__}: {e}"]
    if dtype_name(out) != dtype:
        return [f"{dtype}: the result is {dtype_name(out)}"]
    if not np.all(np.isfinite(want)):
        return []
    got, u = to_host(out), UNIT_ROUNDOFF[dtype]
    rng = np.random.default_rng(1)

    def shake(a, scale: float = 0.0):
        if not (isinstance(a, np.ndarray) and a.dtype.kind == "f"):
            return a
        return a * (1 + u * rng.uniform(-1, 1, a.shape)) + scale * u * rng.uniform(-1, 1, a.shape)

    spread = np.zeros_like(want)
    for _ in range(6):
        with np.errstate(all="ignore"):
            spread = np.maximum(spread, np.abs(_run_reference(x, steps, dtype, shake) - want))
    tol = 8 * spread + 8 * u * np.abs(want) + 4 * u
    # where rounding alone moves the value by a quarter of itself (next to a pole: lgamma of a
    # sum that cancels to 0 in bfloat16) the dtype cannot give the value: any result is fair
    tol = np.where(spread > 0.25 * np.abs(want), np.inf, tol)
    if np.isnan(got).any() or np.any(np.abs(got - want) > tol):
        i = np.unravel_index(np.argmax(np.abs(got - want) - tol), want.shape) if want.ndim else ()
        return [f"{dtype}: at {i}: {got[i]!r} != {want[i]!r} (tolerance {tol[i]:.3g})"]
    return []


def fuzz(seed: int, seconds: float, max_programs: int) -> tuple[int, list[str]]:
    rng = np.random.default_rng(seed)
    start, n, failures = time.monotonic(), 0, []
    while n < max_programs and time.monotonic() - start < seconds:
        program = draw_program(rng)
        if program is None:
            continue
        n += 1
        x, steps, dtype = program
        for problem in check_program(x, steps, dtype):
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
