"""The scalar state (``step``, NAdam's ``mu_product``) under a float64 default dtype and across
a state_dict load, and a learning rate given as a tensor (updates and schedulers)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

P0 = np.array([0.5, -1.2, 2.0, 0.3])


def _grad(p: np.ndarray) -> np.ndarray:
    return np.sin(3 * p) + 0.3 * p


def _nadam_reference(steps: int, lr: float, b1: float, b2: float, eps: float, round_to) -> list:
    """NAdam in NumPy float64, its product of momentum factors rounded by ``round_to`` after each
    multiplication (the dtype the product tensor is kept in)."""
    p, m, v, prod, out = P0.copy(), np.zeros(4), np.zeros(4), round_to(1.0), []
    for t in range(1, steps + 1):
        g = _grad(p)
        mu = b1 * (1 - 0.5 * 0.96 ** (t * 4e-3))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * 4e-3))
        prod = float(round_to(round_to(prod) * round_to(mu)))
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2**t)) + eps
        p = p - lr * (1 - mu) / (1 - prod) * g / denom
        p = p - lr * mu_next / (1 - prod * mu_next) * m / denom
        out.append(p.copy())
    return out


def _nadam_run(steps: int, reload_at: int | None = None) -> list:
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.NAdam([w], lr=0.05)
    out = []
    for t in range(steps):
        w.grad = mg.tensor(_grad(w.detach().numpy()))
        opt.step()
        if t == reload_at:
            saved, opt = opt.state_dict(), mg.optim.NAdam([w], lr=0.05)
            opt.load_state_dict(saved)
        out.append(w.detach().numpy().copy())
    return out


@pytest.fixture
def float64_default():
    before = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    yield
    mg.set_default_dtype(before)


def test_nadam_keeps_its_momentum_product_in_float64_under_a_float64_default(float64_default):
    got = _nadam_run(12)
    want = _nadam_reference(12, 0.05, 0.9, 0.999, 1e-8, np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.NAdam([w])
    w.grad = mg.ones(4, dtype=mg.float64)
    opt.step()
    assert opt.state[w]["mu_product"].dtype == mg.float64
    assert opt.state[w]["step"].dtype == mg.float64


def test_nadam_momentum_product_stays_float32_under_the_float32_default():
    got = _nadam_run(12)
    want = _nadam_reference(12, 0.05, 0.9, 0.999, 1e-8, np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-15)


def test_loading_nadam_state_casts_the_momentum_product_to_the_parameter_dtype():
    """A load casts every state tensor but ``step`` to the parameter's dtype: a float64 model's
    product runs on in float64 after the load (float32 before it)."""
    got = _nadam_run(12, reload_at=3)
    before = _nadam_reference(4, 0.05, 0.9, 0.999, 1e-8, np.float32)
    np.testing.assert_allclose(got[:4], before, rtol=1e-14, atol=1e-15)
    float32_all_along = _nadam_reference(12, 0.05, 0.9, 0.999, 1e-8, np.float32)
    assert np.abs(got[-1] - float32_all_along[-1]).max() > 1e-12  # the product was widened
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.NAdam([w])
    w.grad = mg.ones(4, dtype=mg.float64)
    opt.step()
    fresh = mg.optim.NAdam([w])
    fresh.load_state_dict(opt.state_dict())
    assert fresh.state[w]["mu_product"].dtype == mg.float64
    assert fresh.state[w]["step"].dtype == mg.float32  # the count is never cast
    assert fresh.state[w]["mu_product"].item() == opt.state[w]["mu_product"].item()


@pytest.mark.parametrize(
    "name,options",
    [("SGD", dict(momentum=0.9)), ("Adam", dict(amsgrad=True)), ("RMSprop", dict(centered=True))],
)
def test_a_tensor_lr_steps_as_its_float_value(name, options):
    def run(lr):
        w = mg.tensor(P0.copy(), requires_grad=True)
        opt = getattr(mg.optim, name)([w], lr=lr, **options)
        for _ in range(5):
            w.grad = mg.tensor(_grad(w.detach().numpy()))
            opt.step()
        return w.detach().numpy()

    np.testing.assert_array_equal(run(mg.tensor(0.03, dtype=mg.float64)), run(0.03))


def test_a_scheduler_writes_into_a_tensor_lr_in_place():
    lr = mg.tensor(0.1, dtype=mg.float64)
    w = mg.zeros(2, requires_grad=True)
    opt = mg.optim.SGD([w], lr=lr)
    sched = mg.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    seen = []
    for _ in range(1, 10):
        opt.step()
        sched.step()
        assert opt.param_groups[0]["lr"] is lr  # the group keeps the caller's tensor
        seen.append((lr.item(), float(sched.get_last_lr()[0])))
    assert seen == [(0.1 * 0.5 ** (e // 3), 0.1 * 0.5 ** (e // 3)) for e in range(1, 10)]
    assert opt.param_groups[0]["initial_lr"].item() == 0.1  # a copy, not the tensor itself


def test_sequential_lr_with_a_tensor_lr_follows_the_float_schedule():
    """SequentialLR resets each group to ``initial_lr``: with a tensor lr that must copy the
    value, not make the group's lr the ``initial_lr`` tensor (the next schedule's base)."""

    def run(lr):
        w = mg.zeros(2, requires_grad=True)
        opt = mg.optim.SGD([w], lr=lr)
        S = mg.optim.lr_scheduler
        first, second = S.LinearLR(opt, 0.1, total_iters=4), S.ExponentialLR(opt, 0.5)
        sched = S.SequentialLR(opt, [first, second], milestones=[4])
        out = []
        for _ in range(8):
            opt.step()
            sched.step()
            out.append(float(opt.param_groups[0]["lr"]))
        return out

    want = [0.1 * (0.1 + 0.9 * e / 4) for e in range(1, 4)] + [0.1 * 0.5**k for k in range(5)]
    np.testing.assert_allclose(run(0.1), want, rtol=1e-15)
    np.testing.assert_allclose(run(mg.tensor(0.1, dtype=mg.float64)), want, rtol=1e-15)
