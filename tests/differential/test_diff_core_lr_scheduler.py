"""Differential tests: every learning-rate scheduler's sequence against PyTorch's, 100 steps.

Each schedule runs on an optimizer with two param groups (lr 0.1 and 0.05); after every step the
scheduler's ``get_last_lr()``, each group's lr and each group's momentum (or Adam's beta1, which
CyclicLR and OneCycleLR cycle) are recorded. The sequences must equal PyTorch's to the last bit or
so: its recursive (chainable) forms and its closed forms round differently, and the schedules
here follow whichever PyTorch uses. Also: a state_dict round trip mid-run (scheduler and
optimizer loaded into fresh ones), resuming with ``last_epoch=k``, and a tensor lr.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

RTOL = 1e-15


def _lam(e: int) -> float:
    return 0.95**e


SCHEDULES = {
    "StepLR": lambda S, o: S.StepLR(o, 7, gamma=0.3),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, [5, 20, 20, 60], gamma=0.5),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, 0.97),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, 13, eta_min=0.001),
    "CosineAnnealingLR_no_min": lambda S, o: S.CosineAnnealingLR(o, 30),
    "WarmRestarts_Tmult2": lambda S, o: S.CosineAnnealingWarmRestarts(o, 5, T_mult=2, eta_min=2e-3),
    "WarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, 7),
    "CyclicLR_triangular": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=7),
    "CyclicLR_triangular2": lambda S, o: S.CyclicLR(
        o, [0.01, 0.02], [0.1, 0.2], step_size_up=5, step_size_down=9, mode="triangular2"
    ),
    "CyclicLR_exp_range": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 6, mode="exp_range", gamma=0.98, base_momentum=0.7, max_momentum=0.95
    ),
    "CyclicLR_no_momentum": lambda S, o: S.CyclicLR(o, 0.01, 0.1, 6, cycle_momentum=False),
    "CyclicLR_scale_fn_iterations": lambda S, o: S.CyclicLR(
        o, 0.01, 0.1, 6, scale_fn=lambda x: 1 / (x + 1), scale_mode="iterations"
    ),
    "OneCycleLR": lambda S, o: S.OneCycleLR(o, 0.5, total_steps=101),
    "OneCycleLR_three_phase_linear": lambda S, o: S.OneCycleLR(
        o,
        [0.5, 0.3],
        total_steps=101,
        three_phase=True,
        anneal_strategy="linear",
        pct_start=0.25,
        div_factor=10,
        final_div_factor=100,
    ),
    "OneCycleLR_epochs": lambda S, o: S.OneCycleLR(
        o, 0.5, epochs=10, steps_per_epoch=11, base_momentum=0.8, max_momentum=0.9
    ),
    "OneCycleLR_no_momentum": lambda S, o: S.OneCycleLR(
        o, 0.5, total_steps=120, cycle_momentum=False
    ),
    "LambdaLR": lambda S, o: S.LambdaLR(o, _lam),
    "LambdaLR_per_group": lambda S, o: S.LambdaLR(o, [_lam, lambda e: 1 / (1 + e)]),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.97),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.2, end_factor=0.9, total_iters=30),
    "LinearLR_defaults": lambda S, o: S.LinearLR(o),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=10),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=40, power=2.0),
    "PolynomialLR_sqrt": lambda S, o: S.PolynomialLR(o, total_iters=40, power=0.5),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o,
        [S.LinearLR(o, 0.1, total_iters=10), S.ExponentialLR(o, 0.95), S.StepLR(o, 5, 0.5)],
        milestones=[10, 40],
    ),
    "SequentialLR_cosine": lambda S, o: S.SequentialLR(
        o, [S.ConstantLR(o, 0.5, total_iters=5), S.CosineAnnealingLR(o, 20)], milestones=[15]
    ),
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, 0.5, total_iters=15), S.ExponentialLR(o, 0.97), S.StepLR(o, 9, 0.7)]
    ),
    "ChainedScheduler_cosine": lambda S, o: S.ChainedScheduler(
        [S.LinearLR(o, 0.3, total_iters=10), S.CosineAnnealingLR(o, 25, eta_min=0.01)]
    ),
}
PLATEAU = {
    "min": (dict(patience=2, factor=0.5), lambda i: 1.0 if i % 7 else 0.5),
    "max_abs_cooldown_min_lr_list": (
        dict(
            mode="max",
            threshold_mode="abs",
            threshold=0.1,
            patience=1,
            cooldown=2,
            min_lr=[0.01, 0.02],
        ),
        lambda i: math.sin(i / 5),
    ),
    "rel_eps": (
        dict(threshold=0.05, patience=0, cooldown=1, eps=1e-3, factor=0.3),
        lambda i: 1 / (i + 1),
    ),
    "max_rel": (dict(mode="max", patience=3), lambda i: (i % 11) * 0.1),
}
for _name, (_kw, _) in PLATEAU.items():
    SCHEDULES["Plateau_" + _name] = lambda S, o, kw=_kw: S.ReduceLROnPlateau(o, **kw)


def _build(lib: Any, name: str, opt_name: str, lr: Any = None) -> tuple:
    params = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    options = dict(momentum=0.9) if opt_name == "SGD" else {}
    groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
    opt = getattr(lib.optim, opt_name)(groups, lr=0.1 if lr is None else lr, **options)
    return opt, SCHEDULES[name](lib.optim.lr_scheduler, opt)


def _sequence(
    lib: Any, name: str, opt_name: str = "SGD", reload_at: int | None = None
) -> np.ndarray:
    metric = PLATEAU[name[len("Plateau_") :]][1] if name.startswith("Plateau_") else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt, sched = _build(lib, name, opt_name)
        rows = []
        for i in range(100):
            opt.step()
            sched.step() if metric is None else sched.step(metric(i))
            moms = [g.get("momentum", g.get("betas", (0.0,))[0]) for g in opt.param_groups]
            rows.append(
                [float(x) for x in sched.get_last_lr()]
                + [float(g["lr"]) for g in opt.param_groups]
                + [float(m) for m in moms]
            )
            if i == reload_at:
                saved, saved_opt = sched.state_dict(), opt.state_dict()
                opt, sched = _build(lib, name, opt_name)
                opt.load_state_dict(saved_opt)
                sched.load_state_dict(saved)
    return np.array(rows)


def _compare(ours: np.ndarray, theirs: np.ndarray) -> None:
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=0)


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule_matches_pytorch_over_100_steps(name: str) -> None:
    _compare(_sequence(mg, name), _sequence(torch, name))


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedule_state_dict_round_trip_mid_run_matches_pytorch(name: str) -> None:
    _compare(_sequence(mg, name, reload_at=37), _sequence(torch, name, reload_at=37))


@pytest.mark.parametrize("name", [n for n in SCHEDULES if n.startswith(("Cyclic", "OneCycle"))])
def test_momentum_cycling_of_adams_beta1_matches_pytorch(name: str) -> None:
    _compare(_sequence(mg, name, "Adam"), _sequence(torch, name, "Adam"))


RESUMABLE = {
    "StepLR": lambda S, o, k: S.StepLR(o, 7, 0.3, last_epoch=k),
    "ExponentialLR": lambda S, o, k: S.ExponentialLR(o, 0.97, last_epoch=k),
    "CosineAnnealingLR": lambda S, o, k: S.CosineAnnealingLR(o, 13, 0.001, last_epoch=k),
    "WarmRestarts": lambda S, o, k: S.CosineAnnealingWarmRestarts(o, 5, 2, last_epoch=k),
    "LinearLR": lambda S, o, k: S.LinearLR(o, 0.2, total_iters=30, last_epoch=k),
    "PolynomialLR": lambda S, o, k: S.PolynomialLR(o, 40, 2.0, last_epoch=k),
    "MultiStepLR": lambda S, o, k: S.MultiStepLR(o, [5, 30], last_epoch=k),
    "LambdaLR": lambda S, o, k: S.LambdaLR(o, _lam, last_epoch=k),
    "CyclicLR": lambda S, o, k: S.CyclicLR(o, 0.01, 0.1, 7, last_epoch=k),
}


@pytest.mark.parametrize("name", list(RESUMABLE))
def test_resuming_with_last_epoch_matches_pytorch(name: str) -> None:
    def run(lib: Any) -> list:
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=0.1, momentum=0.9)
        opt.param_groups[0]["initial_lr"] = 0.1
        sched = RESUMABLE[name](lib.optim.lr_scheduler, opt, 25)
        out = [float(sched.get_last_lr()[0])]
        for _ in range(40):
            opt.step()
            sched.step()
            out += [float(sched.get_last_lr()[0]), float(opt.param_groups[0]["momentum"])]
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert run(mg) == run(torch)


@pytest.mark.parametrize(
    "name",
    [
        "StepLR",
        "CosineAnnealingLR",
        "WarmRestarts",
        "OneCycleLR",
        "SequentialLR",
        "ChainedScheduler",
        "Plateau_min",
    ],
)
def test_schedule_on_a_tensor_lr_matches_pytorch(name: str) -> None:
    """A float64 lr tensor: the scheduler writes into it, and every group reads it."""
    metric = PLATEAU["min"][1] if name.startswith("Plateau") else None

    def run(lib: Any) -> np.ndarray:
        lr = lib.tensor(0.1, dtype=lib.float64)
        p = lib.zeros(2, requires_grad=True)
        opt = lib.optim.SGD([p], lr=lr, momentum=0.9)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        rows = []
        for i in range(60):
            opt.step()
            sched.step() if metric is None else sched.step(metric(i))
            rows.append(
                [float(sched.get_last_lr()[0]), float(lr), float(opt.param_groups[0]["lr"])]
            )
        return np.array(rows)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(run(mg), run(torch))
