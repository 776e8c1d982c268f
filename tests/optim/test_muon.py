"""Muon against a NumPy transcription of its formulas in float64 (momentum, Nesterov, the
Newton-Schulz quintic, decoupled decay, the two learning-rate adjustments), its bfloat16 rounding
against ml_dtypes' bfloat16, its state_dict, the schedulers, and what it refuses."""

from __future__ import annotations

import copy

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
from minigenesis.optim.muon import round_to_bfloat16, zeropower_via_newtonschulz

ABC = (3.4445, -4.7750, 2.0315)


def _bf16(x):
    """x rounded to bfloat16 by ml_dtypes (through float32, as PyTorch converts), as float64."""
    return np.asarray(x, np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)


def _numpy_ns(g, abc=ABC, steps=5, eps=1e-7, rounded=True):
    """k Newton-Schulz iterations in float64: X <- a X + (b A + c A^2) X with A = X X^T, each
    product-and-sum rounded to bfloat16 when ``rounded``."""
    r = _bf16 if rounded else (lambda v: v)
    a, b, c = abc
    x = r(g)
    if g.shape[0] > g.shape[1]:
        x = x.T
    x = r(x / max(r(np.linalg.norm(x)), r(eps)))
    for _ in range(steps):
        gram = r(x @ x.T)
        x = r(a * x + r(b * gram + c * gram @ gram) @ x)
    return x.T if g.shape[0] > g.shape[1] else x


def _numpy_muon(params, grads_of, steps, lr, weight_decay=0.1, momentum=0.95, nesterov=True,
                abc=ABC, eps=1e-7, ns_steps=5, adjust_lr_fn=None):  # fmt: skip
    bufs = [np.zeros_like(p) for p in params]
    for t in range(steps):
        for p, g, m in zip(params, grads_of(params, t), bufs):
            m += (1 - momentum) * (g - m)
            u = (1 - momentum) * g + momentum * m if nesterov else m
            o = _numpy_ns(u, abc, ns_steps, eps)
            rows, cols = p.shape
            if adjust_lr_fn == "match_rms_adamw":
                step_lr = lr * 0.2 * np.sqrt(max(rows, cols))
            else:
                step_lr = lr * np.sqrt(max(1, rows / cols))
            p *= 1 - lr * weight_decay
            p -= step_lr * o
    return params


def _grads(params, step):
    return [np.sin(3 * p) + 0.3 * p + 0.1 * np.cos(step + np.arange(p.size).reshape(p.shape))
            for p in params]  # fmt: skip


def _run(arrays, steps, **options):
    params = [mg.tensor(a.copy(), requires_grad=True) for a in arrays]
    opt = mg.optim.Muon(params, **options)
    for t in range(steps):
        grads = _grads([p.detach().numpy() for p in params], t)
        for p, g in zip(params, grads):
            p.grad = mg.tensor(g, dtype=p.dtype)
        opt.step()
    return params, opt


def _start():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((6, 4)), rng.standard_normal((3, 7)), rng.standard_normal((5, 5))]


def test_round_to_bfloat16_ties_to_even_as_ml_dtypes():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000),
                        [0.0, -0.0, np.inf, -np.inf, 3.4e38, 1e-45, 1 + 2**-8, 1 + 3 * 2**-8,
                         -(1 + 2**-8)]]).astype(np.float32)  # fmt: skip
    ours = round_to_bfloat16(x)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, x.astype(ml_dtypes.bfloat16).astype(np.float32))
    assert np.isnan(round_to_bfloat16(np.array([np.nan], np.float32))).all()


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (5, 5)])
def test_newton_schulz_without_rounding_is_the_quintic_iteration(shape):
    g = np.random.default_rng(2).standard_normal(shape)
    ours = zeropower_via_newtonschulz(g, ABC, 5, 1e-7, bf16=False)
    np.testing.assert_allclose(ours, _numpy_ns(g, rounded=False), rtol=1e-12, atol=1e-13)


def test_newton_schulz_output_is_near_the_polar_factor():
    g = np.random.default_rng(3).standard_normal((32, 16))
    o = zeropower_via_newtonschulz(g, ABC, 5, 1e-7)
    u, _, vt = np.linalg.svd(g, full_matrices=False)
    polar = u @ vt
    s = np.linalg.svd(o, compute_uv=False)
    assert o.shape == g.shape and 0.5 < s.min() and s.max() < 1.3
    assert (o * polar).sum() / np.linalg.norm(o) / np.linalg.norm(polar) > 0.95
    np.testing.assert_array_equal(o, _bf16(o))  # every entry a bfloat16 value


def test_newton_schulz_of_a_zero_matrix_is_zero():
    assert not zeropower_via_newtonschulz(np.zeros((3, 4)), ABC, 5, 1e-7).any()


@pytest.mark.parametrize(
    "options",
    [{}, {"nesterov": False}, {"momentum": 0.0, "weight_decay": 0.0},
     {"adjust_lr_fn": "match_rms_adamw", "weight_decay": 0.01},
     {"adjust_lr_fn": "original", "ns_steps": 3, "eps": 0.5,
      "ns_coefficients": (3.0, -3.2, 1.2), "momentum": 0.8}],
)  # fmt: skip
def test_steps_match_numpy_reference_float64(options):
    lr = 0.02
    params, _ = _run(_start(), 4, lr=lr, **options)
    ref_options = {("abc" if k == "ns_coefficients" else k): v for k, v in options.items()}
    ref = _numpy_muon(_start(), _grads, 4, lr, **ref_options)
    for p, r in zip(params, ref):
        assert p.dtype == mg.float64
        # the products are rounded to bfloat16 from float32 here and from float64 there: a rare
        # entry rounds one bfloat16 step (2^-8 relative) the other way
        np.testing.assert_allclose(p.detach().numpy(), r, rtol=0, atol=lr * 1.6 * 2**-7)


def test_step_moves_each_matrix_by_about_lr_per_direction():
    start = _start()
    params, _ = _run(start, 1, lr=0.01, weight_decay=0.0)
    for p, p0 in zip(params, start):
        rows, cols = p0.shape
        s = np.linalg.svd((p0 - p.detach().numpy()) / np.sqrt(max(1, rows / cols)), compute_uv=0)
        assert 0.005 < s.min() and s.max() < 0.013


def test_float32_parameters_stay_float32_and_match_the_float64_run():
    p32, opt = _run([a.astype(np.float32) for a in _start()], 3, lr=0.02)
    p64, _ = _run(_start(), 3, lr=0.02)
    for a, b in zip(p32, p64):
        assert a.dtype == mg.float32 and opt.state[a]["momentum_buffer"].dtype == mg.float32
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=0.02 * 2**-6)


def test_state_dict_round_trip_continues_identically():
    params, opt = _run(_start(), 2, lr=0.03, nesterov=False)
    saved = copy.deepcopy(opt.state_dict())
    assert sorted(saved["state"]) == [0, 1, 2]
    assert all(set(s) == {"momentum_buffer"} for s in saved["state"].values())
    assert set(saved["param_groups"][0]) == {
        "lr", "weight_decay", "momentum", "nesterov", "ns_coefficients", "eps", "ns_steps",
        "adjust_lr_fn", "params"}  # fmt: skip
    twins = [mg.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    other = mg.optim.Muon(twins, lr=1.0)
    other.load_state_dict(saved)
    assert other.param_groups[0]["lr"] == 0.03 and other.param_groups[0]["nesterov"] is False
    for t in range(2):
        for ps, o in ((params, opt), (twins, other)):
            for p, g in zip(ps, _grads([p.detach().numpy() for p in ps], t)):
                p.grad = mg.tensor(g)
            o.step()
    for a, b in zip(params, twins):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_schedulers_set_the_lr_each_step_uses():
    start = _start()
    params = [mg.tensor(a.copy(), requires_grad=True) for a in start]
    opt = mg.optim.Muon(params, lr=0.04)
    sched = mg.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    manual = [mg.tensor(a.copy(), requires_grad=True) for a in start]
    by_hand = mg.optim.Muon(manual, lr=0.04)
    for t in range(3):
        by_hand.param_groups[0]["lr"] = 0.04 * 0.5**t
        for ps, o in ((params, opt), (manual, by_hand)):
            for p, g in zip(ps, _grads([p.detach().numpy() for p in ps], t)):
                p.grad = mg.tensor(g)
            o.step()
        sched.step()
    for a, b in zip(params, manual):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert opt.param_groups[0]["lr"] == pytest.approx(0.005)


def test_one_cycle_schedules_muons_momentum():
    p = mg.zeros(3, 2, requires_grad=True)
    opt = mg.optim.Muon([p], lr=0.01)
    sched = mg.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10)
    seen = []
    for _ in range(5):
        p.grad = mg.ones(3, 2)
        opt.step()
        sched.step()
        seen.append(opt.param_groups[0]["momentum"])
    assert seen[-1] < seen[0] <= 0.95


def test_tensor_lr_gives_the_float_lrs_step():
    a, _ = _run(_start(), 2, lr=mg.tensor(0.02, dtype=mg.float64))
    b, _ = _run(_start(), 2, lr=0.02)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.detach().numpy(), y.detach().numpy())


@pytest.mark.parametrize("shape", [(3,), (2, 3, 4), ()])
def test_a_parameter_that_is_not_a_matrix_is_refused(shape):
    with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
        mg.optim.Muon([mg.zeros(2, 2, requires_grad=True), mg.zeros(*shape, requires_grad=True)])
    opt = mg.optim.Muon([mg.zeros(2, 2, requires_grad=True)])
    with pytest.raises(ValueError, match="2D parameters"):
        opt.add_param_group({"params": [mg.zeros(*shape, requires_grad=True)]})
    assert len(opt.param_groups) == 1


@pytest.mark.parametrize(
    "options, message",
    [({"lr": -1.0}, "Learning rate should be >= 0"), ({"momentum": -0.1}, "momentum should be"),
     ({"weight_decay": -0.1}, "weight decay should be"),
     ({"adjust_lr_fn": "rms"}, "Adjust learning rate function rms is not supported"),
     ({"lr": mg.tensor([0.1, 0.2])}, "Tensor lr must be 1-element")],
)  # fmt: skip
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        mg.optim.Muon([mg.zeros(2, 2, requires_grad=True)], **options)


@pytest.mark.parametrize(
    "options, message",
    [({"ns_steps": 100}, "less than 100"), ({"ns_coefficients": (1.0, 2.0)}, "exactly 3 values")],
)
def test_bad_iteration_options_are_refused_at_the_step(options, message):
    p = mg.zeros(2, 2, requires_grad=True)
    opt = mg.optim.Muon([p], **options)
    p.grad = mg.ones(2, 2)
    with pytest.raises(ValueError, match=message):
        opt.step()


def test_sparse_gradient_is_refused():
    emb = mg.nn.Embedding(5, 3, sparse=True)
    opt = mg.optim.Muon(emb.parameters())
    emb(mg.tensor([1, 3])).sum().backward()
    assert emb.weight.grad.is_sparse
    with pytest.raises(RuntimeError, match="Muon does not support sparse gradients"):
        opt.step()


def test_step_on_the_gpu_gives_the_cpu_step(device):
    start = _start()
    params = [mg.tensor(a.astype(np.float32), device=device, requires_grad=True) for a in start]
    cpu32 = [mg.tensor(a.astype(np.float32), requires_grad=True) for a in start]
    for ps in (params, cpu32):
        opt = mg.optim.Muon(ps, lr=0.02, nesterov=False, adjust_lr_fn="match_rms_adamw")
        for t in range(3):
            for p, g in zip(ps, _grads([a.astype(np.float32) for a in start], t)):
                p.grad = mg.tensor(g, dtype=mg.float32, device=p.device)
            opt.step()
        assert opt.state[ps[0]]["momentum_buffer"].device == ps[0].device
    for a, b, a0 in zip(params, cpu32, start):
        assert a.device.type == device
        np.testing.assert_allclose(a.cpu().detach().numpy(), b.detach().numpy(), atol=1e-6)
        assert np.abs(b.detach().numpy() - a0).max() > 0.01  # (the steps did move it)


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16])
def test_half_precision_parameter_keeps_the_momentum_average(dtype):
    # (PyTorch 2.13 with a bfloat16 parameter and nesterov=False divides its momentum buffer by
    # the buffer's norm in place: there .bfloat16() of a bfloat16 tensor is no copy)
    p = mg.zeros(4, 3, dtype=dtype, requires_grad=True)  # (so the step is not lost to rounding)
    opt = mg.optim.Muon([p], lr=0.01, nesterov=False, momentum=0.5, weight_decay=0.0)
    p.grad = mg.full((4, 3), 2.0, dtype=dtype)
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert buf.dtype == dtype and p.dtype == dtype
    np.testing.assert_array_equal(buf.float().numpy(), np.ones((4, 3)))
    # a rank-1 step: its singular value 1 goes through s -> a s + b s^3 + c s^5 five times
    a, b, c = ABC
    s = 1.0
    for _ in range(5):
        s = a * s + b * s**3 + c * s**5  # (0.696)
    moved = -p.detach().float().numpy() / (0.01 * np.sqrt(4 / 3))
    np.testing.assert_allclose(moved, np.full((4, 3), s / np.sqrt(12)), rtol=0.03)  # (bfloat16)
    np.testing.assert_allclose(moved, _numpy_ns(np.ones((4, 3))), rtol=2**-7)


def test_an_unknown_lr_adjustment_set_on_a_group_is_refused_at_the_step():
    # (PyTorch falls back to the unadjusted lr there, silently)
    p = mg.zeros(2, 2, requires_grad=True)
    opt = mg.optim.Muon([p])
    opt.param_groups[0]["adjust_lr_fn"] = "match_rms_adam"
    p.grad = mg.ones(2, 2)
    with pytest.raises(ValueError, match="match_rms_adam is not supported"):
        opt.step()
