"""Hyper-parameters that cannot mean anything are refused where they are given: NaN, infinity, and
values out of range in the optimizers, the learning-rate schedulers, GradScaler and the
normalization layers. PyTorch accepts many of these (``SGD(lr=inf)``, ``LinearLR(start_factor=
nan)``, ``GradScaler(init_scale=nan)``) and trains on garbage; here each is a ValueError whose
message names the argument and the value."""

from __future__ import annotations

import math

import pytest

import minigenesis as mg
from minigenesis import nn

NAN, INF = math.nan, math.inf
O = mg.optim
S = mg.optim.lr_scheduler


def _w():
    return mg.zeros(3, requires_grad=True)


def _sgd():
    return O.SGD([_w()], lr=0.1, momentum=0.9)


def _adam():
    return O.Adam([_w()], lr=0.1)


# every optimizer and the options it takes that must be finite numbers in a range
OPTIMIZER_OPTIONS = {
    O.SGD: ["lr", "momentum", "dampening", "weight_decay"],
    O.Adam: ["lr", "eps", "weight_decay"],
    O.AdamW: ["lr", "eps", "weight_decay"],
    O.RMSprop: ["lr", "alpha", "eps", "weight_decay", "momentum"],
    O.Adagrad: ["lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"],
    O.Adadelta: ["lr", "rho", "eps", "weight_decay"],
    O.Adamax: ["lr", "eps", "weight_decay"],
    O.NAdam: ["lr", "eps", "weight_decay", "momentum_decay"],
    O.RAdam: ["lr", "eps", "weight_decay"],
    O.LBFGS: ["lr", "tolerance_grad", "tolerance_change"],
}
OPTIMIZER_CASES = [
    pytest.param(cls, name, bad, id=f"{cls.__name__}-{name}={bad}")
    for cls, names in OPTIMIZER_OPTIONS.items()
    for name in names
    for bad in (NAN, INF, -INF)
]
BETAS_CASES = [
    pytest.param(cls, betas, id=f"{cls.__name__}-betas={betas}")
    for cls in (O.Adam, O.AdamW, O.Adamax, O.NAdam, O.RAdam)
    for betas in ((NAN, 0.999), (0.9, NAN), (INF, 0.999))
]


def _refused(make, name: str, bad) -> None:
    """``make()`` raises ValueError naming ``name`` and showing ``bad``."""
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert name in message and str(bad) in message, message


@pytest.mark.parametrize("cls, name, bad", OPTIMIZER_CASES)
def test_an_optimizer_refuses_a_non_finite_option(cls, name, bad):
    _refused(lambda: cls([_w()], **{name: bad}), name, bad)


@pytest.mark.parametrize("cls, betas", BETAS_CASES)
def test_an_adam_family_optimizer_refuses_non_finite_betas(cls, betas):
    index = 0 if not math.isfinite(betas[0]) else 1
    _refused(lambda: cls([_w()], betas=betas), f"betas[{index}]", betas[index])


@pytest.mark.parametrize("cls, name, bad", OPTIMIZER_CASES)
def test_a_parameter_group_added_later_gets_the_same_checks(cls, name, bad):
    if cls is O.LBFGS:
        pytest.skip("LBFGS has a single parameter group")
    opt = cls([_w()])
    _refused(lambda: opt.add_param_group({"params": [_w()], name: bad}), name, bad)
    assert len(opt.param_groups) == 1  # nothing half-added


def test_lbfgs_refuses_non_integer_iteration_counts():
    for name, bad in (("max_iter", NAN), ("max_eval", INF), ("history_size", 0)):
        _refused(lambda n=name, b=bad: O.LBFGS([_w()], **{n: b}), name, bad)


SCHEDULER_CASES = [
    (lambda **k: S.StepLR(_sgd(), **{"step_size": 2, **k}), "step_size", NAN),
    (lambda **k: S.StepLR(_sgd(), 2, **k), "gamma", NAN),
    (lambda **k: S.StepLR(_sgd(), 2, **k), "gamma", INF),
    (lambda **k: S.MultiStepLR(_sgd(), [2, 4], **k), "gamma", NAN),
    (lambda **k: S.MultiStepLR(_sgd(), **{"milestones": [2, k["milestones"]]}), "milestones", NAN),
    (lambda **k: S.ExponentialLR(_sgd(), **k), "gamma", NAN),
    (lambda **k: S.ExponentialLR(_sgd(), **k), "gamma", INF),
    (lambda **k: S.ConstantLR(_sgd(), **k), "factor", NAN),
    (lambda **k: S.ConstantLR(_sgd(), **k), "total_iters", INF),
    (lambda **k: S.LinearLR(_sgd(), **k), "start_factor", NAN),
    (lambda **k: S.LinearLR(_sgd(), **k), "end_factor", NAN),
    (lambda **k: S.LinearLR(_sgd(), **k), "total_iters", NAN),
    (lambda **k: S.PolynomialLR(_sgd(), **k), "power", NAN),
    (lambda **k: S.PolynomialLR(_sgd(), **k), "total_iters", INF),
    (lambda **k: S.CosineAnnealingLR(_sgd(), **{"T_max": 10, **k}), "T_max", NAN),
    (lambda **k: S.CosineAnnealingLR(_sgd(), **{"T_max": 10, **k}), "T_max", INF),
    (lambda **k: S.CosineAnnealingLR(_sgd(), 10, **k), "eta_min", NAN),
    (lambda **k: S.CosineAnnealingLR(_sgd(), 10, **k), "eta_min", INF),
    (lambda **k: S.CosineAnnealingWarmRestarts(_sgd(), 10, **k), "eta_min", NAN),
    (lambda **k: S.CyclicLR(_sgd(), **{"base_lr": 0.01, "max_lr": 0.1, **k}), "base_lr", NAN),
    (lambda **k: S.CyclicLR(_sgd(), **{"base_lr": 0.01, "max_lr": 0.1, **k}), "max_lr", INF),
    (lambda **k: S.CyclicLR(_sgd(), 0.01, 0.1, **k), "step_size_up", NAN),
    (lambda **k: S.CyclicLR(_sgd(), 0.01, 0.1, **k), "step_size_down", INF),
    (lambda **k: S.CyclicLR(_sgd(), 0.01, 0.1, mode="exp_range", **k), "gamma", NAN),
    (lambda **k: S.CyclicLR(_sgd(), 0.01, 0.1, **k), "base_momentum", NAN),
    (lambda **k: S.CyclicLR(_sgd(), 0.01, 0.1, **k), "max_momentum", INF),
    (lambda **k: S.OneCycleLR(_sgd(), **{"max_lr": 0.1, "total_steps": 10, **k}), "max_lr", NAN),
    (lambda **k: S.OneCycleLR(_sgd(), 0.1, 10, **k), "pct_start", NAN),
    (lambda **k: S.OneCycleLR(_sgd(), 0.1, 10, **k), "div_factor", NAN),
    (lambda **k: S.OneCycleLR(_sgd(), 0.1, 10, **k), "final_div_factor", INF),
    (lambda **k: S.OneCycleLR(_adam(), 0.1, 10, **k), "base_momentum", NAN),
    (lambda **k: S.OneCycleLR(_adam(), 0.1, 10, **k), "max_momentum", INF),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "factor", NAN),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "threshold", NAN),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "min_lr", NAN),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "eps", INF),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "patience", NAN),
    (lambda **k: S.ReduceLROnPlateau(_sgd(), **k), "cooldown", INF),
]


@pytest.mark.parametrize(
    "make, name, bad",
    [
        pytest.param(make, name, bad, id=f"{make.__code__.co_firstlineno}-{name}={bad}")
        for make, name, bad in SCHEDULER_CASES
    ],
)
def test_a_scheduler_refuses_a_non_finite_argument(make, name, bad):
    _refused(lambda: make(**{name: bad}), name, bad)


@pytest.mark.parametrize(
    "name, bad",
    [
        ("init_scale", NAN),
        ("init_scale", INF),
        ("init_scale", 0.0),
        ("init_scale", -1.0),
        ("growth_factor", NAN),
        ("growth_factor", 1.0),
        ("growth_factor", INF),
        ("backoff_factor", NAN),
        ("backoff_factor", 0.0),
        ("backoff_factor", 1.0),
        ("growth_interval", 0),
        ("growth_interval", NAN),
    ],
)
def test_grad_scaler_refuses_a_scale_or_factor_that_cannot_work(name, bad):
    _refused(lambda: mg.amp.GradScaler(**{name: bad}), name, bad)
    # the setters and update(new_scale=) keep the same ranges
    scaler = mg.amp.GradScaler()
    setter = {
        "growth_factor": scaler.set_growth_factor,
        "backoff_factor": scaler.set_backoff_factor,
        "growth_interval": scaler.set_growth_interval,
    }.get(name)
    if setter is not None:
        _refused(lambda: setter(bad), name, bad)


def test_grad_scaler_update_refuses_a_non_finite_new_scale():
    scaler = mg.amp.GradScaler(init_scale=4.0)
    scaler.scale(mg.tensor(1.0))
    for bad in (NAN, INF, 0.0):
        _refused(lambda b=bad: scaler.update(new_scale=b), "new_scale", bad)
    assert scaler.get_scale() == 4.0


NORM_LAYERS = {
    "BatchNorm1d": lambda **k: nn.BatchNorm1d(4, **k),
    "BatchNorm2d": lambda **k: nn.BatchNorm2d(4, **k),
    "InstanceNorm1d": lambda **k: nn.InstanceNorm1d(4, **k),
    "LayerNorm": lambda **k: nn.LayerNorm(4, **k),
    "RMSNorm": lambda **k: nn.RMSNorm(4, **k),
    "GroupNorm": lambda **k: nn.GroupNorm(2, 4, **k),
}
NORM_CASES = [
    pytest.param(make, "eps", bad, id=f"{layer}-eps={bad}")
    for layer, make in NORM_LAYERS.items()
    for bad in (NAN, INF, -1e-5)
] + [
    pytest.param(NORM_LAYERS[layer], "momentum", bad, id=f"{layer}-momentum={bad}")
    for layer in ("BatchNorm1d", "BatchNorm2d", "InstanceNorm1d")
    for bad in (NAN, INF, -0.1, 1.5)
]


@pytest.mark.parametrize("make, name, bad", NORM_CASES)
def test_a_normalization_layer_refuses_a_bad_eps_or_momentum(make, name, bad):
    _refused(lambda: make(**{name: bad}), name, bad)


def test_the_edges_of_each_range_are_still_accepted():
    """lr=0, eps=0, momentum None or 1, a scale of exactly 1 step: meaningful, so accepted."""
    O.SGD([_w()], lr=0.0, momentum=0.0, weight_decay=0.0)
    O.Adam([_w()], lr=0.0, eps=0.0, betas=(0.0, 0.0))
    O.Adam([_w()], lr=mg.tensor(0.01))  # a tensor learning rate, as PyTorch allows
    O.Adadelta([_w()], rho=1.0)
    S.LinearLR(_sgd(), start_factor=1.0, end_factor=0.0)
    S.ConstantLR(_sgd(), factor=0.0, total_iters=0)
    S.CosineAnnealingLR(_sgd(), T_max=2.5)
    mg.amp.GradScaler(init_scale=1e-30, growth_factor=1.0001, backoff_factor=0.999)
    nn.BatchNorm1d(4, momentum=None, eps=0.0)
    nn.BatchNorm1d(4, momentum=1.0)
    nn.RMSNorm(4, eps=None)


def test_a_string_where_a_number_is_meant_is_a_type_error_naming_the_argument():
    with pytest.raises(TypeError, match="weight_decay must be a real number, got str"):
        O.AdamW([_w()], weight_decay="0.01")
    with pytest.raises(TypeError, match="gamma must be a real number, got NoneType"):
        S.ExponentialLR(_sgd(), gamma=None)
