"""Checks for chapter 8. Oracles: minigenesis.nn.utils.clip_grad_norm_ / clip_grad_value_ on an
identical model, a single full-batch backward, and minigenesis.diagnostics."""

from __future__ import annotations

import importlib
import math
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import diagnostics

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 8.1  each gradient clipped by its own norm                      -> vs clip_grad_norm_
#      always the 2-norm, whatever norm_type                       -> vs clip_grad_norm_
#      scaled by max_norm / norm even when the norm is smaller     -> vs clip_grad_norm_
#      return mg.nn.utils.clip_grad_norm_(...) (the oracle)         -> by-hand watch
#      max_norm / total_norm without the 1e-6 (all-zero gradients)  -> zero gradients stay zero,
#      (and a total norm near 1e-6)                                    closed form set by hand
#      inf norm as max g, not max |g|                               -> closed form set by hand
# 8.2  return mg.nn.utils.clip_grad_value_(...) (the oracle)        -> by-hand watch

# The oracles of 8.1 and 8.2: none of their code may run inside the answers.
CLIP_GRAD = importlib.import_module("minigenesis.nn.utils.clip_grad")


def _by_hand(call, what: str, how: str) -> None:
    with watch_calls() as seen:
        call()
    used = [Path(u).name for u in seen.used(CLIP_GRAD)]
    assert not used, (
        f"{what} ran minigenesis's own clipping ({', '.join(used)}), the function the check "
        f"compares it with: {how} yourself"
    )


class _Net(mg.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = mg.nn.Linear(5, 8)
        self.fc2 = mg.nn.Linear(8, 3)
        self.unused = mg.nn.Linear(2, 2)  # never called: its .grad stays None

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        return self.fc2(self.fc1(x).tanh())


def _model_with_grads(seed: int = 0, scale: float = 1.0) -> _Net:
    """A small MLP after one backward."""
    mg.manual_seed(seed)
    model = _Net()
    x, y = mg.randn(16, 5), mg.randint(0, 3, (16,))
    loss = mg.nn.functional.cross_entropy(model(x), y) * scale
    loss.backward()
    return model


def _grads(model) -> list[np.ndarray]:
    return [p.grad.numpy().copy() for p in model.parameters() if p.grad is not None]


# ----------------------------------------------------------------------------- 8.1
@pytest.mark.exercise("8.1")
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, math.inf])
@pytest.mark.parametrize("max_norm", [0.05, 100.0])
def test_8_1_matches_clip_grad_norm_(impl, norm_type: float, max_norm: float) -> None:
    ours_model, ref_model = _model_with_grads(scale=5.0), _model_with_grads(scale=5.0)
    ours = impl.clip_grad_norm(ours_model.parameters(), max_norm, norm_type)  # a generator
    ref = mg.nn.utils.clip_grad_norm_(ref_model.parameters(), max_norm, norm_type=norm_type)
    assert float(ours) == pytest.approx(float(ref), rel=1e-5), (
        f"returned norm {float(ours):.6g}, clip_grad_norm_'s {float(ref):.6g} (norm_type "
        f"{norm_type}): the norm of ALL gradients as one vector, (sum over parameters of sum "
        "|g|^p)^(1/p) with absolute values, or max |g| for inf, taken before clipping"
    )
    for a, b in zip(_grads(ours_model), _grads(ref_model)):
        np.testing.assert_allclose(
            a,
            b,
            rtol=1e-5,
            atol=1e-8,
            err_msg="multiply every gradient in place by min(1, max_norm / (total_norm + 1e-6))",
        )


@pytest.mark.exercise("8.1")
@pytest.mark.parametrize("norm_type", [2.0, math.inf])
def test_8_1_closed_form_on_gradients_set_by_hand(impl, norm_type: float) -> None:
    """Two parameters with gradients set by hand (a third has none), against the closed form in
    float64. The entry of largest size is negative, so max g and max |g| differ; the total norm
    (about 4e-6) is close to the 1e-6 in the denominator, so leaving it out changes the result."""
    ga = np.array([-3e-6, 1e-6], dtype=np.float32)
    gb = np.array([[2e-6, 0.5e-6]], dtype=np.float32)
    a, b, c = mg.zeros(2), mg.zeros(1, 2), mg.zeros(3)
    a.grad, b.grad = mg.tensor(ga), mg.tensor(gb)
    flat = np.concatenate([ga, gb.ravel()]).astype(np.float64)
    total = np.abs(flat).max() if norm_type == math.inf else np.sqrt((flat**2).sum())
    max_norm = 1e-7
    coef = min(1.0, max_norm / (total + 1e-6))
    norm = impl.clip_grad_norm([a, b, c], max_norm, norm_type)
    assert float(norm) == pytest.approx(total, rel=1e-5), (
        f"returned norm {float(norm):.6g}, the closed form's {total:.6g} (norm_type {norm_type}): "
        + ("the largest ABSOLUTE value" if norm_type == math.inf else "the norm of all gradients")
    )
    assert c.grad is None, "a parameter without a gradient keeps .grad None"
    for name, got, g in (("a", a.grad, ga), ("b", b.grad, gb)):
        np.testing.assert_allclose(
            got.numpy(),
            g * coef,
            rtol=1e-5,
            err_msg=f"{name}.grad after clipping: the factor is min(1, max_norm / (total + 1e-6)), "
            "the 1e-6 included (it matters when the norm is this small)",
        )


@pytest.mark.exercise("8.1")
def test_8_1_keeps_the_direction_and_caps_the_norm(impl) -> None:
    model = _model_with_grads(scale=50.0)
    before = np.concatenate([g.ravel() for g in _grads(model)])
    norm = impl.clip_grad_norm(list(model.parameters()), 1.0)
    after = np.concatenate([g.ravel() for g in _grads(model)])
    assert float(norm) == pytest.approx(np.linalg.norm(before), rel=1e-5)  # the norm before
    assert np.linalg.norm(after) == pytest.approx(1.0, rel=1e-4)
    np.testing.assert_allclose(after * np.linalg.norm(before), before, rtol=1e-4, atol=1e-6)


@pytest.mark.exercise("8.1")
def test_8_1_all_zero_gradients_stay_zero(impl) -> None:
    model = _model_with_grads()
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()  # a step where nothing flows back (dead ReLUs, a frozen input)
    try:
        norm = impl.clip_grad_norm(model.parameters(), 1.0)
    except ZeroDivisionError as err:
        raise AssertionError(
            "clip_grad_norm divided by a total norm of 0: divide by (total_norm + 1e-6), as the "
            "docstring says, so that zero gradients stay zero"
        ) from err
    assert float(norm) == 0.0
    assert all(np.all(g == 0) for g in _grads(model)), "zero gradients must stay zero (no NaN)"


@pytest.mark.exercise("8.1")
def test_8_1_is_written_by_hand(impl) -> None:
    model = _model_with_grads(scale=5.0)
    _by_hand(
        lambda: impl.clip_grad_norm(model.parameters(), 0.1),
        "clip_grad_norm",
        "compute the total norm and scale the gradients",
    )


# ----------------------------------------------------------------------------- 8.2
@pytest.mark.exercise("8.2")
@pytest.mark.parametrize("clip_value", [1e-3, 0.05, 10.0])
def test_8_2_matches_clip_grad_value_(impl, clip_value: float) -> None:
    ours_model, ref_model = _model_with_grads(), _model_with_grads()
    impl.clip_grad_value(ours_model.parameters(), clip_value)
    mg.nn.utils.clip_grad_value_(ref_model.parameters(), clip_value)
    for a, b in zip(_grads(ours_model), _grads(ref_model)):
        np.testing.assert_array_equal(
            a,
            b,
            err_msg=f"clamp p.grad itself, in place (clamp_), into [-{clip_value}, {clip_value}]",
        )


@pytest.mark.exercise("8.2")
def test_8_2_is_written_by_hand(impl) -> None:
    model = _model_with_grads()
    _by_hand(
        lambda: impl.clip_grad_value(model.parameters(), 0.01),
        "clip_grad_value",
        "clamp each gradient",
    )


# ----------------------------------------------------------------------------- 8.3
def _mlp(seed: int = 1):
    mg.manual_seed(seed)
    return mg.nn.Sequential(mg.nn.Linear(6, 16), mg.nn.ReLU(), mg.nn.Linear(16, 4))


@pytest.mark.exercise("8.3")
@pytest.mark.parametrize("micro_batches", [1, 2, 4, 8])
def test_8_3_accumulation_equals_one_big_batch(impl, micro_batches: int) -> None:
    mg.manual_seed(7)
    x, y = mg.randn(32, 6), mg.randint(0, 4, (32,))
    loss_fn = mg.nn.CrossEntropyLoss()

    big = _mlp()
    full_loss = loss_fn(big(x), y)
    full_loss.backward()

    model = _mlp()
    model(x).sum().backward()  # stale gradients the exercise must clear first
    total = impl.accumulate_gradients(model, loss_fn, x, y, micro_batches)
    assert total == pytest.approx(full_loss.item(), rel=1e-5), (
        f"returned {total:.6g}, the full batch's loss is {full_loss.item():.6g}: return the sum "
        f"of the {micro_batches} losses each divided by micro_batches"
    )
    for a, b in zip(_grads(model), _grads(big)):
        np.testing.assert_allclose(
            a,
            b,
            rtol=1e-4,
            atol=1e-6,
            err_msg="the model came with stale gradients: zero them first, then back-propagate "
            "each chunk's loss / micro_batches",
        )


@pytest.mark.exercise("8.3")
def test_8_3_uneven_split_is_an_error(impl) -> None:
    try:
        impl.accumulate_gradients(_mlp(), mg.nn.MSELoss(), mg.randn(10, 6), mg.randn(10, 4), 4)
    except ValueError:
        return
    pytest.fail(
        "10 examples in 4 micro-batches ran without an error: chunks of unequal size would "
        "weigh examples unequally (or drop some), so raise ValueError"
    )


# ----------------------------------------------------------------------------- 8.4
@pytest.mark.exercise("8.4")
def test_8_4_matches_diagnostics_grad_norms(impl) -> None:
    model = _model_with_grads()
    ours = impl.grad_norms(model)
    ref = diagnostics.grad_norms(model)
    assert set(ours) == set(ref) | {"total"}  # unused.* have no gradient: left out
    for name, value in ref.items():
        assert ours[name] == pytest.approx(value, rel=1e-5), f"{name}: sqrt(sum of g**2)"
    assert ours["total"] == pytest.approx(diagnostics.total_grad_norm(model), rel=1e-5), (
        "'total' is sqrt(sum of the SQUARED per-parameter norms), not their sum"
    )
    assert ours["total"] == pytest.approx(
        float(mg.nn.utils.clip_grad_norm_(model.parameters(), 1e9)), rel=1e-5
    )


# ----------------------------------------------------------------------------- 8.5
@pytest.mark.exercise("8.5")
def test_8_5_names_the_nonfinite_gradients(impl) -> None:
    model = _model_with_grads()
    assert impl.nonfinite_grads(model) == []
    model.fc1.bias.grad[3] = math.nan
    model.fc2.weight.grad[0, 1] = -math.inf
    ours = impl.nonfinite_grads(model)
    ref = [line.split(":")[0] for line in diagnostics.find_nonfinite_grads(model)]
    assert ref == ["fc1.bias", "fc2.weight"]
    assert ours == ref, (
        f"{ours}: fc1.bias holds a NaN and fc2.weight a -inf; name both, in named_parameters order"
    )


# ----------------------------------------------------------------------------- 8.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("4124c20c2b058f6b", "f909c80f62d8d0c991de360b30b55ae8b91c23b1a5b9669ccab112f523e9f0e4"),
    "q2": ("2d379a81c05fda40", "a48ed92c2a325cc26ac77b1b3e67e2b94b33397126e233929a9dbfd3a08aba01"),
    "q3": ("4885037a11d80eb0", "bb672be641c7ab67d213fc72b450b1d39da1fdfed453a46f59c3725ed23dfce1"),
}
QUIZ_HINTS = {
    "q1": (
        "Re-read 'Clipping by hand': one norm over all the gradients, one factor for all of them."
    ),
    "q2": ("Re-read 'Gradient accumulation': what do four gradients of mean losses add up to?"),
    "q3": ("Clip [10, 1] both ways with a threshold of 1 and compare the directions."),
}


@pytest.mark.exercise("8.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_8_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
