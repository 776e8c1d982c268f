"""LR schedulers: every trajectory against its closed form and (when installed) PyTorch, and
resuming from state_dict mid-way equals an uninterrupted run."""

from __future__ import annotations

import math
import pickle
import warnings
from bisect import bisect_right

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.optim import lr_scheduler as S

STEPS = 120
BASE = (0.1, 0.03)  # two param groups with different base lrs


def make_opt(lib, kind="sgd"):
    """An optimizer over two param groups, from minigenesis or torch (same code for both)."""
    if lib is mg:
        w1, w2 = mg.zeros(3, requires_grad=True), mg.zeros(2, requires_grad=True)
    else:
        w1, w2 = lib.zeros(3, requires_grad=True), lib.zeros(2, requires_grad=True)
    groups = [{"params": [w1], "lr": BASE[0]}, {"params": [w2], "lr": BASE[1]}]
    if kind == "adam":
        return lib.optim.Adam(groups, lr=BASE[0])
    return lib.optim.SGD(groups, lr=BASE[0], momentum=0.9)


def cosine_restarts(t, T_0, T_mult, eta_min, base):
    T_i, T_cur = T_0, t
    while T_cur >= T_i:
        T_cur -= T_i
        T_i *= T_mult
    return eta_min + (base - eta_min) * (1 + math.cos(math.pi * T_cur / T_i)) / 2


def one_cycle(t, base_max, total, pct, div=25.0, final_div=1e4, three_phase=False, cos=True):
    init, peak = base_max / div, base_max
    low = init / final_div
    anneal = (
        (lambda a, b, p: b + (a - b) / 2 * (math.cos(math.pi * p) + 1))
        if cos
        else (lambda a, b, p: (b - a) * p + a)
    )
    up_end = pct * total - 1
    if three_phase:
        down_end = 2 * pct * total - 2
        if t <= up_end:
            return anneal(init, peak, t / up_end)
        if t <= down_end:
            return anneal(peak, init, (t - up_end) / (down_end - up_end))
        return anneal(init, low, (t - down_end) / (total - 1 - down_end))
    if t <= up_end:
        return anneal(init, peak, t / up_end)
    return anneal(peak, low, (t - up_end) / (total - 1 - up_end))


def cyclic(t, base, peak, up, down, scale=lambda cycle, t: 1.0):
    position = t % (up + down)
    frac = position / up if position <= up else 1 - (position - up) / down
    return base + (peak - base) * frac * scale(t // (up + down) + 1, t)


def hf_cosine(t, W, T):
    if t < W:
        return t / max(1, W)
    return max(0.0, 0.5 * (1 + math.cos(math.pi * (t - W) / max(1, T - W))))


def hf_linear(t, W, T):
    if t < W:
        return t / max(1, W)
    return max(0.0, (T - t) / max(1, T - W))


# name -> (factory(scheduler module, optimizer), closed form lr(t, base_lr, group index) or None,
#          optimizer kind, whether torch has it under the same name)
CASES = {
    "LambdaLR": (
        lambda L, o: L.LambdaLR(o, lambda e: 0.95 ** (e // 10)),
        lambda t, b, i: b * 0.95 ** (t // 10),
        "sgd",
        True,
    ),
    "LambdaLR_per_group": (
        lambda L, o: L.LambdaLR(o, [lambda e: 1 / (1 + e), lambda e: 0.99**e]),
        lambda t, b, i: b / (1 + t) if i == 0 else b * 0.99**t,
        "sgd",
        True,
    ),
    "MultiplicativeLR": (
        lambda L, o: L.MultiplicativeLR(o, lambda e: 0.97),
        lambda t, b, i: b * 0.97**t,
        "sgd",
        True,
    ),
    "StepLR": (
        lambda L, o: L.StepLR(o, step_size=30, gamma=0.1),
        lambda t, b, i: b * 0.1 ** (t // 30),
        "sgd",
        True,
    ),
    "MultiStepLR": (
        lambda L, o: L.MultiStepLR(o, milestones=[30, 80, 80], gamma=0.5),
        lambda t, b, i: b * 0.5 ** bisect_right([30, 80, 80], t),
        "sgd",
        True,
    ),
    "ExponentialLR": (
        lambda L, o: L.ExponentialLR(o, gamma=0.95),
        lambda t, b, i: b * 0.95**t,
        "sgd",
        True,
    ),
    "CosineAnnealingLR": (
        lambda L, o: L.CosineAnnealingLR(o, T_max=40, eta_min=1e-4),
        lambda t, b, i: 1e-4 + (b - 1e-4) * (1 + math.cos(math.pi * t / 40)) / 2,
        "sgd",
        True,
    ),
    "CosineAnnealingWarmRestarts": (
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2, eta_min=1e-5),
        lambda t, b, i: cosine_restarts(t, 10, 2, 1e-5, b),
        "sgd",
        True,
    ),
    "CosineAnnealingWarmRestarts_T_mult1": (
        lambda L, o: L.CosineAnnealingWarmRestarts(o, T_0=7),
        lambda t, b, i: cosine_restarts(t, 7, 1, 0.0, b),
        "sgd",
        True,
    ),
    "LinearLR": (
        lambda L, o: L.LinearLR(o, start_factor=0.25, total_iters=20),
        lambda t, b, i: b * (0.25 + 0.75 * min(t, 20) / 20),
        "sgd",
        True,
    ),
    "LinearLR_decay": (
        lambda L, o: L.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=50),
        lambda t, b, i: b * (1.0 - 0.9 * min(t, 50) / 50),
        "sgd",
        True,
    ),
    "ConstantLR": (
        lambda L, o: L.ConstantLR(o, factor=0.5, total_iters=10),
        lambda t, b, i: b * (0.5 if t < 10 else 1.0),
        "sgd",
        True,
    ),
    "PolynomialLR": (
        lambda L, o: L.PolynomialLR(o, total_iters=80, power=2.0),
        lambda t, b, i: b * (1 - min(t, 80) / 80) ** 2,
        "sgd",
        True,
    ),
    "OneCycleLR": (
        lambda L, o: L.OneCycleLR(o, max_lr=[0.1, 0.05], total_steps=STEPS + 1),
        lambda t, b, i: one_cycle(t, (0.1, 0.05)[i], STEPS + 1, 0.3),
        "sgd",
        True,
    ),
    "OneCycleLR_three_phase_linear_adam": (
        lambda L, o: L.OneCycleLR(
            o,
            max_lr=0.2,
            epochs=11,
            steps_per_epoch=11,
            pct_start=0.25,
            anneal_strategy="linear",
            three_phase=True,
        ),
        lambda t, b, i: one_cycle(t, 0.2, 121, 0.25, three_phase=True, cos=False),
        "adam",
        True,
    ),
    "SequentialLR": (
        lambda L, o: L.SequentialLR(
            o,
            [L.LinearLR(o, start_factor=0.1, total_iters=10), L.ExponentialLR(o, gamma=0.95)],
            milestones=[10],
        ),
        lambda t, b, i: b * (0.1 + 0.9 * t / 10) if t < 10 else b * 0.95 ** (t - 10),
        "sgd",
        True,
    ),
    "SequentialLR_three": (
        lambda L, o: L.SequentialLR(
            o,
            [
                L.ConstantLR(o, factor=0.2, total_iters=100),
                L.StepLR(o, step_size=7, gamma=0.5),
                L.CosineAnnealingLR(o, T_max=30),
            ],
            milestones=[20, 60],
        ),
        lambda t, b, i: (
            b * 0.2
            if t < 20
            else b * 0.5 ** ((t - 20) // 7)
            if t < 60
            else b * (1 + math.cos(math.pi * (t - 60) / 30)) / 2
        ),
        "sgd",
        True,
    ),
    "ChainedScheduler": (
        lambda L, o: L.ChainedScheduler(
            [L.ConstantLR(o, factor=0.1, total_iters=5), L.ExponentialLR(o, gamma=0.9)]
        ),
        lambda t, b, i: b * 0.9**t * (0.1 if t < 5 else 1.0),
        "sgd",
        True,
    ),
    "CyclicLR": (
        lambda L, o: L.CyclicLR(
            o, base_lr=0.01, max_lr=[0.1, 0.05], step_size_up=10, step_size_down=15
        ),
        lambda t, b, i: cyclic(t, 0.01, (0.1, 0.05)[i], 10, 15),
        "sgd",
        True,
    ),
    "CyclicLR_triangular2_adam": (
        lambda L, o: L.CyclicLR(o, base_lr=1e-3, max_lr=1e-2, step_size_up=8, mode="triangular2"),
        lambda t, b, i: cyclic(t, 1e-3, 1e-2, 8, 8, lambda c, t: 0.5 ** (c - 1)),
        "adam",
        True,
    ),
    "CyclicLR_exp_range": (
        lambda L, o: L.CyclicLR(
            o,
            base_lr=1e-3,
            max_lr=1e-2,
            step_size_up=5,
            mode="exp_range",
            gamma=0.99,
            cycle_momentum=False,
        ),
        lambda t, b, i: cyclic(t, 1e-3, 1e-2, 5, 5, lambda c, t: 0.99**t),
        "sgd",
        True,
    ),
    "cosine_with_warmup": (
        lambda L, o: L.get_cosine_schedule_with_warmup(o, 10, 100),
        lambda t, b, i: b * hf_cosine(t, 10, 100),
        "sgd",
        False,
    ),
    "linear_with_warmup": (
        lambda L, o: L.get_linear_schedule_with_warmup(o, 15, 100),
        lambda t, b, i: b * hf_linear(t, 15, 100),
        "sgd",
        False,
    ),
}


def run(sched, opt, steps=STEPS):
    """The lr of every group before each of ``steps`` epochs, stepping as a training loop does."""
    out = []
    for _ in range(steps):
        out.append([g["lr"] for g in opt.param_groups])
        assert list(sched.get_last_lr()) == out[-1]
        opt.step()
        sched.step()
    return np.array(out)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_matches_closed_form(name):
    factory, closed, kind, _ = CASES[name]
    opt = make_opt(mg, kind)
    got = run(factory(S, opt), opt)
    want = np.array([[closed(t, BASE[i], i) for i in range(2)] for t in range(STEPS)])
    if name.startswith("OneCycle"):  # OneCycleLR sets its own base lr
        want = np.array([[closed(t, None, i) for i in range(2)] for t in range(STEPS)])
    assert len(np.unique(got[:, 0])) >= 2  # the schedule really moves
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[3]))
def test_trajectory_matches_pytorch(name):
    torch = pytest.importorskip("torch")
    factory, _, kind, _ = CASES[name]
    opt = make_opt(mg, kind)
    got = run(factory(S, opt), opt)
    topt = make_opt(torch, kind)
    want = run(factory(torch.optim.lr_scheduler, topt), topt)
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=0)
    # the momentum / beta1 OneCycleLR cycles matches too
    for key in ("momentum", "betas"):
        if key in topt.param_groups[0]:
            ours = np.array([g[key] for g in opt.param_groups], dtype=float)
            theirs = np.array([g[key] for g in topt.param_groups], dtype=float)
            np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("split", [1, 37])
def test_resume_from_state_dict_equals_uninterrupted(name, split):
    factory, _, kind, _ = CASES[name]
    opt = make_opt(mg, kind)
    full = run(factory(S, opt), opt)

    opt = make_opt(mg, kind)
    sched = factory(S, opt)
    first = run(sched, opt, split)
    # through pickle: the state dicts must be plain data a checkpoint can hold
    opt_state = pickle.loads(pickle.dumps(opt.state_dict()))
    sched_state = pickle.loads(pickle.dumps(sched.state_dict()))

    # the PyTorch recipe: build optimizer and scheduler, then load the optimizer, then the scheduler
    opt2 = make_opt(mg, kind)
    sched2 = factory(S, opt2)
    opt2.load_state_dict(opt_state)
    sched2.load_state_dict(sched_state)
    rest = run(sched2, opt2, STEPS - split)
    np.testing.assert_array_equal(np.concatenate([first, rest]), full)


@pytest.mark.parametrize(
    "name",
    [
        "StepLR",
        "ExponentialLR",
        "CosineAnnealingLR",
        "LinearLR",
        "MultiStepLR",
        "ConstantLR",
        "PolynomialLR",
        "LambdaLR",
    ],
)
def test_last_epoch_resume_matches_pytorch(name):
    """Constructing with last_epoch=k (after loading the optimizer) behaves as PyTorch does."""
    torch = pytest.importorskip("torch")
    factory, _, kind, _ = CASES[name]
    results = []
    for lib, L in ((mg, S), (torch, torch.optim.lr_scheduler)):
        opt = make_opt(lib, kind)
        run(factory(L, opt), opt, 25)
        state = opt.state_dict()
        opt2 = make_opt(lib, kind)
        opt2.load_state_dict(state)
        # rebuild with last_epoch=24 by binding it into the factory's keyword arguments
        sched = _with_last_epoch(factory, L, opt2, 24)
        results.append(run(sched, opt2, 40))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-14)


def _with_last_epoch(factory, L, opt, last_epoch):
    class Patched:
        def __getattr__(self, attr):
            cls = getattr(L, attr)
            return lambda *a, **k: cls(*a, last_epoch=last_epoch, **k)

    return factory(Patched(), opt)


def test_step_with_epoch_uses_closed_form_and_warns():
    opt = make_opt(mg)
    sched = S.StepLR(opt, step_size=3, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(7)
    assert sched.last_epoch == 7
    assert sched.get_last_lr() == [BASE[0] * 0.25, BASE[1] * 0.25]


def test_warm_restarts_fractional_epochs():
    opt = make_opt(mg)
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=0.001)
    iters = 4
    for epoch in range(20):
        for i in range(iters):
            e = epoch + i / iters
            sched.step(e)
            want = cosine_restarts(e, 5, 2, 0.001, BASE[0])
            assert sched.get_last_lr()[0] == pytest.approx(want, rel=1e-12)
            assert sched.last_epoch == math.floor(e)
    with pytest.raises(ValueError, match="non-negative"):
        sched.step(-1)


def test_warm_restarts_fractional_epochs_match_pytorch():
    torch = pytest.importorskip("torch")
    lrs = []
    for lib, L in ((mg, S), (torch, torch.optim.lr_scheduler)):
        opt = make_opt(lib)
        sched = L.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=3, eta_min=0.01)
        out = []
        for e in np.arange(0, 40, 0.3):
            sched.step(float(e))
            out.append(sched.get_last_lr())
        lrs.append(np.array(out))
    np.testing.assert_allclose(lrs[0], lrs[1], rtol=1e-14)


def test_get_last_lr_is_a_list_that_formats_like_a_float():
    w = mg.zeros(2, requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.5)
    sched = S.ExponentialLR(opt, gamma=0.5)
    opt.step()
    sched.step()
    lrs = sched.get_last_lr()
    assert isinstance(lrs, list) and lrs == [0.25]
    assert f"{lrs:.6f}" == "0.250000"
    assert f"{lrs}" == str(lrs) == "[0.25]"
    assert float(lrs) == 0.25
    assert type(pickle.loads(pickle.dumps(lrs))) is list
    two = S.ExponentialLR(make_opt(mg), gamma=0.5).get_last_lr()
    with pytest.raises(TypeError, match="2 learning rates"):
        f"{two:.3f}"
    with pytest.raises(TypeError, match="one per param group"):
        float(two)


def test_state_dict_is_plain_data():
    opt = make_opt(mg)
    sched = S.MultiStepLR(opt, milestones=[2, 5])
    state = sched.state_dict()
    assert "optimizer" not in state
    assert type(state["milestones"]) is dict and type(state["_last_lr"]) is list
    lam = S.LambdaLR(opt, lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None, None]


def test_lambda_state_of_callable_objects_is_saved():
    class Decay:
        def __init__(self, rate):
            self.rate = rate

        def __call__(self, epoch):
            return self.rate**epoch

    opt = make_opt(mg)
    sched = S.LambdaLR(opt, Decay(0.5))
    state = sched.state_dict()
    assert state["lr_lambdas"] == [{"rate": 0.5}, {"rate": 0.5}]
    fresh = S.LambdaLR(make_opt(mg), Decay(0.9))
    fresh.load_state_dict(state)
    assert fresh.lr_lambdas[0].rate == 0.5


def test_scheduler_step_before_optimizer_step_warns():
    opt = make_opt(mg)
    sched = S.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()
    opt = make_opt(mg)
    sched = S.StepLR(opt, step_size=2)
    opt.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()


def test_an_optimizer_a_learner_writes_also_records_its_step():
    class PlainSGD(mg.optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, {"lr": lr})

        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    p.data -= group["lr"] * p.grad.data

    class Subclassed(PlainSGD):  # its inherited step is wrapped once, not twice
        pass

    for cls in (PlainSGD, Subclassed):
        w = mg.ones(2, requires_grad=True)
        opt = cls([w], lr=0.5)
        sched = S.StepLR(opt, step_size=1, gamma=0.5)
        (w * w).sum().backward()
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sched.step()
        assert w.tolist() == [0.0, 0.0] and opt.param_groups[0]["lr"] == 0.25
    sched = S.StepLR(PlainSGD([mg.ones(1, requires_grad=True)], lr=0.5), step_size=1)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_get_lr_called_directly_warns():
    sched = S.StepLR(make_opt(mg), step_size=2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_constructor_sets_initial_lr_and_applies_step_zero():
    opt = make_opt(mg)
    S.LinearLR(opt, start_factor=0.5, total_iters=4)
    assert [g["initial_lr"] for g in opt.param_groups] == list(BASE)
    assert [g["lr"] for g in opt.param_groups] == [BASE[0] * 0.5, BASE[1] * 0.5]


def test_one_cycle_sets_momentum_and_refuses_extra_steps():
    opt = make_opt(mg)
    sched = S.OneCycleLR(opt, max_lr=1.0, total_steps=10, base_momentum=0.8, max_momentum=0.9)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.9)
    for _ in range(2):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["momentum"] < 0.9  # moves opposite to the lr
    adam = make_opt(mg, "adam")
    S.OneCycleLR(adam, max_lr=1.0, total_steps=10)
    assert adam.param_groups[0]["betas"] == (0.95, 0.999)
    for _ in range(8):
        opt.step()
        sched.step()
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        sched.step()


def test_reduce_on_plateau_hand_computed():
    opt = make_opt(mg)  # base lrs 0.1 and 0.03
    sched = S.ReduceLROnPlateau(opt, factor=0.5, patience=2, threshold=0.1, cooldown=1, min_lr=0.02)
    metrics = [1.0, 0.95, 0.95, 0.95, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8, 0.8]
    got = []
    for m in metrics:
        sched.step(m)
        got.append(list(sched.get_last_lr()))
    # epoch 1 sets best=1.0; 0.95 is not below 1.0 * (1 - 0.1), so epochs 2-4 are bad and the
    # third bad epoch (> patience=2) halves the lr (group 1 stops at min_lr). Epoch 5 improves
    # (and is the cooldown epoch); epochs 6-8 are bad -> halve; epoch 9 is cooldown; 10-12 bad,
    # and the last halving stops at min_lr = 0.02.
    want = [[0.1, 0.03]] * 3 + [[0.05, 0.02]] * 4 + [[0.025, 0.02]] * 4 + [[0.02, 0.02]]
    np.testing.assert_allclose(got, want, rtol=1e-15)
    assert sched.best == 0.8


def test_reduce_on_plateau_max_mode_abs_threshold_and_tensor_metric():
    opt = make_opt(mg)
    sched = S.ReduceLROnPlateau(
        opt, mode="max", factor=0.1, patience=0, threshold=0.5, threshold_mode="abs"
    )
    sched.step(mg.tensor(1.0))  # a one-element tensor works as the metric
    sched.step(1.4)  # not above 1.0 + 0.5: bad, and patience 0 -> reduce
    assert sched.get_last_lr() == pytest.approx([0.01, 0.003])
    sched.step(2.0)  # above 1.5: improves
    assert sched.get_last_lr() == pytest.approx([0.01, 0.003]) and sched.best == 2.0


@pytest.mark.parametrize(
    "mode, threshold_mode", [("min", "rel"), ("min", "abs"), ("max", "rel"), ("max", "abs")]
)
def test_reduce_on_plateau_matches_pytorch(mode, threshold_mode):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    # a noisy curve that flattens out, so improvements and plateaus both happen
    metrics = 1.0 / (1 + np.arange(150) / 10) + 0.02 * rng.standard_normal(150)
    if mode == "max":
        metrics = -metrics
    trajectories = []
    for lib, L in ((mg, S), (torch, torch.optim.lr_scheduler)):
        opt = make_opt(lib)
        sched = L.ReduceLROnPlateau(
            opt,
            mode=mode,
            factor=0.7,
            patience=3,
            threshold=0.01,
            threshold_mode=threshold_mode,
            cooldown=2,
            min_lr=[1e-3, 1e-4],
        )
        out = []
        for m in metrics:
            opt.step()
            sched.step(float(m))
            out.append(list(sched.get_last_lr()) + [sched.num_bad_epochs, sched.cooldown_counter])
        trajectories.append(np.array(out))
    assert len(np.unique(trajectories[0][:, 0])) > 3
    np.testing.assert_allclose(trajectories[0], trajectories[1], rtol=1e-15)


def test_reduce_on_plateau_resume_and_verbose(capsys):
    metrics = [1.0] * 30
    opt = make_opt(mg)
    full = S.ReduceLROnPlateau(opt, patience=3)
    full_lrs = []
    for m in metrics:
        full.step(m)
        full_lrs.append(list(full.get_last_lr()))
    opt = make_opt(mg)
    first = S.ReduceLROnPlateau(opt, patience=3, verbose=True)
    for m in metrics[:10]:
        first.step(m)
    assert "reducing learning rate of group 0 to 1.0000e-02" in capsys.readouterr().out
    opt_state = pickle.loads(pickle.dumps(opt.state_dict()))
    sched_state = pickle.loads(pickle.dumps(first.state_dict()))
    opt2 = make_opt(mg)
    second = S.ReduceLROnPlateau(opt2, patience=3)
    opt2.load_state_dict(opt_state)
    second.load_state_dict(sched_state)
    rest = []
    for m in metrics[10:]:
        second.step(m)
        rest.append(list(second.get_last_lr()))
    assert rest == full_lrs[10:]


def test_optim_re_exports_are_the_lr_scheduler_objects():
    assert mg.optim.LambdaLR is S.LambdaLR
    assert mg.optim.get_cosine_schedule_with_warmup is S.get_cosine_schedule_with_warmup
    assert mg.optim.lr_scheduler is S
    from minigenesis.optim.lr_scheduler import LRScheduler, ReduceLROnPlateau

    assert issubclass(ReduceLROnPlateau, LRScheduler)
    for name in S.__all__:
        assert getattr(S, name) is not None


def test_cyclic_custom_scale_fn_and_its_state():
    class Halving:
        def __init__(self):
            self.base = 0.5

        def __call__(self, x):
            return self.base ** (x - 1)

    opt = make_opt(mg)
    fn = Halving()
    sched = S.CyclicLR(
        opt, base_lr=0.0, max_lr=1.0, step_size_up=2, scale_fn=fn, scale_mode="cycle"
    )
    lrs = run(sched, opt, 9)[:, 0]
    np.testing.assert_allclose(lrs, [0, 0.5, 1, 0.5, 0, 0.25, 0.5, 0.25, 0], atol=1e-15)
    state = sched.state_dict()
    assert state["_scale_fn_custom"] == {"base": 0.5}
    pickle.dumps(state)
    fn2 = Halving()
    fn2.base = 0.9
    other = S.CyclicLR(make_opt(mg), base_lr=0.0, max_lr=1.0, step_size_up=2, scale_fn=fn2)
    other.load_state_dict(state)
    assert fn2.base == 0.5 and other.last_epoch == sched.last_epoch
    with pytest.raises(ValueError, match="mode 'sawtooth' is invalid"):
        S.CyclicLR(opt, 0.1, 1.0, mode="sawtooth")

    class PlainGD(mg.optim.Optimizer):  # no momentum, no betas
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

    with pytest.raises(ValueError, match="must support momentum"):
        S.CyclicLR(PlainGD([mg.zeros(1, requires_grad=True)]), 0.1, 1.0)
    S.CyclicLR(PlainGD([mg.zeros(1, requires_grad=True)]), 0.1, 1.0, cycle_momentum=False)
