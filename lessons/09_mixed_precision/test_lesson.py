"""Checks for chapter 9. Oracles: NumPy/ml_dtypes bit patterns and finfo, closed forms, and
minigenesis itself (its autocast policy, its GradScaler)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 9.1  start + steps * update in Python floats                     -> bfloat16/float16 grids
#      a float32 tensor whatever dtype was asked                   -> bfloat16 rounds updates away
# 9.2  run the six expressions under mg.autocast and read .dtype   -> no-minigenesis watch (and
#      the rule of each is not something running the code tells)
#      every dtype bfloat16 ("autocast makes everything bf16")     -> prediction vs minigenesis
# 9.3  float(np.float16(x * u * s)) / s, no tensors                -> float16-steps oracle
#      (overflow of dL/dh at s = 2^17, x = 1e-8 already 0 in float16)
#      the graph in float32 (no .half())                           -> underflow without scaling
# 9.4  k from log2 with round() instead of ceil/floor             -> bounds on each side
#      no ValueError when no scale fits                            -> too-wide range
# 9.5  a subclass of mg.amp.GradScaler                             -> by-hand (no scaler code)
#      step() runs even after an inf                                -> skipped steps vs GradScaler
#      scale / growth_factor on an overflow (same at the defaults)  -> skipped on inf (backoff 0.25)
#      step() unscales again after the learner's unscale_()         -> unscale, clip, step
#      unscale_ walks param_groups[0] only                          -> drives chapter 6's AdamW
#      (two groups, the inf in the second: it reaches the weights)
#      step() always runs, the weights put back after an inf        -> drives chapter 6's AdamW
#      (a stateless SGD cannot tell; Adam's moments have seen the inf)
# The last two run in tests/course/test_cheats_caught.py, which checks that "drives chapter 6's
# AdamW" is the one check that fails (the first passed it before it had two groups).


# ----------------------------------------------------------------------------- 9.1
@pytest.mark.exercise("9.1")
def test_9_1_bfloat16_rounds_small_updates_away(impl) -> None:
    # next to 1.0 the bfloat16 grid spacing is 2^-7: half of it (0.0039) exceeds 1e-3
    assert impl.accumulate(1.0, 1e-3, 100, mg.bfloat16) == 1.0


@pytest.mark.exercise("9.1")
def test_9_1_float16_moves_one_grid_step_per_update(impl) -> None:
    # float16's spacing in [1, 2) is 2^-10 = 0.000977: 1e-3 always rounds to exactly one step
    assert impl.accumulate(1.0, 1e-3, 100, mg.float16) == 1.0 + 100 * 2.0**-10
    assert impl.accumulate(1024.0, 0.4, 10, mg.float16) == 1024.0  # spacing 1 near 1024


@pytest.mark.exercise("9.1")
def test_9_1_float32_and_float64_keep_the_updates(impl) -> None:
    result = impl.accumulate(1.0, 1e-3, 100, mg.float32)
    assert type(result) is float
    assert result == pytest.approx(1.1, rel=1e-5)
    assert impl.accumulate(1.0, 1e-3, 100, mg.float64) == pytest.approx(1.1, rel=1e-12)


# ----------------------------------------------------------------------------- 9.2
@pytest.mark.exercise("9.2")
def test_9_2_autocast_predictions_match_minigenesis(impl) -> None:
    predicted = impl.autocast_predictions()
    x = mg.randn(8, 4)
    w = mg.randn(4, 3)
    labels = mg.randint(0, 3, (8,))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        h = x @ w
        actual = {
            "matmul": h.dtype,
            "relu": h.relu().dtype,
            "add": (h + x[:, :3]).dtype,
            "softmax": h.softmax(dim=-1).dtype,
            "sum": h.sum().dtype,
            "loss": mg.nn.functional.cross_entropy(h, labels).dtype,
        }
    assert set(predicted) == set(actual)
    assert all(isinstance(v, tuple) and len(v) == 2 for v in predicted.values()), (
        "each prediction is (dtype, rule)"
    )
    wrong = {k: (predicted[k][0], actual[k]) for k in actual if predicted[k][0] != actual[k]}
    assert not wrong, f"predicted vs actual dtype: {wrong}"


@pytest.mark.exercise("9.2")
def test_9_2_each_prediction_names_the_rule_that_decides_it(impl) -> None:
    """The rule is read off the policy in minigenesis/autocast_policy.py (the op classes'
    ``autocast`` attribute), the independent record of why each dtype comes out."""
    from minigenesis.autocast_policy import policy

    table = {op.__name__: rule for op, rule in policy().items()}  # the policy the engine runs
    rules = {name: rule.on("cpu") for name, rule in table.items()}  # its CPU column
    assert rules.get("MatMul") == "lower" and rules.get("Softmax") is None
    assert table["Softmax"].on("cuda") == "float32" and table["Sum"].on("cuda") == "float32"
    expected = {
        "matmul": "lower",
        "relu": "none",  # Relu has no rule
        "add": "promote",
        "softmax": "none",  # float32 on CUDA only
        "sum": "none",
        "loss": "float32",
    }
    assert "Relu" not in rules and rules.get("Add") == "promote" and rules.get("Sum") is None
    # (losses are "float32" units: autocast_function(FLOAT32) in nn/functional/losses.py)
    got = {k: v[1] for k, v in impl.autocast_predictions().items()}
    wrong = {k: (got.get(k), want) for k, want in expected.items() if got.get(k) != want}
    assert not wrong, f"the rule you named vs the policy's: {wrong}"


@pytest.mark.exercise("9.2")
def test_9_2_is_a_prediction_not_a_measurement(impl) -> None:
    with watch_calls() as seen:
        impl.autocast_predictions()
    used = [Path(f).name for f in seen.used(mg)]
    assert not used, (
        f"autocast_predictions ran minigenesis ({', '.join(used[:4])}): predict from the rules"
    )


# ----------------------------------------------------------------------------- 9.3
@pytest.mark.exercise("9.3")
def test_9_3_fp16_gradient_underflows_without_scaling(impl) -> None:
    true_grad = 1e-3 * 1e-5  # 1e-8 < 2^-24, the smallest float16 subnormal
    assert true_grad < np.finfo(np.float16).smallest_subnormal
    assert impl.fp16_weight_grad(1e-3, 1e-5, 1.0) == 0.0


@pytest.mark.exercise("9.3")
def test_9_3_loss_scaling_rescues_the_gradient(impl) -> None:
    got = impl.fp16_weight_grad(1e-3, 1e-5, 2.0**16)
    assert math.isclose(got, 1e-3 * 1e-5, rel_tol=1e-2)


def _fp16_steps(x_value: float, upstream: float, loss_scale: float) -> float:
    """9.3's graph step by step in NumPy: h.float()'s backward casts dL/dh (float32) to float16,
    the float16 multiply's backward rounds dL/dh * x to float16, the cast to float16 of w sends
    it back as float32."""
    with np.errstate(over="ignore"):
        g_h = np.float16(np.float32(upstream) * np.float32(loss_scale))
        g_w = np.float16(g_h * np.float16(x_value))
    return float(np.float32(g_w)) / loss_scale


@pytest.mark.exercise("9.3")
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the inf case
@pytest.mark.parametrize(
    ("x_value", "upstream", "loss_scale"),
    [
        (1e-3, 1.0, 2.0**17),  # dL/dh = 131072 overflows float16: inf, whatever x is
        (1e-8, 1e4, 1.0),  # x is 0 in float16 before anything is multiplied
        (0.1, 0.3, 1.0),  # each step rounds: not the product rounded once
        (3e-3, 7e-4, 2.0**8),
    ],
)
def test_9_3_every_step_rounds_in_its_dtype(impl, x_value, upstream, loss_scale) -> None:
    want = _fp16_steps(x_value, upstream, loss_scale)
    got = impl.fp16_weight_grad(x_value, upstream, loss_scale)
    assert got == want or (math.isinf(want) and got == want), (x_value, upstream, loss_scale)
    if x_value == 1e-3:
        assert math.isinf(got), "an overflowed float16 gradient is inf (GradScaler's signal)"


@pytest.mark.exercise("9.3")
def test_9_3_no_underflow_no_difference(impl) -> None:
    assert impl.fp16_weight_grad(0.5, 0.25, 1.0) == 0.125
    assert impl.fp16_weight_grad(0.5, 0.25, 2.0**10) == 0.125


# ----------------------------------------------------------------------------- 9.4
@pytest.mark.exercise("9.4")
@pytest.mark.parametrize(
    ("low", "high"), [(1e-8, 1.0), (2.0**-14, 1.0), (1e-3, 1e-3), (3e-7, 0.02), (2.0**-20, 0.25)]
)
def test_9_4_loss_scale_range_fits_float16(impl, low: float, high: float) -> None:
    k_low, k_high = impl.loss_scale_range(low, high)
    tiny, big = float(np.finfo(np.float16).smallest_normal), float(np.finfo(np.float16).max)
    assert low * 2.0**k_low >= tiny > low * 2.0 ** (k_low - 1)
    assert high * 2.0**k_high <= big < high * 2.0 ** (k_high + 1)
    assert np.isfinite(np.float16(high * 2.0**k_high))


@pytest.mark.exercise("9.4")
def test_9_4_too_wide_a_range_is_an_error(impl) -> None:
    with pytest.raises(ValueError):
        impl.loss_scale_range(1e-8, 10.0)  # 9 decades: more than float16's normal range


# ----------------------------------------------------------------------------- 9.5
def _setup(seed: int = 0):
    mg.manual_seed(seed)
    model = mg.nn.Linear(3, 2)
    return model, mg.optim.SGD(model.parameters(), lr=0.1)


def _run(scaler, model, optimizer, inf_steps: set, steps: int = 12, inf_in: str = "weight"):
    """``steps`` training steps driven by ``scaler``; at ``inf_steps`` the gradient of the
    parameter ``inf_in`` overflows. Returns the scale after each step."""
    mg.manual_seed(1)
    data = [(mg.randn(4, 3), mg.randn(4, 2)) for _ in range(steps)]
    scales = []
    for step, (x, y) in enumerate(data):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        scaler.scale(loss).backward()
        if step in inf_steps:  # an overflow in the backward pass
            getattr(model, inf_in).grad.fill_(math.inf)
        scaler.step(optimizer)
        scaler.update()
        scales.append(float(scaler.get_scale()))
    return scales


@pytest.mark.exercise("9.5")
def test_9_5_scale_trajectory_and_weights_match_gradscaler(impl) -> None:
    options = dict(init_scale=2.0**10, growth_factor=2.0, backoff_factor=0.5, growth_interval=3)
    inf_steps = {1, 2, 7}
    ours_model, ours_opt = _setup()
    ours = _run(impl.ManualGradScaler(**options), ours_model, ours_opt, inf_steps)
    ref_model, ref_opt = _setup()
    ref = _run(mg.amp.GradScaler(**options), ref_model, ref_opt, inf_steps)
    assert ours == ref, (
        f"the scale after each of 12 steps (an overflow at steps {sorted(inf_steps)}, counted "
        f"from 0; growth_interval 3):\n  yours        {ours}\n  GradScaler's {ref}"
    )
    for p, q in zip(ours_model.parameters(), ref_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
        assert np.isfinite(p.detach().numpy()).all()


@pytest.mark.exercise("9.5")
def test_9_5_step_is_skipped_on_inf(impl) -> None:
    model, optimizer = _setup()
    before = model.weight.detach().numpy().copy()
    scaler = impl.ManualGradScaler(init_scale=8.0, backoff_factor=0.25)
    scaler.scale(model(mg.ones(1, 3)).sum()).backward()
    model.weight.grad.fill_(math.nan)
    assert scaler.step(optimizer) is False
    np.testing.assert_array_equal(model.weight.detach().numpy(), before)
    scaler.update()
    assert scaler.get_scale() == 2.0, (
        f"scale {scaler.get_scale()} after one overflow from 8.0 with backoff_factor=0.25: an "
        "overflow multiplies the scale by backoff_factor (here not 1 / growth_factor)"
    )


@pytest.mark.exercise("9.5")
def test_9_5_unscale_then_clip_then_step(impl) -> None:
    model, optimizer = _setup()
    scaler = impl.ManualGradScaler(init_scale=2.0**8)
    loss = model(mg.ones(2, 3)).sum()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    ref_model, _ = _setup()
    ref_model(mg.ones(2, 3)).sum().backward()
    np.testing.assert_allclose(model.weight.grad.numpy(), ref_model.weight.grad.numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError):
        scaler.unscale_(optimizer)  # a second unscale would divide the gradients twice
    assert scaler.step(optimizer) is True
    np.testing.assert_allclose(
        model.weight.grad.numpy(),
        ref_model.weight.grad.numpy(),
        rtol=1e-6,
        err_msg="step() after unscale_() changed the gradients: it must not unscale them again",
    )


@pytest.mark.exercise("9.5")
def test_9_5_is_written_by_hand(impl) -> None:
    """mg.amp.GradScaler is the oracle: none of its code may run inside ManualGradScaler (a
    subclass or a wrapped GradScaler would pass the other checks without the rules)."""
    model, opt = _setup()
    with watch_calls() as seen:
        _run(impl.ManualGradScaler(init_scale=2.0**4, growth_interval=2), model, opt, {1}, steps=4)
    used = [Path(f).name for f in seen.used(mg.amp)]
    assert not used, f"ManualGradScaler ran mg.amp ({', '.join(used)}): write the rules yourself"


@pytest.mark.exercise("9.5")
def test_9_5_drives_an_optimizer_written_by_hand(impl):
    """Chapter 6's optimizers have mg.optim's interface (param_groups, step, zero_grad): the
    scaler drives one as GradScaler does (the same scales and weights), with two param groups
    (the second with its own lr) and an overflow in the second group's gradient: a step skipped
    means no update anywhere, Adam's moments included."""
    import _course

    (chapter6,) = Path(__file__).resolve().parents[1].glob("06_*")
    hand = _course.load_file(chapter6 / "solutions.py")  # the reference: this checks 9.5 alone
    results = []
    for scaler in (impl.ManualGradScaler(2.0**10, growth_interval=3),
                   mg.amp.GradScaler(init_scale=2.0**10, growth_interval=3)):  # fmt: skip
        mg.manual_seed(0)
        model = mg.nn.Linear(3, 2)
        groups = [{"params": [model.weight]}, {"params": [model.bias], "lr": 0.05}]
        optimizer = hand.AdamW(groups, lr=0.1)
        scales = _run(scaler, model, optimizer, inf_steps={4}, inf_in="bias")
        results.append([scales] + [p.detach().numpy().copy() for p in model.parameters()])
    assert results[0][0] == results[1][0], "the scales differ from GradScaler's"
    for mine, ref, name in zip(results[0][1:], results[1][1:], ("weight", "bias")):
        assert np.isfinite(mine).all(), f"{name}: an overflowed step reached the optimizer"
        np.testing.assert_allclose(mine, ref, rtol=1e-6, err_msg=name)


# ----------------------------------------------------------------------------- 9.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("ce3bd9a18a10d7cc", "c3b374610b4f0348a4ed37616244d1b86d0c00ddb7663859ed1e13ab21cb95e9"),
    "q2": ("31f19ea44c7f2060", "db306f3c7b2c5f063ea8b773d59264e436934f4e0090d6462c38f24338f07983"),
    "q3": ("a76363e627d43785", "e604f3c5d158e90715d146a6fca34bd6e8641a2a34da78a25c0ed5381988a846"),
    "q4": ("0605ad31619a1311", "e82ebeac4b5d60c2e3e9ab803c4fcbeb5eb9b965309d6dace9d891e66eb2738a"),
}
QUIZ_HINTS = {
    "q1": (
        "Compare each format's largest value and its spacing near 2^16 ('Three formats: range "
        "and precision')."
    ),
    "q2": (
        "What do the gradients hold right after scaler.scale(loss).backward()? See 'The whole "
        "loop'."
    ),
    "q3": (
        "Re-read 'GradScaler: dynamic loss scaling': what caused the inf, and what is known "
        "about the real gradient then?"
    ),
    "q4": (
        "Re-read 'The autocast policy': where is the speed, and which ops are sensitive to "
        "rounding?"
    ),
}


@pytest.mark.exercise("9.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_9_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
