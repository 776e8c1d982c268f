"""PyTorch parity: optimizers over several steps (every option), learning-rate schedulers'
``get_last_lr()`` trajectories, GradScaler's scale/skip state machine, and gradient clipping.

Parameters start equal; each step both libraries get the same gradient, computed from their own
current parameters by one NumPy formula, so any difference in an update shows up and grows.
"""

from __future__ import annotations

import inspect
import math
import warnings

import numpy as np
import pytest
from parity_helpers import assert_same, pair

import minigenesis as mg
from minigenesis import nn

torch = pytest.importorskip("torch")
MS = mg.optim.lr_scheduler
TS = torch.optim.lr_scheduler


def _grad(p: np.ndarray, step: int) -> np.ndarray:
    """A gradient that depends on the parameter (so trajectories could drift apart) and on the
    step (so the moments see changing signs)."""
    return 2.0 * (p - 0.3) + np.sin(np.arange(p.size).reshape(p.shape) + step)


def _params(dtype="float32"):
    init = [np.linspace(-1, 1, 6).reshape(2, 3), np.array([0.5, -0.25, 2.0])]
    return zip(*(pair(torch, a, dtype, requires_grad=True) for a in init))


OPTIMIZERS = {
    "sgd": ("SGD", {"lr": 0.1}),
    "sgd_momentum": ("SGD", {"lr": 0.1, "momentum": 0.9}),
    "sgd_dampening_wd": (
        "SGD",
        {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "weight_decay": 0.1},
    ),
    "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    "sgd_maximize": ("SGD", {"lr": 0.1, "momentum": 0.5, "maximize": True}),
    "sgd_default_lr": ("SGD", {}),
    "adam": ("Adam", {}),
    "adam_lr_betas_eps": ("Adam", {"lr": 0.05, "betas": (0.8, 0.9), "eps": 1e-6}),
    "adam_wd": ("Adam", {"lr": 0.05, "weight_decay": 0.1}),
    "adam_amsgrad": ("Adam", {"lr": 0.05, "amsgrad": True}),
    "adam_maximize": ("Adam", {"lr": 0.05, "maximize": True}),
    "adamw": ("AdamW", {"lr": 0.05}),
    "adamw_wd_amsgrad": ("AdamW", {"lr": 0.05, "weight_decay": 0.3, "amsgrad": True}),
    "rmsprop": ("RMSprop", {}),
    "rmsprop_momentum_centered": ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
    "rmsprop_wd_alpha": ("RMSprop", {"lr": 0.01, "alpha": 0.9, "weight_decay": 0.1, "eps": 1e-4}),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_optimizer_trajectories(name, dtype):
    cls, kwargs = OPTIMIZERS[name]
    m_params, t_params = _params(dtype)
    m_opt = getattr(mg.optim, cls)(list(m_params), **kwargs)
    t_opt = getattr(torch.optim, cls)(list(t_params), **kwargs)
    for step in range(6):
        for mp, tp in zip(m_params, t_params):
            g = _grad(tp.detach().double().numpy(), step)
            mp.grad = mg.tensor(g, dtype=mp.dtype)
            tp.grad = torch.tensor(g, dtype=tp.dtype)
        m_opt.step()
        t_opt.step()
        for i, (mp, tp) in enumerate(zip(m_params, t_params)):
            # Both follow PyTorch's operation order, but PyTorch fuses a + alpha * b into one
            # rounding where NumPy rounds twice: an ulp of the largest parameter (|p| <= 2),
            # compounded over 6 steps
            atol = 1e-6 if dtype == "float32" else 1e-14
            assert_same(mp, tp, rtol=1e-6, atol=atol, what=f"step {step} param {i}")
    for mp, tp in zip(m_params, t_params):
        m_state, t_state = m_opt.state[mp], t_opt.state[tp]
        assert sorted(m_state) == sorted(t_state)
        for key, tv in t_state.items():
            mv = m_state[key]
            if isinstance(tv, torch.Tensor) and tv.ndim:
                assert_same(mv, tv, rtol=1e-5, atol=1e-7, what=key)
            else:
                assert float(mv) == float(tv), key


def test_optimizer_param_groups_and_zero_grad():
    (m1, m2), (t1, t2) = _params()
    m_opt = mg.optim.SGD([{"params": [m1]}, {"params": [m2], "lr": 0.5}], lr=0.1, momentum=0.9)
    t_opt = torch.optim.SGD([{"params": [t1]}, {"params": [t2], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in m_opt.param_groups] == [g["lr"] for g in t_opt.param_groups]
    m_keys = sorted(k for k in m_opt.param_groups[1] if k not in ("foreach", "fused"))
    t_keys = sorted(k for k in t_opt.param_groups[1] if k in m_opt.param_groups[1])
    assert m_keys == sorted(set(t_keys) - {"foreach", "fused"})
    for step in range(3):
        for mp, tp in ((m1, t1), (m2, t2)):
            g = _grad(tp.detach().numpy().astype(np.float64), step)
            mp.grad, tp.grad = mg.tensor(g, dtype=mg.float32), torch.tensor(g, dtype=torch.float32)
        m_opt.step()
        t_opt.step()
        assert_same(m2, t2, rtol=1e-6)
    m_opt.zero_grad()
    t_opt.zero_grad()
    assert m1.grad is None and t1.grad is None  # set_to_none=True by default
    m1.grad, t1.grad = mg.ones(2, 3), torch.ones(2, 3)
    m_opt.zero_grad(set_to_none=False)
    t_opt.zero_grad(set_to_none=False)
    assert_same(m1.grad, t1.grad)


def test_a_parameter_without_gradient_is_left_alone():
    (m1, m2), (t1, t2) = _params()
    m_opt, t_opt = mg.optim.Adam([m1, m2], lr=0.1), torch.optim.Adam([t1, t2], lr=0.1)
    m1.grad, t1.grad = mg.ones(2, 3), torch.ones(2, 3)
    m_opt.step()
    t_opt.step()
    assert_same(m2, t2)
    assert len(m_opt.state[m2]) == len(t_opt.state[t2]) == 0


def test_optimizer_argument_errors():
    for cls, kwargs in [
        ("SGD", {"lr": -1.0}),
        ("SGD", {"lr": 0.1, "nesterov": True}),
        ("Adam", {"betas": (1.0, 0.9)}),
        ("Adam", {"eps": -1.0}),
        ("AdamW", {"weight_decay": -0.1}),
        ("RMSprop", {"alpha": -0.5}),
    ]:
        with pytest.raises(ValueError):
            getattr(torch.optim, cls)([torch.zeros(1, requires_grad=True)], **kwargs)
        with pytest.raises(ValueError):
            getattr(mg.optim, cls)([mg.zeros(1, requires_grad=True)], **kwargs)


def _hf_cosine(warmup, total, cycles=0.5):
    def f(step):
        if step < warmup:
            return step / max(1, warmup)
        progress = (step - warmup) / max(1, total - warmup)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * cycles * 2.0 * progress)))

    return f


def _hf_linear(warmup, total):
    def f(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))

    return f


SCHEDULERS = {
    "step": lambda S, o: S.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda S, o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "exponential": lambda S, o: S.ExponentialLR(o, gamma=0.8),
    "cosine": lambda S, o: S.CosineAnnealingLR(o, T_max=5, eta_min=0.01),
    "cosine_restarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "linear": lambda S, o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=4),
    "constant": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=3),
    "lambda": lambda S, o: S.LambdaLR(o, lambda e: 0.9**e + 0.1),
    "lambda_per_group": lambda S, o: S.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.5]),
    "multiplicative": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.95),
    "polynomial": lambda S, o: S.PolynomialLR(o, total_iters=6, power=2.0),
    "onecycle": lambda S, o: S.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=14),
    "onecycle_linear_3phase": lambda S, o: S.OneCycleLR(
        o, max_lr=0.8, total_steps=14, anneal_strategy="linear", three_phase=True
    ),
    "cyclic": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="triangular2"),
    "sequential": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, 0.1, total_iters=3), S.ExponentialLR(o, 0.7)], milestones=[3]
    ),
    "chained": lambda S, o: S.ChainedScheduler([S.ConstantLR(o, 0.5, 3), S.ExponentialLR(o, 0.9)]),
    "hf_cosine_warmup": lambda S, o: (
        MS.get_cosine_schedule_with_warmup(o, 3, 12)
        if S is MS
        else TS.LambdaLR(o, _hf_cosine(3, 12))
    ),
    "hf_linear_warmup": lambda S, o: (
        MS.get_linear_schedule_with_warmup(o, 3, 12)
        if S is MS
        else TS.LambdaLR(o, _hf_linear(3, 12))
    ),
}


def _two_groups(L, optim_module):
    a, b = L.zeros(2, requires_grad=True), L.zeros(3, requires_grad=True)
    return optim_module.SGD([{"params": [a]}, {"params": [b], "lr": 0.2}], lr=0.1, momentum=0.9)


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_scheduler_learning_rates(name):
    m_opt, t_opt = _two_groups(mg, mg.optim), _two_groups(torch, torch.optim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation notes (e.g. chained + verbose)
        m_sched, t_sched = SCHEDULERS[name](MS, m_opt), SCHEDULERS[name](TS, t_opt)
        for step in range(14):
            m_lr, t_lr = m_sched.get_last_lr(), t_sched.get_last_lr()
            assert isinstance(m_lr, list)
            np.testing.assert_allclose(m_lr, t_lr, rtol=1e-12, atol=1e-15, err_msg=f"step {step}")
            for mg_group, t_group in zip(m_opt.param_groups, t_opt.param_groups):
                assert mg_group["lr"] == pytest.approx(t_group["lr"], rel=1e-12, abs=1e-15)
                if "momentum" in t_group:
                    assert mg_group["momentum"] == pytest.approx(t_group["momentum"], rel=1e-12)
            m_opt.step()
            t_opt.step()
            if step == 12:
                break
            m_sched.step()
            t_sched.step()


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"mode": "max", "factor": 0.5, "patience": 1},
        {"patience": 0, "cooldown": 2, "min_lr": 0.02},
        {"threshold_mode": "abs", "threshold": 0.1, "patience": 1},
    ],
    ids=["default", "max", "cooldown_min_lr", "abs"],
)
def test_reduce_lr_on_plateau(kwargs):
    m_opt, t_opt = _two_groups(mg, mg.optim), _two_groups(torch, torch.optim)
    m_sched = MS.ReduceLROnPlateau(m_opt, **kwargs)
    t_sched = TS.ReduceLROnPlateau(t_opt, **kwargs)
    metrics = [1.0, 0.9, 0.95, 0.95, 0.91, 0.99, 0.85, 0.85, 0.86, 0.86, 0.9, 0.7] * 2
    for step, metric in enumerate(metrics):
        m_sched.step(metric)
        t_sched.step(metric)
        assert [g["lr"] for g in m_opt.param_groups] == pytest.approx(
            [g["lr"] for g in t_opt.param_groups], rel=1e-12
        ), step
        np.testing.assert_allclose(m_sched.get_last_lr(), t_sched.get_last_lr(), rtol=1e-12)


def test_scheduler_state_dict_round_trip_continues_the_schedule():
    m_opt = _two_groups(mg, mg.optim)
    m_sched = MS.StepLR(m_opt, 2, 0.5)
    t_opt = _two_groups(torch, torch.optim)
    t_sched = TS.StepLR(t_opt, 2, 0.5)
    for _ in range(3):
        m_opt.step(), m_sched.step(), t_opt.step(), t_sched.step()
    state = m_sched.state_dict()
    assert state["last_epoch"] == t_sched.state_dict()["last_epoch"]
    m_opt2 = _two_groups(mg, mg.optim)
    m_sched2 = MS.StepLR(m_opt2, 2, 0.5)
    m_sched2.load_state_dict(state)
    m_opt2.load_state_dict(m_opt.state_dict())
    for _ in range(3):
        m_opt2.step(), m_sched2.step(), t_opt.step(), t_sched.step()
        np.testing.assert_allclose(m_sched2.get_last_lr(), t_sched.get_last_lr(), rtol=1e-12)


# ------------------------------------------------------------------ GradScaler
@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # disabled: inf steps go through (as torch)
def test_grad_scaler_state_machine(enabled):
    kwargs = dict(init_scale=2.0**4, growth_factor=3.0, backoff_factor=0.25, growth_interval=2)
    m_scaler = mg.amp.GradScaler(**kwargs, enabled=enabled)
    t_scaler = torch.amp.GradScaler("cpu", **kwargs, enabled=enabled)
    (mp,), (tp,) = zip(pair(torch, [1.0, -2.0, 0.5], "float32", requires_grad=True))
    m_opt, t_opt = mg.optim.SGD([mp], lr=0.1), torch.optim.SGD([tp], lr=0.1)
    bad_steps = {2, 3, 6}
    for step in range(9):
        m_opt.zero_grad()
        t_opt.zero_grad()
        c = float("inf") if step in bad_steps else 1.0 + 0.25 * step
        m_loss = (mp * mp).sum() * c
        t_loss = (tp * tp).sum() * c
        m_scaled, t_scaled = m_scaler.scale(m_loss), t_scaler.scale(t_loss)
        assert_same(m_scaled, t_scaled, rtol=1e-6)
        m_scaled.backward()
        t_scaled.backward()
        if step % 2:  # unscale_ before step (e.g. for clipping) on odd steps
            m_scaler.unscale_(m_opt)
            t_scaler.unscale_(t_opt)
            assert_same(mp.grad, tp.grad, rtol=1e-6)
        m_scaler.step(m_opt)
        t_scaler.step(t_opt)
        m_scaler.update()
        t_scaler.update()
        assert m_scaler.get_scale() == t_scaler.get_scale(), step
        assert m_scaler.is_enabled() == t_scaler.is_enabled()
        assert_same(mp, tp, rtol=1e-6)


def test_grad_scaler_scale_of_a_list_and_state_dict():
    m_scaler, t_scaler = mg.amp.GradScaler(init_scale=8.0), torch.amp.GradScaler("cpu", 8.0)
    m_out = m_scaler.scale([mg.ones(2), (mg.ones(1) * 2,)])
    t_out = t_scaler.scale([torch.ones(2), (torch.ones(1) * 2,)])
    assert_same(m_out[0], t_out[0])
    assert_same(m_out[1][0], t_out[1][0])
    m_state, t_state = m_scaler.state_dict(), t_scaler.state_dict()
    assert sorted(m_state) == sorted(t_state)
    for k in t_state:
        assert float(m_state[k]) == float(t_state[k]), k


# ------------------------------------------------------------------ clipping
def _grads_pair(values):
    m_params, t_params = [], []
    for v in values:
        mp, tp = pair(torch, np.zeros_like(np.asarray(v, dtype=np.float64)), "float32", True)
        mp.grad = mg.tensor(v, dtype=mg.float32)
        tp.grad = torch.tensor(v, dtype=torch.float32)
        m_params.append(mp)
        t_params.append(tp)
    return m_params, t_params


GRADS = [[3.0, -4.0, 0.5], [[1.0, 0.0], [-2.0, 12.0]], [0.0]]


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 3.0, 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [1.0, 100.0])
def test_clip_grad_norm(norm_type, max_norm):
    m_params, t_params = _grads_pair(GRADS)
    m_total = nn.utils.clip_grad_norm_(m_params, max_norm, norm_type=norm_type)
    t_total = torch.nn.utils.clip_grad_norm_(t_params, max_norm, norm_type=norm_type)
    assert_same(m_total, t_total, rtol=1e-6)  # the norm before clipping
    for mp, tp in zip(m_params, t_params):
        assert_same(mp.grad, tp.grad, rtol=1e-6)


def test_clip_grad_norm_type_zero():
    m_params, t_params = _grads_pair(GRADS)
    assert_same(
        nn.utils.clip_grad_norm_(m_params, 100.0, 0),
        torch.nn.utils.clip_grad_norm_(t_params, 100.0, 0),
    )


def test_clip_grad_norm_single_tensor_nonfinite_and_empty():
    m_params, t_params = _grads_pair([[3.0, 4.0]])
    assert_same(
        nn.utils.clip_grad_norm_(m_params[0], 1.0),
        torch.nn.utils.clip_grad_norm_(t_params[0], 1.0),
        rtol=1e-6,
    )
    assert_same(m_params[0].grad, t_params[0].grad, rtol=1e-6)
    m_params, t_params = _grads_pair([[float("nan"), 1.0]])
    with pytest.raises(RuntimeError):
        torch.nn.utils.clip_grad_norm_(t_params, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError):
        nn.utils.clip_grad_norm_(m_params, 1.0, error_if_nonfinite=True)
    assert_same(
        nn.utils.clip_grad_norm_(m_params, 1.0), torch.nn.utils.clip_grad_norm_(t_params, 1.0)
    )
    no_grad_m, no_grad_t = mg.zeros(2, requires_grad=True), torch.zeros(2, requires_grad=True)
    assert_same(
        nn.utils.clip_grad_norm_([no_grad_m], 1.0), torch.nn.utils.clip_grad_norm_([no_grad_t], 1.0)
    )


@pytest.mark.parametrize("clip_value", [0.5, 5])
def test_clip_grad_value(clip_value):
    m_params, t_params = _grads_pair(GRADS)
    nn.utils.clip_grad_value_(m_params, clip_value)
    torch.nn.utils.clip_grad_value_(t_params, clip_value)
    for mp, tp in zip(m_params, t_params):
        assert_same(mp.grad, tp.grad)


def test_parameters_to_vector_and_back():
    (m1, m2), (t1, t2) = _params()
    mv = nn.utils.parameters_to_vector([m1, m2])
    tv = torch.nn.utils.parameters_to_vector([t1, t2])
    assert_same(mv, tv)
    nn.utils.vector_to_parameters(mv * 2, [m1, m2])
    torch.nn.utils.vector_to_parameters(tv * 2, [t1, t2])
    assert_same(m1, t1)
    assert_same(m2, t2)


_BAD_OPTIONS = [
    ("lr", -0.1),
    ("eps", -1e-8),
    ("weight_decay", -0.5),
    ("momentum", -0.9),
    ("betas", (1.0, 0.999)),
    ("betas", (0.9, -0.1)),
    ("momentum_decay", -1.0),
    ("lr_decay", -1.0),
    ("initial_accumulator_value", -1.0),
    ("alpha", -0.5),
]
_CHECKED_OPTIMIZERS = [
    "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "LBFGS"
]  # fmt: skip


@pytest.mark.parametrize("name", _CHECKED_OPTIMIZERS)
def test_out_of_range_options_are_refused_with_torchs_message(name):
    takes = inspect.signature(getattr(torch.optim, name)).parameters
    checked = 0
    for option, value in _BAD_OPTIONS:
        if option not in takes:
            continue
        with pytest.raises(ValueError) as theirs:
            getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **{option: value})
        with pytest.raises(ValueError) as ours:
            getattr(mg.optim, name)([mg.zeros(2, requires_grad=True)], **{option: value})
        assert str(ours.value).startswith(str(theirs.value)), (option, value)
        checked += 1
    assert checked >= 1


@pytest.mark.parametrize(
    "name",
    ["SGD", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta", "RMSprop", "NAdam", "RAdam", "Rprop"]
    + ["ASGD", "LBFGS", "SparseAdam", "Adafactor"],
)
def test_optimizer_signature_and_group_keys_match_pytorch(name: str) -> None:
    """The same constructor parameters (the positional ones in the same order), and the same
    keys in a group (so a state_dict of one library names what the other's names)."""
    ours, theirs = getattr(mg.optim, name), getattr(torch.optim, name)

    def positional(cls: type) -> list:
        params = inspect.signature(cls).parameters.values()
        return [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]

    assert positional(ours) == positional(theirs)
    assert set(inspect.signature(ours).parameters) == set(inspect.signature(theirs).parameters)
    ours_group = ours([mg.zeros(2, requires_grad=True)]).param_groups[0]
    theirs_group = theirs([torch.zeros(2, requires_grad=True)]).param_groups[0]
    assert sorted(ours_group) == sorted(theirs_group)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 0.5, 0.0, float("inf"), "inf"])
def test_total_norm_then_clip_with_it_matches_pytorch(norm_type) -> None:
    arrays = [np.linspace(-2, 3, 12).reshape(3, 4), np.array([0.0, 0.0]), np.array(4.0)]
    norms, grads = [], []
    for lib in (mg, torch):
        params = [lib.zeros(a.shape, dtype=lib.float64, requires_grad=True) for a in arrays]
        for p, a in zip(params, arrays):
            p.grad = lib.tensor(a)
        total = lib.nn.utils.get_total_norm([p.grad for p in params], norm_type)
        lib.nn.utils.clip_grads_with_norm_(params, 1.5, total)
        norms.append(float(total))
        grads.append(np.concatenate([p.grad.numpy().ravel() for p in params]))
    np.testing.assert_allclose(norms[0], norms[1], rtol=1e-14)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-14)
