"""Checks for chapter 6. Oracles: mg.optim.SGD / Adam / AdamW run side by side on an identical
model (float64, every parameter after every step), and closed forms for simple cases."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

F = nn.functional

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 6.1  step() delegates to an mg.optim.SGD built in __init__       -> by-hand watch
#      weight decay added after the momentum buffer (decoupled)    -> vs mg.optim.SGD, wd=0.01
#      every parameter with the first group's settings             -> param groups, lr each step
#      weight decay added into p.grad in place (g = p.grad; g.add_(wd * p)) -> grads kept
#      the momentum buffer is p.grad itself (no clone)            -> grads kept
#      a parameter without .grad stepped as if its gradient were 0 -> skips parameters without grad
# 6.2  step() delegates to mg.optim.Adam                           -> by-hand watch
#      no bias correction (m, v used raw)                          -> first step is lr * sign
#      weight decay added into p.grad in place                     -> grads kept
# 6.3  step() delegates to mg.optim.AdamW                          -> by-hand watch
#      L2 decay through the gradient (Adam's rule)                 -> zero-gradient decay
#      lr and decay read from self.defaults (fixed when built)     -> param groups, lr each step
#      bias correction with t from 0 or beta1 for v; decay after the update -> constant gradient
#      decay applied to parameters whose .grad is None             -> without gradient alone
# 6.4  every parameter in the decayed group                        -> split by dimension
#      "bias" in the name decides (LayerNorm's weight gets decayed) -> split by dimension
#      the frozen parameter put in a group                          -> split by dimension
# The two on param groups and the lr (6.1, 6.3) run in tests/course/test_cheats_caught.py, which
# checks that "param groups, lr each step" is the one check that fails.


def _model(seed: int = 0) -> nn.Module:
    mg.manual_seed(seed)
    return nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.LayerNorm(6), nn.Linear(6, 2)).double()


def _data(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = mg.tensor(rng.standard_normal((16, 4)), dtype=mg.float64)
    y = mg.tensor(rng.standard_normal((16, 2)), dtype=mg.float64)
    return x, y


def _compare(impl_opt_factory, ref_opt_factory, steps: int = 6, rtol: float = 1e-9):
    model = _model()
    twin = copy.deepcopy(model)
    mine, ref = impl_opt_factory(list(model.parameters())), ref_opt_factory(twin.parameters())
    x, y = _data()
    for step in range(steps):
        for m, opt in ((model, mine), (twin, ref)):
            opt.zero_grad(set_to_none=step % 2 == 0)  # also in place: a buffer aliasing p.grad
            F.mse_loss(m(x), y).backward()
            opt.step()
        for (name, p), q in zip(model.named_parameters(), twin.parameters()):
            np.testing.assert_allclose(
                p.grad.numpy(), q.grad.numpy(), rtol=rtol, atol=1e-12,
                err_msg=f"{name}.grad after step {step + 1} is not what backward left there: "
                "step() must not write into p.grad (`g = p.grad; g.add_(...)` does; write "
                "`g = p.grad + ...`), nor keep p.grad itself as a buffer (clone it)",
            )  # fmt: skip
            np.testing.assert_allclose(
                p.detach().numpy(), q.detach().numpy(), rtol=rtol, atol=1e-12,
                err_msg=f"{name} after step {step + 1}",
            )  # fmt: skip
    return model


@pytest.mark.exercise("6.1")
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(lr=0.1),
        dict(lr=0.1, momentum=0.9),
        dict(lr=0.05, momentum=0.9, nesterov=True),
        dict(lr=0.1, momentum=0.8, weight_decay=0.01),
    ],
)
def test_sgd_matches_mg_optim(impl, kwargs):
    _compare(lambda ps: impl.SGDMomentum(ps, **kwargs), lambda ps: mg.optim.SGD(ps, **kwargs))


@pytest.mark.exercise("6.1")
def test_momentum_on_a_constant_gradient(impl):
    """With gradient 1 every step, momentum m: step t moves lr * (1 - m^t) / (1 - m)."""
    p = mg.zeros(1, requires_grad=True, dtype=mg.float64)
    opt = impl.SGDMomentum([p], lr=0.1, momentum=0.5)
    positions = []
    for _ in range(4):
        opt.zero_grad()
        p.sum().backward()  # d/dp sum(p) = 1
        opt.step()
        positions.append(p.item())
    expected = np.cumsum([-0.1 * (1 - 0.5**t) / 0.5 for t in range(1, 5)])
    np.testing.assert_allclose(positions, expected, rtol=1e-12)


@pytest.mark.exercise("6.1")
def test_sgd_skips_parameters_without_grad(impl):
    a, b = mg.ones(2, requires_grad=True), mg.ones(2, requires_grad=True)
    opt = impl.SGDMomentum([a, b], lr=0.5, momentum=0.9, weight_decay=0.1)
    (a * 3).sum().backward()
    opt.step()
    np.testing.assert_allclose(a.detach().numpy(), [-0.55, -0.55])  # 1 - 0.5 * (3 + 0.1 * 1)
    np.testing.assert_array_equal(
        b.detach().numpy(),
        [1.0, 1.0],
        err_msg="a parameter whose .grad is None changed: skip it entirely (no weight decay, "
        "no momentum), as mg.optim.SGD does",
    )
    assert a.is_leaf and a.grad_fn is None


@pytest.mark.exercise("6.2")
@pytest.mark.parametrize(
    "kwargs",
    [dict(lr=0.01), dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6), dict(lr=0.01, weight_decay=0.1)],
)
def test_adam_matches_mg_optim(impl, kwargs):
    _compare(lambda ps: impl.Adam(ps, **kwargs), lambda ps: mg.optim.Adam(ps, **kwargs))


@pytest.mark.exercise("6.2")
def test_adam_first_step_is_lr_times_sign(impl):
    """At t = 1, bias correction makes m_hat = g and v_hat = g^2: the step is lr g / (|g| + eps)."""
    p = mg.tensor([1.0, 1.0, 1.0], dtype=mg.float64, requires_grad=True)
    opt = impl.Adam([p], lr=0.1, eps=1e-8)
    (p * mg.tensor([1000.0, -0.001, 3.0], dtype=mg.float64)).sum().backward()
    opt.step()
    g = np.array([1000.0, -0.001, 3.0])
    np.testing.assert_allclose(p.detach().numpy(), 1 - 0.1 * g / (np.abs(g) + 1e-8), rtol=1e-12)


@pytest.mark.exercise("6.3")
@pytest.mark.parametrize("kwargs", [dict(lr=0.01), dict(lr=0.01, weight_decay=0.3)])
def test_adamw_matches_mg_optim(impl, kwargs):
    _compare(lambda ps: impl.AdamW(ps, **kwargs), lambda ps: mg.optim.AdamW(ps, **kwargs))


@pytest.mark.exercise("6.3")
def test_adamw_decay_with_zero_gradient(impl):
    """A zero gradient leaves only the decoupled decay: p shrinks by (1 - lr * wd) per step."""
    p = mg.tensor([2.0, -4.0], dtype=mg.float64, requires_grad=True)
    opt = impl.AdamW([p], lr=0.1, weight_decay=0.5)
    for _ in range(3):
        p.grad = mg.zeros_like(p)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), np.array([2.0, -4.0]) * 0.95**3, rtol=1e-12)


@pytest.mark.exercise("6.3")
def test_adamw_leaves_a_parameter_without_gradient_alone(impl):
    """A parameter whose .grad is None (frozen, or unused in this forward) takes no part in the
    step, the decay included, as in mg.optim.AdamW: only p (with a gradient) shrinks."""
    p = mg.tensor([2.0, -4.0], dtype=mg.float64, requires_grad=True)
    q = mg.tensor([1.0, 3.0], dtype=mg.float64, requires_grad=True)
    opt = impl.AdamW([p, q], lr=0.1, weight_decay=0.5)
    p.grad = mg.zeros_like(p)
    opt.step()
    np.testing.assert_allclose(p.detach().numpy(), np.array([2.0, -4.0]) * 0.95, rtol=1e-12)
    assert q.grad is None
    np.testing.assert_array_equal(
        q.detach().numpy(),
        np.array([1.0, 3.0]),
        err_msg="a parameter whose .grad is None changed: skip it entirely (no decay either)",
    )


@pytest.mark.exercise("6.3")
def test_adamw_with_a_constant_gradient_names_the_mistake(impl):
    """Closed form: with the same gradient g at every step, bias correction makes m_hat = g and
    v_hat = g^2 at EVERY step t, so each step is p <- p (1 - lr wd) - lr g / (|g| + eps). The
    check compares the steps one by one and names which part differs."""
    lr, wd, eps = 0.1, 0.5, 1e-8
    g = np.array([1000.0, -0.001, 3.0])
    p = mg.tensor([1.0, -2.0, 0.5], dtype=mg.float64, requires_grad=True)
    opt = impl.AdamW([p], lr=lr, weight_decay=wd, eps=eps)
    adam_part = lr * g / (np.abs(g) + eps)
    for t in range(1, 5):
        before = p.detach().numpy().copy()
        opt.zero_grad()
        (p * mg.tensor(g, dtype=mg.float64)).sum().backward()
        opt.step()
        got = p.detach().numpy()
        if np.allclose(got, (before - adam_part) * (1 - lr * wd), rtol=1e-12):
            pytest.fail(
                f"step {t}: the decay p *= 1 - lr * wd was applied AFTER the Adam update; "
                "AdamW shrinks the parameter first, then takes Adam's step",
                pytrace=False,
            )
        mine = before * (1 - lr * wd) - got  # the Adam part of your step, if the decay is right
        assert np.allclose(mine, adam_part, rtol=1e-9), (
            f"step {t}: after the decay p *= 1 - lr * wd, your step moved p by {-mine}, not "
            f"{-adam_part} = -lr g / (|g| + eps). With a constant gradient, m / (1 - beta1**t) = g "
            "and v / (1 - beta2**t) = g^2 at every step: check the bias corrections (t counts "
            "from 1 at the first step, beta1 for m and beta2 for v), and that the gradient Adam "
            "sees is the raw one (no weight_decay * p added, that is Adam's L2)"
        )


@pytest.mark.exercise("6.4")
def test_param_groups_split_by_dimension(impl):
    model = _model()
    model[0].bias.requires_grad_(False)
    groups = impl.param_groups_for_weight_decay(model, 0.1)
    assert [g["weight_decay"] for g in groups] == [0.1, 0.0]
    name = {id(p): n for n, p in model.named_parameters()}
    got = [[name.get(id(p), "a tensor not of the model") for p in g["params"]] for g in groups]
    want = [["0.weight", "3.weight"], ["2.weight", "2.bias", "3.bias"]]
    assert got == want, (
        f"groups {got}, expected {want}: matrices (ndim >= 2) decay, vectors (biases, the "
        "LayerNorm 2's weight) do not, and 0.bias is frozen (requires_grad False): in no group"
    )


@pytest.mark.exercise("6.4")
def test_param_groups_work_with_mg_adamw(impl):
    """Only the decayed group shrinks when the gradients are zero."""
    model = _model()
    opt = mg.optim.AdamW(impl.param_groups_for_weight_decay(model, 0.5), lr=0.1)
    before = {n: p.detach().numpy().copy() for n, p in model.named_parameters()}
    for p in model.parameters():
        p.grad = mg.zeros_like(p)
    opt.step()
    for name, p in model.named_parameters():
        factor = 0.95 if p.ndim >= 2 else 1.0
        np.testing.assert_allclose(p.detach().numpy(), before[name] * factor, err_msg=name)


def _step_by_hand(make, what: str) -> None:
    """A few steps of the optimizer ``make(params)`` builds, watching that no code of mg.optim
    runs in them: the exercise is the update rule that mg.optim holds."""
    model = _model()
    opt = make(list(model.parameters()))
    x, y = _data()
    with watch_calls() as seen:
        for _ in range(2):
            opt.zero_grad()
            F.mse_loss(model(x), y).backward()
            opt.step()
    used = [Path(f).name for f in seen.used(mg.optim)]
    assert not used, f"{what} ran mg.optim ({', '.join(used)}): write the update yourself"


@pytest.mark.exercise("6.1")
def test_sgd_step_is_written_by_hand(impl):
    _step_by_hand(lambda ps: impl.SGDMomentum(ps, lr=0.1, momentum=0.9), "SGDMomentum")


@pytest.mark.exercise("6.2")
def test_adam_step_is_written_by_hand(impl):
    _step_by_hand(lambda ps: impl.Adam(ps, lr=0.01), "Adam")


@pytest.mark.exercise("6.3")
def test_adamw_step_is_written_by_hand(impl):
    _step_by_hand(lambda ps: impl.AdamW(ps, lr=0.01), "AdamW")


# The interface mg.optim has: param groups with their own settings, a learning rate read from
# the group at every step (what a scheduler changes), zero_grad, state.
def _grouped(model: nn.Module) -> list[dict]:
    first, rest = list(model.parameters())[:2], list(model.parameters())[2:]
    return [{"params": first, "lr": 0.05, "weight_decay": 0.2}, {"params": rest}]


@pytest.mark.exercise("6.1")
def test_sgd_takes_param_groups_and_reads_lr_each_step(impl):
    _compare_with_lr_changes(
        lambda ps: impl.SGDMomentum(ps, lr=0.1, momentum=0.9),
        lambda ps: mg.optim.SGD(ps, lr=0.1, momentum=0.9),
    )


@pytest.mark.exercise("6.2")
def test_adam_takes_param_groups_and_reads_lr_each_step(impl):
    _compare_with_lr_changes(
        lambda ps: impl.Adam(ps, lr=0.01), lambda ps: mg.optim.Adam(ps, lr=0.01)
    )


@pytest.mark.exercise("6.3")
def test_adamw_takes_param_groups_and_reads_lr_each_step(impl):
    _compare_with_lr_changes(
        lambda ps: impl.AdamW(ps, lr=0.01), lambda ps: mg.optim.AdamW(ps, lr=0.01)
    )


def _compare_with_lr_changes(make_mine, make_ref) -> None:
    """Both optimizers get the same two param groups (the first with its own lr and weight
    decay); before each step every group's lr is changed, as a scheduler does."""
    model = _model()
    twin = copy.deepcopy(model)
    mine, ref = make_mine(_grouped(model)), make_ref(_grouped(twin))
    assert [len(g["params"]) for g in mine.param_groups] == [2, 4]
    assert mine.param_groups[0]["lr"] == 0.05 and mine.param_groups[1]["lr"] == ref.defaults["lr"]
    x, y = _data()
    for step in range(5):
        for m, opt in ((model, mine), (twin, ref)):
            for group in opt.param_groups:
                group["lr"] *= 0.5 if step % 2 else 1.5
            opt.zero_grad()
            F.mse_loss(m(x), y).backward()
            opt.step()
        for (name, p), q in zip(model.named_parameters(), twin.parameters()):
            np.testing.assert_allclose(
                p.detach().numpy(), q.detach().numpy(), rtol=1e-9, atol=1e-12,
                err_msg=f"{name} after step {step + 1}",
            )  # fmt: skip
    mine.zero_grad()
    assert all(p.grad is None for p in model.parameters())


@pytest.mark.exercise("6.4")
def test_param_groups_work_with_the_chapters_adamw(impl):
    """6.4's groups drive this chapter's AdamW (the reference one, in a check of 6.4) as they
    drive mg.optim's: only the decayed group shrinks when the gradients are zero."""
    model = _model()
    opt = impl.AdamW(impl.param_groups_for_weight_decay(model, 0.5), lr=0.1)
    before = {n: p.detach().numpy().copy() for n, p in model.named_parameters()}
    for p in model.parameters():
        p.grad = mg.zeros_like(p)
    opt.step()
    for name, p in model.named_parameters():
        factor = 0.95 if p.ndim >= 2 else 1.0
        np.testing.assert_allclose(p.detach().numpy(), before[name] * factor, err_msg=name)


# ----------------------------------------------------------------------------- 6.5
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("2fa5e6dfd93094ef", "5babebee64c0bd6e8e4419923d89c03adacc6343ed30185a59644a99ff5b6cdc"),
    "q2": ("aa9efb0658b78879", "0a787f01d94056a671096f19f107fa6dcabb8c65e64623693741f3464b762f01"),
    "q3": ("5d7162ef814f6a98", "68ca3ed0c0c15325049438500cf7de2fa12819d5d2915b364bc819c32798be14"),
    "q4": ("9138cae8a5b900cd", "7003b071c1a9ef6d1a12e3f29c69f3d60364727bc913cdc4afb32a857e7ded2e"),
    "q5": ("752dd14f62d17861", "e6a2084b74bb5528678c416227bbdae3ba2a1b0472d32472f5e9c54e6e0f3a20"),
}
QUIZ_HINTS = {
    "q1": (
        "Solve buf = 0.9 * buf + 1 for the buffer's fixed point ('Momentum on a constant "
        "gradient')."
    ),
    "q2": (
        "Compute m_hat and v_hat at step 1 with the bias correction ('Adam and its bias "
        "correction'); what is their ratio?"
    ),
    "q3": (
        "Write m_1 and v_1 from m_0 = v_0 = 0 and compare m_1 / sqrt(v_1) with the bias- "
        "corrected ratio."
    ),
    "q4": (
        "Follow lambda * w through Adam's update: what does it get divided by ('Weight decay: "
        "L2 (Adam) versus decoupled (AdamW)')?"
    ),
    "q5": (
        "Re-read 'Param groups: no decay for biases and norms': what is decay for, and what "
        "does a norm's weight do?"
    ),
}


@pytest.mark.exercise("6.5")
@pytest.mark.parametrize("question", list(QUIZ))
def test_6_5_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
