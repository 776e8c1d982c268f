"""Adadelta, Adagrad, Adamax, NAdam and RAdam: single steps against their update formulas written
out with NumPy, PyTorch's errors for bad hyper-parameters, options and schedulers.

The multi-step trajectories against PyTorch (and the state_dict round trip) are in
test_reference.py, which runs every case of tests/data/optim_refs.json.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

P0 = np.array([[0.5, -1.2, 2.0], [0.3, -0.7, 1.1]])
GRADS = [
    np.array([[0.2, -0.4, 1.5], [-0.3, 0.05, 0.8]]),
    np.array([[-0.1, 0.6, 0.9], [0.2, -0.25, -0.4]]),
    np.array([[0.3, 0.1, -0.2], [0.0, 0.3, 0.5]]),
]


def run_steps(cls, steps: int, **options) -> np.ndarray:
    """Parameters after ``steps`` steps with the fixed gradients GRADS (no model needed)."""
    p = mg.tensor(P0.copy(), requires_grad=True)
    opt = cls([p], **options)
    for g in GRADS[:steps]:
        p.grad = mg.tensor(g)
        opt.step()
    return p.detach().numpy()


def test_adadelta_steps_follow_the_formula():
    lr, rho, eps, wd = 0.7, 0.8, 1e-3, 0.1
    p, v, u = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for g in GRADS:
        g = g + wd * p
        v = rho * v + (1 - rho) * g**2
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta**2
        p = p - lr * delta
    got = run_steps(mg.optim.Adadelta, 3, lr=lr, rho=rho, eps=eps, weight_decay=wd)
    np.testing.assert_allclose(got, p, rtol=1e-13, atol=1e-15)


def test_adagrad_steps_follow_the_formula_with_lr_decay_and_initial_accumulator():
    lr, lr_decay, init, eps = 0.5, 0.3, 0.25, 1e-4
    p, s = P0.copy(), np.full_like(P0, init)
    for t, g in enumerate(GRADS, start=1):
        s = s + g**2
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    got = run_steps(
        mg.optim.Adagrad, 3, lr=lr, lr_decay=lr_decay, initial_accumulator_value=init, eps=eps
    )
    np.testing.assert_allclose(got, p, rtol=1e-13, atol=1e-15)


def test_adamax_steps_follow_the_formula():
    lr, (b1, b2), eps = 0.1, (0.7, 0.9), 1e-2
    p, m, u = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for t, g in enumerate(GRADS, start=1):
        g = -g  # maximize
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)
        p = p - lr / (1 - b1**t) * m / u
    got = run_steps(mg.optim.Adamax, 3, lr=lr, betas=(b1, b2), eps=eps, maximize=True)
    np.testing.assert_allclose(got, p, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("decoupled", [False, True])
def test_nadam_steps_follow_the_formula(decoupled):
    lr, (b1, b2), eps, wd, psi = 0.1, (0.8, 0.95), 1e-8, 0.2, 0.05
    p, m, v, prod = P0.copy(), np.zeros_like(P0), np.zeros_like(P0), 1.0
    for t, g in enumerate(GRADS, start=1):
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        prod = float(np.float32(prod * mu))  # PyTorch keeps the product in float32
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        denom = np.sqrt(v / (1 - b2**t)) + eps
        p = p - lr * (1 - mu) / (1 - prod) * g / denom
        p = p - lr * mu_next / (1 - prod * mu_next) * m / denom
    got = run_steps(
        mg.optim.NAdam,
        3,
        lr=lr,
        betas=(b1, b2),
        eps=eps,
        weight_decay=wd,
        momentum_decay=psi,
        decoupled_weight_decay=decoupled,
    )
    np.testing.assert_allclose(got, p, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("beta2", [0.999, 0.5])
def test_radam_steps_follow_the_formula(beta2):
    # beta2=0.999: the first steps are plain momentum (rho_t <= 5); beta2=0.5: rho_inf = 3, so
    # rho_t <= 5 always; a small beta2 and many steps reach the rectified branch below.
    lr, b1, eps = 0.1, 0.9, 1e-8
    p, m, v = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        v = beta2 * v + (1 - beta2) * g**2
        m_hat = m / (1 - b1**t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * t * beta2**t / (1 - beta2**t)
        assert rho_t <= 5
        p = p - lr * m_hat
    got = run_steps(mg.optim.RAdam, 3, lr=lr, betas=(b1, beta2), eps=eps)
    np.testing.assert_allclose(got, p, rtol=1e-13, atol=1e-15)


def test_radam_rectified_step_follows_the_formula():
    lr, b1, b2, eps = 0.1, 0.9, 0.99, 1e-8
    rng = np.random.default_rng(0)
    grads = rng.standard_normal((12, 2, 3))
    p, m, v = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    rectified = 0
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat = m / (1 - b1**t)
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2**t / (1 - b2**t)
        if rho_t > 5:
            rectified += 1
            r = np.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            p = p - lr * m_hat * np.sqrt(1 - b2**t) / (np.sqrt(v) + eps) * r
        else:
            p = p - lr * m_hat
    assert 0 < rectified < len(grads)  # both branches ran
    w = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.RAdam([w], lr=lr, betas=(b1, b2), eps=eps)
    for g in grads:
        w.grad = mg.tensor(g)
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), p, rtol=1e-12, atol=1e-14)


NEW = ["Adadelta", "Adagrad", "Adamax", "NAdam", "RAdam"]


@pytest.mark.parametrize("name", NEW)
def test_step_leaves_the_gradient_and_parameters_without_grad_alone(name):
    p = mg.tensor(P0.copy(), requires_grad=True)
    q = mg.tensor(P0.copy(), requires_grad=True)  # no gradient: not touched
    opt = getattr(mg.optim, name)([p, q], weight_decay=0.1, maximize=True, foreach=None)
    p.grad = mg.tensor(GRADS[0])
    opt.step()
    np.testing.assert_array_equal(p.grad.numpy(), GRADS[0])
    np.testing.assert_array_equal(q.detach().numpy(), P0)
    assert not np.array_equal(p.detach().numpy(), P0)
    assert p.grad_fn is None and p.is_leaf


def test_adagrad_creates_its_state_on_construction_as_pytorch_does():
    p = mg.tensor(P0.copy(), requires_grad=True)
    opt = mg.optim.Adagrad([p], initial_accumulator_value=0.5)
    assert opt.state[p]["step"] == 0
    np.testing.assert_array_equal(opt.state[p]["sum"].numpy(), np.full_like(P0, 0.5))
    assert opt.state_dict()["state"][0]["step"] == 0


@pytest.mark.parametrize(
    "name, options, message",
    [
        ("Adadelta", {"lr": -1.0}, "Invalid learning rate: -1.0"),
        ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
        ("Adadelta", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
        ("Adadelta", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
        ("Adagrad", {"lr": -0.1}, "Invalid learning rate: -0.1"),
        ("Adagrad", {"lr_decay": -0.1}, "Invalid lr_decay value: -0.1"),
        ("Adagrad", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
        (
            "Adagrad",
            {"initial_accumulator_value": -1.0},
            "Invalid initial_accumulator_value value: -1.0",
        ),
        ("Adagrad", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
        ("Adamax", {"lr": -0.1}, "Invalid learning rate: -0.1"),
        ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
        ("Adamax", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
        ("Adamax", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
        ("NAdam", {"momentum_decay": -0.1}, "Invalid momentum_decay value: -0.1"),
        ("NAdam", {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
        ("NAdam", {"weight_decay": -0.1}, "Invalid weight_decay value: -0.1"),
        ("RAdam", {"lr": -0.1}, "Invalid learning rate: -0.1"),
        ("RAdam", {"betas": (-0.5, 0.9)}, "Invalid beta parameter at index 0: -0.5"),
        ("RAdam", {"eps": -1e-8}, "Invalid epsilon value: -1e-08"),
        ("LBFGS", {"lr": -1.0}, "Invalid learning rate: -1.0"),
    ],
)
def test_bad_hyperparameters_raise_pytorchs_value_error(name, options, message):
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        getattr(mg.optim, name)([w], **options)


@pytest.mark.parametrize(
    "name, options",
    [(n, {}) for n in NEW] + [("NAdam", {"momentum_decay": -1}), ("Adagrad", {"lr_decay": -1})],
)
def test_bad_hyperparameters_match_pytorchs_errors(name, options):
    torch = pytest.importorskip("torch")
    bad = dict(options or {"lr": -0.5})
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **bad)
    with pytest.raises(ValueError) as ours:
        getattr(mg.optim, name)([mg.zeros(2, requires_grad=True)], **bad)
    assert str(ours.value).startswith(str(theirs.value))


@pytest.mark.parametrize("name", NEW + ["LBFGS"])
def test_defaults_match_pytorch(name):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)]).defaults
    ours = getattr(mg.optim, name)([mg.zeros(2, requires_grad=True)]).defaults
    assert set(ours) == set(theirs)
    for key, value in theirs.items():
        assert ours[key] == (tuple(value) if isinstance(value, list) else value), key


@pytest.mark.parametrize("name", NEW)
def test_learning_rate_schedulers_drive_the_new_optimizers(name):
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    opt = getattr(mg.optim, name)([w], lr=0.1)
    sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        opt.zero_grad()
        (w**2).sum().backward()
        opt.step()
        sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.1, 0.05, 0.05, 0.025, 0.025])
    cosine = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    opt.step()
    cosine.step()
    assert opt.param_groups[0]["lr"] < 0.025
    plateau = mg.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.1)
    plateau.step(1.0)
    plateau.step(2.0)
    assert opt.param_groups[0]["lr"] < 0.0025


def test_lr_scheduler_drives_lbfgs():
    w = mg.tensor([1.0, -2.0], requires_grad=True)
    opt = mg.optim.LBFGS([w], lr=1.0, max_iter=2)
    sched = mg.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)

    def closure():
        opt.zero_grad()
        loss = ((w - 3.0) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(2):
        opt.step(closure)
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.25)
