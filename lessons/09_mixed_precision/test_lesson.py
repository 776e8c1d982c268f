"""Checks for chapter 9. Oracles: NumPy/ml_dtypes bit patterns and finfo, closed forms, and
minigenesis itself (its autocast policy, its GradScaler)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg


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
    wrong = {k: (predicted[k], actual[k]) for k in actual if predicted[k] != actual[k]}
    assert not wrong, f"predicted vs actual dtype: {wrong}"


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


def _run(scaler, model, optimizer, inf_steps: set, steps: int = 12) -> list:
    mg.manual_seed(1)
    data = [(mg.randn(4, 3), mg.randn(4, 2)) for _ in range(steps)]
    scales = []
    for step, (x, y) in enumerate(data):
        optimizer.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        scaler.scale(loss).backward()
        if step in inf_steps:  # an overflow in the backward pass
            model.weight.grad.fill_(math.inf)
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
    assert ours == ref
    for p, q in zip(ours_model.parameters(), ref_model.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-7)
        assert np.isfinite(p.detach().numpy()).all()


@pytest.mark.exercise("9.5")
def test_9_5_step_is_skipped_on_inf(impl) -> None:
    model, optimizer = _setup()
    before = model.weight.detach().numpy().copy()
    scaler = impl.ManualGradScaler(init_scale=8.0)
    scaler.scale(model(mg.ones(1, 3)).sum()).backward()
    model.weight.grad.fill_(math.nan)
    assert scaler.step(optimizer) is False
    np.testing.assert_array_equal(model.weight.detach().numpy(), before)
    scaler.update()
    assert scaler.get_scale() == 4.0


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
    assert scaler.step(optimizer) is True  # does not unscale again
