"""Rprop and ASGD: steps against their update rules written out in NumPy, the state they keep,
a state_dict round trip and the errors for bad hyper-parameters."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

P0 = np.array([[0.5, -1.2, 2.0], [0.3, -0.7, 1.1]])


def _grad(p: np.ndarray, t: int) -> np.ndarray:
    return np.sin(3 * p) + 0.3 * p + 0.2 * np.cos(t + np.arange(p.size).reshape(p.shape))


def _run(cls, steps: int, reload_at: int | None = None, **options) -> list[np.ndarray]:
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = cls([w], **options)
    out = []
    for t in range(steps):
        w.grad = mg.tensor(_grad(w.detach().numpy(), t))
        opt.step()
        if t == reload_at:
            saved, opt = opt.state_dict(), cls([w], **options)
            opt.load_state_dict(saved)
        out.append(w.detach().numpy().copy())
    return out


@pytest.mark.parametrize("maximize", [False, True])
def test_rprop_steps_follow_the_sign_rule(maximize):
    lr, (eta_minus, eta_plus), (lo, hi) = 0.05, (0.4, 1.3), (1e-3, 0.2)
    p, prev, size, want = P0.copy(), np.zeros_like(P0), np.full_like(P0, lr), []
    for t in range(15):
        g = -_grad(p, t) if maximize else _grad(p, t)
        s = np.sign(g * prev)
        size = np.clip(size * np.where(s > 0, eta_plus, np.where(s < 0, eta_minus, 1.0)), lo, hi)
        g = np.where(s < 0, 0.0, g)
        p = p - np.sign(g) * size
        prev = g
        want.append(p.copy())
    got = _run(
        mg.optim.Rprop, 15, lr=lr, etas=(eta_minus, eta_plus), step_sizes=(lo, hi),
        maximize=maximize,
    )  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)
    assert not np.allclose(got[-1], P0)  # it moved


def _asgd_reference(steps: int, lr, lambd, alpha, t0, wd) -> list[np.ndarray]:
    """ASGD in NumPy float64, eta and mu rounded to float32 as PyTorch keeps them."""
    p, ax, eta, mu, out = P0.copy(), np.zeros_like(P0), float(np.float32(lr)), 1.0, []
    for t in range(1, steps + 1):
        g = _grad(p, t - 1) + wd * p
        p = p * (1 - lambd * eta) - eta * g
        ax = ax + (p - ax) * mu if mu != 1 else p.copy()
        eta = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))
        mu = float(np.float32(1 / max(1, t - t0)))
        out.append((p.copy(), ax.copy()))
    return out


def test_asgd_steps_and_the_running_average_follow_the_formula():
    options = dict(lr=0.05, lambd=1e-2, alpha=0.75, t0=4, weight_decay=0.1)
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.ASGD([w], **options)
    want = _asgd_reference(
        12, **{k if k != "weight_decay" else "wd": v for k, v in options.items()}
    )
    for t, (p, ax) in enumerate(want):
        w.grad = mg.tensor(_grad(w.detach().numpy(), t))
        opt.step()
        np.testing.assert_allclose(w.detach().numpy(), p, rtol=0, atol=1e-15)
        np.testing.assert_allclose(opt.state[w]["ax"].numpy(), ax, rtol=0, atol=1e-15)
    state = opt.state[w]
    assert state["eta"].dtype == mg.float32 and state["mu"].dtype == mg.float32
    assert state["mu"].item() == np.float32(1 / (12 - 4))


@pytest.mark.parametrize("cls", [mg.optim.Rprop, mg.optim.ASGD])
def test_a_state_dict_round_trip_continues_the_run(cls):
    """(A load casts ASGD's eta and mu to the parameters' float64, as PyTorch's does, and the
    next values are rounded to float32 again: the same run.)"""
    options = dict(lr=0.05) if cls is mg.optim.Rprop else dict(lr=0.05, lambd=1e-2, t0=3)
    np.testing.assert_allclose(
        _run(cls, 10, reload_at=4, **options), _run(cls, 10, **options), rtol=0, atol=1e-15
    )


@pytest.mark.parametrize(
    "options,message",
    [
        (dict(etas=(1.2, 0.5)), "Invalid eta values"),
        (dict(etas=(0.5, 1.0)), "Invalid eta values"),
        (dict(lr=-1.0), "Invalid learning rate"),
        (dict(step_sizes=(-1.0, 1.0)), "step_sizes"),
    ],
)
def test_rprop_refuses_bad_hyper_parameters(options, message):
    with pytest.raises(ValueError, match=message):
        mg.optim.Rprop([mg.zeros(2, requires_grad=True)], **options)


def test_asgd_refuses_bad_hyper_parameters():
    with pytest.raises(ValueError, match="Invalid weight_decay value"):
        mg.optim.ASGD([mg.zeros(2, requires_grad=True)], weight_decay=-0.1)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        mg.optim.ASGD([mg.zeros(2, requires_grad=True)], lr=-0.1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_asgd_eta_under_a_tensor_lr_is_computed_in_the_lrs_dtype(dtype):
    # eta_t = lr / (1 + lambd lr t)^alpha. With a tensor lr PyTorch computes it as a tensor of
    # lr's dtype and copies it into eta, which a load has made the parameter's dtype (float64):
    # no rounding to float32 (a float lr's value is rounded, as a default-dtype scalar)
    lr, lambd, alpha = 0.01, 1e-3, 0.75
    w = mg.zeros(3, dtype=mg.float64, requires_grad=True)

    def make():
        return mg.optim.ASGD(
            [w], lr=mg.tensor(lr, dtype=getattr(mg, np.dtype(dtype).name)), lambd=lambd, alpha=alpha
        )

    opt = make()
    for _ in range(3):
        w.grad = mg.ones(3, dtype=mg.float64)
        opt.step()
    saved, opt = opt.state_dict(), make()
    opt.load_state_dict(saved)
    assert opt.state[w]["eta"].dtype == mg.float64
    for t in range(4, 8):
        w.grad = mg.ones(3, dtype=mg.float64)
        opt.step()
        lr_d = dtype(lr)
        want = lr_d / ((1 + lambd * lr_d * t) ** alpha)  # in lr's dtype (NumPy's scalar rules)
        assert float(opt.state[w]["eta"]) == float(want)


def test_asgd_and_rprop_keep_their_options_as_given_in_the_groups():
    w = mg.zeros(2, requires_grad=True)
    group = mg.optim.ASGD([w], t0=10, lambd=1e-4).param_groups[0]
    assert type(group["t0"]) is int and group["t0"] == 10
    group = mg.optim.Rprop([w]).param_groups[0]
    assert group["step_sizes"] == (1e-6, 50) and type(group["step_sizes"][1]) is int
    assert group["etas"] == (0.5, 1.2)
