"""Checks for chapter 3. Oracles: np.broadcast_shapes, minigenesis's autograd (float64), and
closed-form derivatives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 3.1  return np.broadcast_shapes(a, b) (the oracle)              -> by-hand watch, error message
#      max of the sizes without the 1-rule check ((2,3) vs (4,) -> (2,4))  -> rejects incompatible
# 3.2  x broadcast in minigenesis, backward, return x.grad        -> by-hand watch
#      sum the leading dims only (misses the kept size-1 dims)     -> minigenesis engine shapes
# 3.3  forward difference (f(x + eps) - f(x)) / eps               -> closed forms (rtol 1e-7)
#      central difference that perturbs the caller's x in place    -> caller's array untouched
# 3.4  minigenesis autograd on x @ w.T + b                        -> by-hand watch
#      gb = grad_out, not summed over the batch                    -> shapes vs minigenesis
#      grad_out *= ... or x -= ... in place                        -> inputs left alone
#      grad_out @ w.T or x.T @ grad_out (shapes fit when w is square) -> square w vs minigenesis
# 3.5  softmax rebuilt in minigenesis from log(y), backward      -> by-hand watch
#      y * grad_out (the Jacobian's diagonal only)                 -> minigenesis, constant shift
#      grad_out -= ...; grad_out *= y (the caller's gradient changed) -> inputs left alone

# hypothesis imports libcst when a test fails (to suggest an @example), which warns on import.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:libcst.*")

# Random shapes, reproducible, without the "explain" phase (slow, noisy warnings for a stub).
RANDOM_SHAPES = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
)


def _by_hand(call, forbidden, what: str):
    """Run ``call()`` watching that nothing of the ``forbidden`` packages runs inside it."""
    with watch_calls() as seen:
        result = call()
    used = [x for module in forbidden for x in seen.used(module)]
    assert not used, f"{what} ({', '.join(Path(u).name for u in used)})"
    return result


# Pairs of broadcast-compatible shapes: a base shape, and two copies with dims dropped from the
# left or set to 1 at random.
_dims = st.lists(st.integers(1, 4), min_size=0, max_size=4)


@st.composite
def _compatible_shapes(draw):
    base = draw(_dims)
    shapes = []
    for _ in range(2):
        drop = draw(st.integers(0, len(base)))
        shape = [1 if draw(st.booleans()) else n for n in base[drop:]]
        shapes.append(tuple(shape))
    return tuple(base), shapes[0], shapes[1]


SHAPE_PAIRS = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((2, 1), (1, 4)),
    ((5, 1, 4), (3, 1)),
    ((), (2, 2)),
    ((1,), (0,)),
    ((4, 1, 1), (1, 3, 2)),
    ((2, 3, 4), (2, 1, 4)),
]


@pytest.mark.exercise("3.1")
@pytest.mark.parametrize("a, b", SHAPE_PAIRS)
def test_broadcast_shape_matches_numpy(impl, a, b):
    for s, t in ((a, b), (b, a)):
        got, want = tuple(impl.broadcast_shape(s, t)), np.broadcast_shapes(s, t)
        assert got == want, f"broadcast_shape({s}, {t}) gave {got}, NumPy gives {want}" + (
            ": a size-1 dim takes the other size, even 0 (not the larger)" if 0 in want else ""
        )


@pytest.mark.exercise("3.1")
@RANDOM_SHAPES
@given(_compatible_shapes())
def test_broadcast_shape_random_shapes(impl, shapes):
    _, a, b = shapes
    got, want = tuple(impl.broadcast_shape(a, b)), np.broadcast_shapes(a, b)
    assert got == want, f"broadcast_shape({a}, {b}) gave {got}, NumPy gives {want}" + (
        ": a size-1 dim takes the other size, even 0 (not the larger)" if 0 in want else ""
    )


@pytest.mark.exercise("3.1")
@pytest.mark.parametrize("a, b", [((2, 3), (4,)), ((2, 1, 3), (2, 2)), ((0,), (2,))])
def test_broadcast_shape_rejects_incompatible_shapes(impl, a, b):
    with pytest.raises(ValueError, match=r"\(2"):
        impl.broadcast_shape(a, b)


@pytest.mark.exercise("3.2")
@pytest.mark.parametrize(
    "shape, big",
    [((3,), (4, 3)), ((4, 1), (4, 5)), ((1, 5), (2, 3, 5)), ((), (2, 3)), ((2, 3), (2, 3)),
     ((1, 1), (3, 1, 4))],
)  # fmt: skip
def test_sum_to_matches_minigenesis_engine(impl, shape, big):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal(shape), dtype=mg.float64, requires_grad=True)
    upstream = rng.standard_normal(big)
    # x broadcast up to `big`; the engine sums the upstream gradient back to x's shape
    (x + mg.zeros(*big, dtype=mg.float64)).backward(mg.tensor(upstream, dtype=mg.float64))
    got = impl.sum_to(upstream, shape)
    assert got.shape == shape, (
        f"sum_to(grad of shape {big}, {shape}) returned shape {got.shape}: sum over the leading "
        "dims broadcasting added AND over the dims where the target shape has a 1 (keep those as 1)"
    )
    np.testing.assert_allclose(got, x.grad.numpy(), rtol=1e-12)


@pytest.mark.exercise("3.2")
@RANDOM_SHAPES
@given(_compatible_shapes())
def test_sum_to_random_shapes(impl, shapes):
    """Summing a broadcast array of ones back counts how many copies each element got."""
    base, small, _ = shapes
    grad = np.ones(base)
    copies = np.prod(base) / max(np.prod(small), 1) if base else 1.0
    got = impl.sum_to(grad, small)
    assert got.shape == small, (
        f"sum_to(grad of shape {tuple(base)}, {small}) returned shape {got.shape}: sum over the "
        "leading dims broadcasting added AND over the dims where the target shape has a 1"
    )
    np.testing.assert_allclose(got, np.full(small, copies))


@pytest.mark.exercise("3.3")
def test_numerical_grad_of_closed_forms(impl):
    x = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])
    before = x.copy()
    g = impl.numerical_grad(lambda v: float((v**3).sum()), x)
    np.testing.assert_array_equal(
        x,
        before,
        err_msg="numerical_grad changed the caller's x: perturb a copy, or put each "
        "element back exactly (x[i] += eps then x[i] -= 2 * eps leaves rounding behind)",
    )
    assert g.shape == x.shape
    np.testing.assert_allclose(g, 3 * x**2, rtol=1e-7)
    g = impl.numerical_grad(lambda v: float(np.sin(v).prod()), x)
    expected = np.cos(x) * np.sin(x).prod() / np.sin(x)
    np.testing.assert_allclose(g, expected, rtol=1e-6)


@pytest.mark.exercise("3.3")
def test_numerical_grad_agrees_with_minigenesis(impl):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4))
    t = mg.tensor(a, dtype=mg.float64, requires_grad=True)
    (t.tanh() * t).logsumexp(dim=1).sum().backward()

    def f(v):
        return float((mg.tensor(v).tanh() * mg.tensor(v)).logsumexp(dim=1).sum())

    np.testing.assert_allclose(impl.numerical_grad(f, a), t.grad.numpy(), rtol=1e-6, atol=1e-8)


@pytest.mark.exercise("3.4")
@pytest.mark.parametrize(("n_in", "n_out"), [(3, 4), (4, 4)])
def test_linear_backward_matches_minigenesis(impl, n_in: int, n_out: int):
    """Also with a square w, where every transpose has the right shape and only the values
    tell w from w.T (and grad_out.T @ x from x.T @ grad_out)."""
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((5, n_in)), rng.standard_normal((n_out, n_in))
    b, g = rng.standard_normal(n_out), rng.standard_normal((5, n_out))
    tx, tw, tb = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (x, w, b))
    (tx @ tw.T + tb).backward(mg.tensor(g, dtype=mg.float64))
    got = impl.linear_backward(x, w, b, g)
    for name, mine, t in zip(("dL/dx", "dL/dw", "dL/db"), got, (tx, tw, tb)):
        assert mine.shape == t.shape, (
            f"{name} has shape {mine.shape}, not its input's {tuple(t.shape)}"
            + (
                ": b was broadcast over the N rows, so sum grad_out over them"
                if "b" in name
                else ""
            )
        )
        np.testing.assert_allclose(
            mine,
            t.grad.numpy(),
            rtol=1e-12,
            err_msg=f"{name} has the right shape but wrong values"
            + (": with a square w a transpose has the right shape" if n_in == n_out else ""),
        )


@pytest.mark.exercise("3.5")
def test_softmax_backward_matches_minigenesis(impl):
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 3, 5))
    t = mg.tensor(x, dtype=mg.float64, requires_grad=True)
    y = t.softmax(dim=-1)
    y.backward(mg.tensor(g, dtype=mg.float64))
    got = impl.softmax_backward(y.detach().numpy(), g)
    np.testing.assert_allclose(got, t.grad.numpy(), rtol=1e-10, atol=1e-14)


def _leaves_inputs_alone(name: str, call, **arrays: np.ndarray) -> None:
    kept = {k: a.copy() for k, a in arrays.items()}
    call()
    changed = [k for k, a in arrays.items() if not np.array_equal(a, kept[k])]
    assert not changed, (
        f"{name} changed {', '.join(changed)} in place (`-=`, `*=`, `out=`): the gradient "
        "a backward receives is shared with the graph's other branches, and the saved tensors "
        "are needed again; compute into new arrays"
    )


@pytest.mark.exercise("3.4")
def test_linear_backward_leaves_its_inputs_alone(impl):
    rng = np.random.default_rng(6)
    x, w, b, g = (rng.standard_normal(s) for s in [(5, 3), (4, 3), (4,), (5, 4)])
    _leaves_inputs_alone(
        "linear_backward", lambda: impl.linear_backward(x, w, b, g), x=x, w=w, b=b, grad_out=g
    )


@pytest.mark.exercise("3.5")
def test_softmax_backward_leaves_its_inputs_alone(impl):
    rng = np.random.default_rng(7)
    x, g = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    y = np.exp(x) / np.exp(x).sum(-1, keepdims=True)
    _leaves_inputs_alone("softmax_backward", lambda: impl.softmax_backward(y, g), y=y, grad_out=g)


@pytest.mark.exercise("3.5")
def test_softmax_backward_of_a_constant_shift_is_zero(impl):
    """softmax(x + c) = softmax(x): moving every logit together changes nothing, so the
    gradient must sum to zero along the softmax axis whatever the upstream gradient."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 6))
    y = np.exp(x) / np.exp(x).sum(-1, keepdims=True)
    gx = impl.softmax_backward(y, rng.standard_normal((4, 6)))
    np.testing.assert_allclose(gx.sum(-1), 0, atol=1e-12)


@pytest.mark.exercise("3.1")
def test_broadcast_shape_is_shape_arithmetic(impl):
    """3.1 works on the tuples: NumPy's broadcasting is the oracle, not part of the answer; and
    the error names the dimension (counted from the right) where the sizes disagree."""
    got = _by_hand(
        lambda: impl.broadcast_shape((5, 1, 4), (3, 1)),
        [np],
        "broadcast_shape used NumPy: compare the sizes yourself",
    )
    assert tuple(got) == (5, 3, 4)
    with pytest.raises(ValueError, match=r"dim -2"):
        impl.broadcast_shape((2, 3, 4), (5, 4))


@pytest.mark.exercise("3.2")
def test_sum_to_is_written_with_numpy_sums(impl):
    """3.2 is the sum-back the engine does: written with NumPy, never by asking the engine."""
    grad = np.arange(24.0).reshape(2, 3, 4)
    got = _by_hand(
        lambda: impl.sum_to(grad, (3, 1)),
        [mg],
        "sum_to called minigenesis: this is the engine's sum-back, write it with NumPy sums",
    )
    np.testing.assert_array_equal(got, grad.sum(axis=(0, 2))[:, None])


@pytest.mark.exercise("3.4")
def test_linear_backward_is_written_by_hand(impl):
    rng = np.random.default_rng(5)
    x, w, b, g = (
        rng.standard_normal((3, 2)),
        rng.standard_normal((4, 2)),
        np.zeros(4),
        np.ones((3, 4)),
    )
    got = _by_hand(
        lambda: impl.linear_backward(x, w, b, g),
        [mg],
        "linear_backward called minigenesis: write the three matrix formulas in NumPy",
    )
    np.testing.assert_allclose(got[2], np.full(4, 3.0))


@pytest.mark.exercise("3.5")
def test_softmax_backward_is_written_by_hand(impl):
    y = np.full((2, 4), 0.25)
    got = _by_hand(
        lambda: impl.softmax_backward(y, np.eye(2, 4)),
        [mg],
        "softmax_backward called minigenesis: write y * (g - sum(g * y)) in NumPy",
    )
    np.testing.assert_allclose(got, 0.25 * (np.eye(2, 4) - 0.25))


# ----------------------------------------------------------------------------- 3.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("90aa669bda302744", "62885dd0b823252a66052c00176e3ac5d03aa1f90c201cc9a31ae971a8e8cfe2"),
    "q2": ("c4dfc5e84319afa7", "fe9a6344a3522c9f6bf34967ae06dd51caf212a2c4f724fbfbf488670f234c17"),
    "q3": ("a8328bcb23e713fb", "61ea5eb1a7c84629c3f08d401dc3b3886581cc3e75a1f52a62df05754c74253d"),
    "q4": ("a03b7ae8a60b5789", "a50d19bfc7984eebd855d80d49d8b1757b0910cea3295b4bc697ff8dad9778ab"),
}
QUIZ_HINTS = {
    "q1": (
        "A gradient has the shape of its tensor; count how many entries of x + y each x[i, 0] "
        "took part in ('Broadcasting in the backward pass')."
    ),
    "q2": (
        "Broadcasting does two things: it adds leading axes and it stretches axes of size 1. "
        "Which of the two does this loop undo?"
    ),
    "q3": (
        "Write the Taylor series of f(x+h) and f(x-h) to the h^2 term and subtract them "
        "('Checking gradients with finite differences')."
    ),
    "q4": (
        "Re-read 'Vector-Jacobian products: never build the Jacobian': what does backward "
        "receive, and what does it return?"
    ),
}


@pytest.mark.exercise("3.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_3_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
