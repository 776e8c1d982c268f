"""Optimizer base behaviour: groups, zero_grad, state_dict layout and casting, closures, no graph,
low-precision parameters, and clear errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.optim.optimizer import required

OPTIMIZERS = [mg.optim.SGD, mg.optim.Adam, mg.optim.AdamW, mg.optim.RMSprop]


def quadratic_step(opt, params):
    opt.zero_grad()
    loss = sum(((p - 1.0) ** 2).sum() for p in params)
    loss.backward()
    opt.step()
    return loss


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_empty_parameter_list_is_refused(cls):
    with pytest.raises(ValueError, match="empty parameter list"):
        cls([], lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        cls(iter(()), lr=0.1)


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_negative_lr_is_refused(cls):
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid learning rate: -0.1"):
        cls([w], lr=-0.1)


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_non_iterable_params_are_refused(cls):
    with pytest.raises(TypeError, match="iterable of Tensors or dicts, but got builtins.int"):
        cls(3, lr=0.1)
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(TypeError, match="single .*Tensor.*wrap it in a list"):
        cls(w, lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        cls({w}, lr=0.1)
    with pytest.raises(
        TypeError, match="can only optimize Tensors, but one of the params is numpy.ndarray"
    ):
        cls([np.zeros(2)], lr=0.1)


def test_other_bad_options_name_what_is_wrong():
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="Invalid momentum value: -1"):
        mg.optim.SGD([w], lr=0.1, momentum=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        mg.optim.SGD([w], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        mg.optim.Adam([w], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Invalid weight_decay value"):
        mg.optim.AdamW([w], weight_decay=-0.01)
    with pytest.raises(ValueError, match="Invalid epsilon value"):
        mg.optim.RMSprop([w], eps=-1.0)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        mg.optim.SGD([{"params": [w], "lr": -1.0}], lr=0.1)
    with pytest.raises(TypeError, match="lr must be a real number, got str"):
        mg.optim.SGD([w], lr="fast")
    with pytest.raises(ValueError, match="non-leaf"):
        mg.optim.SGD([w * 2], lr=0.1)
    with pytest.raises(TypeError, match="floating-point"):
        mg.optim.SGD([mg.zeros(2, dtype=mg.int64)], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        mg.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(ValueError, match="same parameter more than once"):
        mg.optim.SGD([w, w], lr=0.1)


def test_required_option_must_be_given_per_group():
    class Needy(mg.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": required})

    w = mg.zeros(1, requires_grad=True)
    with pytest.raises(
        ValueError, match="didn't specify a value of required optimization parameter lr"
    ):
        Needy([w])
    assert Needy([{"params": [w], "lr": 0.5}]).param_groups[0]["lr"] == 0.5


def test_scheduler_bad_input():
    S = mg.optim.lr_scheduler
    w = mg.zeros(2, requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    plateau = S.ReduceLROnPlateau(opt)
    with pytest.raises(
        TypeError, match="needs the metric it watches.*scheduler.step\\(val_loss\\)"
    ):
        plateau.step()
    with pytest.raises(TypeError, match="needs a number"):
        plateau.step("loss")
    with pytest.raises(TypeError, match="needs an Optimizer"):
        S.StepLR(object(), step_size=2)
    with pytest.raises(
        ValueError, match=r"Invalid factor: 2.0 \(factor must be a finite number in \[0, 1\)\)"
    ):
        S.ReduceLROnPlateau(opt, factor=2.0)
    with pytest.raises(ValueError, match="mode 'best' is unknown"):
        S.ReduceLROnPlateau(opt, mode="best")
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas"):
        S.LambdaLR(opt, [lambda e: 1.0, lambda e: 1.0])
    with pytest.raises(TypeError, match="lr_lambda should be a function"):
        S.LambdaLR(opt, 0.5)
    with pytest.raises(ValueError, match="either total_steps OR"):
        S.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="Invalid step_size: 0 .step_size must be an integer >= 1"):
        S.StepLR(opt, step_size=0)
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1), step_size=2, last_epoch=5)
    with pytest.raises(ValueError, match="one milestone fewer than schedulers"):
        S.SequentialLR(opt, [S.ConstantLR(opt), S.ConstantLR(opt)], milestones=[])
    with pytest.raises(ValueError, match="does not support ReduceLROnPlateau"):
        S.SequentialLR(opt, [S.ConstantLR(opt), plateau], milestones=[3])
    with pytest.raises(ValueError, match="num_training_steps"):
        S.get_cosine_schedule_with_warmup(opt, 10, 5)


# ---------------------------------------------------------------------------- behaviour
@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_step_builds_no_graph_and_bumps_the_version(cls):
    w = mg.randn(3, requires_grad=True)
    opt = cls([w], lr=0.1)
    quadratic_step(opt, [w])
    assert w.grad_fn is None and w.is_leaf and w.requires_grad
    for value in opt.state[w].values():
        if isinstance(value, mg.Tensor):
            assert not value.requires_grad and value.grad_fn is None
    before = w._version
    quadratic_step(opt, [w])
    assert w._version == before + 1


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_minimises_a_quadratic(cls):
    w = mg.tensor([3.0, -2.0, 0.5], requires_grad=True)
    opt = cls([w], lr=0.05)
    first = quadratic_step(opt, [w]).item()
    for _ in range(300):
        last = quadratic_step(opt, [w]).item()
    assert last < first * 0.01


@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_parameters_without_grad_are_left_alone(cls):
    w, frozen = mg.randn(3, requires_grad=True), mg.randn(3, requires_grad=True)
    before = frozen.detach().numpy().copy()
    opt = cls([w, frozen], lr=0.1, weight_decay=0.1)
    quadratic_step(opt, [w])
    assert frozen.grad is None
    np.testing.assert_array_equal(frozen.detach().numpy(), before)
    assert frozen not in opt.state


def test_grad_is_never_written():
    w = mg.randn(4, requires_grad=True)
    for opt in (
        mg.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True),
        mg.optim.Adam([w], weight_decay=0.1, maximize=True),
        mg.optim.RMSprop([w], centered=True, momentum=0.5, weight_decay=0.1),
    ):
        opt.zero_grad()
        (w * w).sum().backward()
        g = w.grad.detach().numpy().copy()
        opt.step()
        opt.step()
        np.testing.assert_array_equal(w.grad.detach().numpy(), g)


def test_zero_grad():
    w = mg.randn(3, requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad()
    assert w.grad is None
    (w * w).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad and not grad.requires_grad
    np.testing.assert_array_equal(grad.numpy(), np.zeros(3, np.float32))


def test_closure_runs_with_grad_enabled_and_returns_the_loss():
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with mg.no_grad():
        loss = opt.step(closure)
    assert loss.item() == pytest.approx(5.0)
    np.testing.assert_allclose(w.detach().numpy(), [0.0, 0.0])


def test_add_param_group_and_per_group_options():
    w1, w2 = mg.ones(2, requires_grad=True), mg.ones(2, requires_grad=True)
    opt = mg.optim.SGD([w1], lr=0.1, momentum=0.9)
    opt.add_param_group({"params": w2, "lr": 0.01})
    assert len(opt.param_groups) == 2
    assert opt.param_groups[1]["momentum"] == 0.9 and opt.param_groups[1]["lr"] == 0.01
    (w1.sum() + w2.sum()).backward()
    opt.step()
    np.testing.assert_allclose(w1.detach().numpy(), [0.9, 0.9], rtol=1e-6)
    np.testing.assert_allclose(w2.detach().numpy(), [0.99, 0.99], rtol=1e-6)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [w1]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([w1])


def test_named_parameters_are_accepted():
    w = mg.ones(2, requires_grad=True)
    opt = mg.optim.SGD([("weight", w)], lr=0.1)
    assert opt.param_groups[0]["params"] == [w]
    assert opt.param_groups[0]["param_names"] == ["weight"]


def test_state_dict_layout_uses_indices():
    w1, w2, w3 = (mg.randn(2, requires_grad=True) for _ in range(3))
    opt = mg.optim.Adam([{"params": [w1, w2]}, {"params": [w3], "lr": 0.5}], amsgrad=True)
    quadratic_step(opt, [w1, w2, w3])
    sd = opt.state_dict()
    assert sorted(sd["state"]) == [0, 1, 2]
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert set(sd["state"][2]) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert sd["state"][2]["step"] == 1
    assert all(isinstance(k, int) for k in sd["state"])


def test_load_state_dict_casts_to_each_parameter_dtype_and_copies():
    w32 = mg.randn(3, requires_grad=True)
    opt32 = mg.optim.Adam([w32])
    quadratic_step(opt32, [w32])
    sd = opt32.state_dict()

    w64 = mg.randn(3, dtype=mg.float64, requires_grad=True)
    opt64 = mg.optim.Adam([w64])
    opt64.load_state_dict(sd)
    state = opt64.state[w64]
    assert state["exp_avg"].dtype == mg.float64 and state["exp_avg_sq"].dtype == mg.float64
    assert state["step"] == 1
    np.testing.assert_allclose(state["exp_avg"].numpy(), sd["state"][0]["exp_avg"].numpy())
    # a copy: training the loaded optimizer leaves the source untouched, and vice versa
    w32b = mg.randn(3, requires_grad=True)
    opt32b = mg.optim.Adam([w32b])
    opt32b.load_state_dict(sd)
    assert opt32b.state[w32b]["exp_avg"]._data is not opt32.state[w32]["exp_avg"]._data
    # loaded hyper-parameters win, and the groups keep their own tensors
    opt64.param_groups[0]["lr"] = 7.0
    opt64.load_state_dict(sd)
    assert opt64.param_groups[0]["lr"] == 1e-3 and opt64.param_groups[0]["params"] == [w64]


@pytest.mark.parametrize("cls", [mg.optim.Adam, mg.optim.RMSprop, mg.optim.Adagrad, mg.optim.NAdam])
def test_step_counts_are_float32_scalar_tensors_as_in_pytorch(cls):
    w = mg.randn(3, requires_grad=True)
    opt = cls([w], lr=0.01)
    for _ in range(3):
        quadratic_step(opt, [w])
    step = opt.state_dict()["state"][0]["step"]
    assert isinstance(step, mg.Tensor) and step.dtype == mg.float32 and step.shape == ()
    assert step.item() == 3.0 and not step.requires_grad


def test_optimizer_state_holds_the_same_kinds_of_values_as_pytorchs():
    torch = pytest.importorskip("torch")
    for name in ("Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"):
        ours, theirs = mg.tensor([1.0, 2.0], requires_grad=True), torch.tensor([1.0, 2.0])
        theirs.requires_grad_(True)
        opts = [getattr(mg.optim, name)([ours]), getattr(torch.optim, name)([theirs])]
        for opt, p in zip(opts, (ours, theirs)):
            (p * p).sum().backward()
            opt.step()
        got, want = (opt.state_dict()["state"][0] for opt in opts)
        assert set(got) == set(want), name
        for key in want:
            if isinstance(want[key], torch.Tensor):
                assert isinstance(got[key], mg.Tensor), (name, key)
                assert (got[key].shape, str(got[key].dtype).split(".")[-1]) == (
                    tuple(want[key].shape),
                    str(want[key].dtype).split(".")[-1],
                ), (name, key)


def test_a_state_dict_counting_steps_in_plain_numbers_still_loads_and_trains_on():
    def run(steps: int, reload_after: int | None = None) -> np.ndarray:
        w = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
        opt = mg.optim.Adam([w], lr=0.1)
        for k in range(steps):
            if k == reload_after:
                sd = opt.state_dict()
                sd["state"][0]["step"] = int(sd["state"][0]["step"].item())  # the older layout
                opt = mg.optim.Adam([w], lr=0.1)
                opt.load_state_dict(sd)
                assert isinstance(opt.state[w]["step"], mg.Tensor)
            quadratic_step(opt, [w])
        return w.detach().numpy()

    # Adam's bias correction depends on the count: resuming from the old layout must not reset it
    np.testing.assert_array_equal(run(6, reload_after=3), run(6))


def test_load_state_dict_rejects_mismatched_groups():
    w = mg.zeros(2, requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    other = mg.optim.SGD([{"params": [w]}, {"params": [mg.zeros(1, requires_grad=True)]}], lr=0.1)
    with pytest.raises(ValueError, match="2 parameter groups, this optimizer has 1"):
        opt.load_state_dict(other.state_dict())
    two = mg.optim.SGD([mg.zeros(1, requires_grad=True), mg.zeros(1, requires_grad=True)], lr=1)
    with pytest.raises(ValueError, match="group 0 has 2 parameters"):
        opt.load_state_dict(two.state_dict())
    with pytest.raises(ValueError, match="'state' and 'param_groups'"):
        opt.load_state_dict({"lr": 0.1})


@pytest.mark.parametrize("param_groups, state, message", [
    (5, {}, "'param_groups'] must be a list, got int"),
    ([5], {}, r"'param_groups'\]\[0\] must be a dict with a 'params' list, got int"),
    ([{"lr": 0.1}], {}, r"\[0\] must be a dict with a 'params' list, got dict with keys \['lr'\]"),
    ([{"params": 0, "lr": 0.1}], {}, "must be a dict with a 'params' list"),
    ([{"params": [0], "lr": 0.1}], [1], r"'state'\] must be a dict, got list"),
    ([{"params": [0], "lr": 0.1}], {0: 3.0}, r"'state'\]\[0\] must be a dict of per-parameter"),
])  # fmt: skip
def test_load_state_dict_names_a_malformed_layout(param_groups, state, message):
    opt = mg.optim.SGD([mg.zeros(2, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match=message):
        opt.load_state_dict({"state": state, "param_groups": param_groups})
    assert opt.param_groups[0]["lr"] == 0.1  # nothing was loaded


def test_repr_lists_groups():
    opt = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (") and "Parameter Group 0" in text and "momentum: 0.9" in text


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16])
@pytest.mark.parametrize("cls", OPTIMIZERS)
def test_low_precision_parameters_keep_their_dtype(cls, dtype):
    w = mg.tensor([1.5, -2.0, 3.0], dtype=dtype, requires_grad=True)
    opt = cls(
        [w],
        lr=0.01,
        **({"momentum": 0.9} if cls is not mg.optim.Adam and cls is not mg.optim.AdamW else {}),
    )
    for _ in range(3):
        quadratic_step(opt, [w])
    assert w.dtype == dtype
    for key, value in opt.state[w].items():
        if isinstance(
            value, mg.Tensor
        ):  # step counts are float32 whatever the parameter, as in PyTorch
            assert value.dtype == (mg.float32 if key == "step" else dtype)
    assert np.all(np.isfinite(w.detach().float().numpy()))


def test_float16_adam_with_a_zero_gradient_gives_nan_as_pytorch_does():
    # eps=1e-8 underflows to 0 in float16, so a zero gradient makes 0/0 in the first step; PyTorch
    # behaves the same. The cure is float32 master weights (autocast + GradScaler) or eps >= 1e-4.
    w = mg.tensor([1.0, 2.0], dtype=mg.float16, requires_grad=True)
    opt = mg.optim.Adam([w], lr=0.01)
    with np.errstate(invalid="ignore"):
        quadratic_step(opt, [w])
    values = w.detach().float().numpy()
    assert np.isnan(values[0]) and np.isfinite(values[1])
    w = mg.tensor([1.0, 2.0], dtype=mg.float16, requires_grad=True)
    opt = mg.optim.Adam([w], lr=0.01, eps=1e-4)
    quadratic_step(opt, [w])
    assert np.all(np.isfinite(w.detach().float().numpy()))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_low_precision_matches_pytorch(name, dtype):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    start = rng.standard_normal(16).astype(np.float32)
    grads = [rng.standard_normal(16).astype(np.float32) for _ in range(5)]
    opts = {"SGD": {"momentum": 0.9}, "RMSprop": {"centered": True}}.get(name, {})
    w = mg.tensor(start).to(getattr(mg, dtype)).detach().requires_grad_()
    tw = torch.tensor(start).to(getattr(torch, dtype)).requires_grad_()
    opt = getattr(mg.optim, name)([w], lr=0.01, **opts)
    topt = getattr(torch.optim, name)([tw], lr=0.01, **opts)
    for g in grads:
        w.grad = mg.tensor(g).to(getattr(mg, dtype))
        tw.grad = torch.tensor(g).to(getattr(torch, dtype))
        opt.step()
        topt.step()
    got = w.detach().float().numpy()
    want = tw.detach().float().numpy()
    # within a couple of units in the last place of the low-precision format
    ulp = 2.0**-10 if dtype == "float16" else 2.0**-7
    np.testing.assert_allclose(got, want, rtol=3 * ulp, atol=3 * ulp)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
        ("Adam", {"lr": 0.1, "amsgrad": True, "maximize": True, "weight_decay": 0.1}),
        ("AdamW", {"lr": 0.1}),
        ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
        ("Adagrad", {"lr": 0.1}),
        ("Adadelta", {}),
        ("Adamax", {"lr": 0.1}),
        ("NAdam", {"lr": 0.1}),
        ("RAdam", {"lr": 0.1}),
    ],
)
def test_a_scalar_parameter_trains_like_a_one_element_vector(name, options):
    # a learned temperature or log-scale is a 0-d parameter; NumPy gives 0-d results as scalars
    trajectories = []
    for shape in ((), (1,)):
        p = mg.nn.Parameter(mg.full(shape, 1.5))
        opt = getattr(mg.optim, name)([p], **options)
        for _ in range(4):
            opt.zero_grad()
            (p * p * p).sum().backward()
            opt.step()
        assert p.shape == shape
        trajectories.append(p.detach().numpy().reshape(-1))
    np.testing.assert_array_equal(trajectories[0], trajectories[1])


ZERO_DEFAULTS = {
    "SGD": ["momentum", "dampening", "weight_decay"],
    "Adam": ["weight_decay"],
    "Adagrad": ["lr_decay", "weight_decay", "initial_accumulator_value"],
    "Adadelta": ["weight_decay"],
    "Adamax": ["weight_decay"],
    "NAdam": ["weight_decay"],
    "RAdam": ["weight_decay"],
    "RMSprop": ["weight_decay", "momentum"],
    "ASGD": ["weight_decay"],
}


@pytest.mark.parametrize("name", sorted(ZERO_DEFAULTS))
def test_zero_defaults_are_the_int_0_of_pytorchs_signatures(name):
    # a state_dict's param_groups and the optimizer's repr then read "weight_decay: 0" as PyTorch's
    opt = getattr(mg.optim, name)([mg.zeros(2, requires_grad=True)], lr=0.1)
    for option in ZERO_DEFAULTS[name]:
        value = opt.state_dict()["param_groups"][0][option]
        assert type(value) is int and value == 0, option
        assert f"    {option}: 0\n" in repr(opt)
