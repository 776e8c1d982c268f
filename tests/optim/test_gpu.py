"""Optimizers on CuPy: the PyTorch reference trajectories hold on the GPU, and state moves
between devices with load_state_dict (skipped without CUDA)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

REFS = json.loads((Path(__file__).parents[1] / "data" / "optim_refs.json").read_text())
CASES = {case["name"]: case for case in REFS["cases"]}


@pytest.mark.parametrize(
    "name",
    [
        "sgd_nesterov",
        "adam_amsgrad",
        "adamw",
        "rmsprop_all",
        "adadelta_weight_decay",
        "adagrad_options",
        "adamax_weight_decay",
        "nadam_decoupled",
        "radam_weight_decay",
    ],
)
def test_reference_trajectory_on_the_gpu(name):
    case = CASES[name]
    W = mg.tensor(np.array(REFS["W0"]), device="cuda", requires_grad=True)
    b = mg.tensor(np.array(REFS["b0"]), device="cuda", requires_grad=True)
    X = mg.tensor(np.array(REFS["X"]), device="cuda")
    Y = mg.tensor(np.array(REFS["Y"]), device="cuda")
    opt = getattr(mg.optim, case["optimizer"])([W, b], **case["options"])
    got = []
    for _ in range(REFS["steps"]):
        opt.zero_grad(set_to_none=False) if got else opt.zero_grad()
        loss = ((X @ W + b - Y) ** 2).mean() + 0.01 * (W**4).sum()
        (case["sign"] * loss).backward()
        opt.step()
        got.append(
            np.concatenate([W.detach().cpu().numpy().ravel(), b.detach().cpu().numpy().ravel()])
        )
    assert W.device.type == "cuda"
    for key, value in opt.state[W].items():
        if isinstance(value, mg.Tensor):  # step counts stay on the CPU, as in PyTorch
            assert value.device.type == ("cpu" if key in ("step", "mu_product") else "cuda")
    np.testing.assert_allclose(np.stack(got), np.array(case["trajectory"]), rtol=1e-9, atol=1e-11)


def test_load_state_dict_moves_state_to_the_parameter_device():
    w_cpu = mg.randn(4, requires_grad=True)
    opt_cpu = mg.optim.Adam([w_cpu])
    (w_cpu * w_cpu).sum().backward()
    opt_cpu.step()
    w_gpu = w_cpu.detach().cuda().requires_grad_()
    opt_gpu = mg.optim.Adam([w_gpu])
    opt_gpu.load_state_dict(opt_cpu.state_dict())
    assert opt_gpu.state[w_gpu]["exp_avg"].device.type == "cuda"
    for w, opt in ((w_cpu, opt_cpu), (w_gpu, opt_gpu)):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    np.testing.assert_allclose(w_gpu.detach().cpu().numpy(), w_cpu.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    ("optimizer", "options"),
    [
        ("AdamW", {}),
        ("Adam", {"weight_decay": 0.1, "maximize": True}),
        ("Adam", {"betas": (0.3, 0.99)}),  # lerp's other formula (weight 0.7 >= 0.5)
        ("AdamW", {"weight_decay": 0.0, "eps": 1e-3}),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_adam_kernel_gives_the_array_updates_numbers_in_one_launch_per_parameter(
    optimizer, options, dtype, kernel_launches
):
    rng = np.random.default_rng(0)
    start = [rng.standard_normal(shape).astype(dtype) for shape in ((6, 5), (5,))]
    finals = {}
    for device in ("cpu", "cuda"):
        params = [mg.tensor(a, device=device, requires_grad=True) for a in start]
        opt = getattr(mg.optim, optimizer)(params, lr=0.05, **options)
        for step in range(4):  # the same gradients on both devices (a GPU's tanh and sums differ)
            for p, a in zip(params, start):
                p.grad = mg.tensor(np.cos(a * (step + 1)), device=device)
            opt.step()
        finals[device] = [p.detach().cpu().numpy() for p in params]
    adam = [name for name in kernel_launches if name.startswith("adam")]
    assert len(adam) == 4 * len(start)  # the GPU steps only, one launch per parameter
    for cpu, gpu in zip(finals["cpu"], finals["cuda"]):
        np.testing.assert_array_equal(gpu, cpu)  # same arithmetic, same order: same bits


# ----------------------------------------------------------------------------------------------
# The fused update kernels: one launch per parameter, the CPU's numbers bit for bit
# ----------------------------------------------------------------------------------------------
FUSED_CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.8, nesterov=True, weight_decay=0.01)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True, betas=(0.2, 0.9))),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01, alpha=0.3, centered=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, maximize=True, betas=(0.2, 0.99))),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, betas=(0.3, 0.99))),
    ("RAdam", dict(lr=0.01)),  # 8 steps: momentum SGD for 5, then rectified
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, betas=(0.2, 0.9))),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.5, weight_decay=0.1, maximize=True)),
]
SHAPES = [(5, 3), (4,), ()]


def _gradients(dtype, steps, special=False):
    rng = np.random.default_rng(0)
    grads = [[rng.standard_normal(s).astype(dtype) for s in SHAPES] for _ in range(steps)]
    if special:  # a NaN, an inf and a huge gradient at different steps and places
        grads[1][0][0, 0], grads[2][0][1, 1], grads[3][1][2] = np.nan, -np.inf, 1e30
    return grads


def _run(name, options, device, dtype, grads):
    """Parameters and optimizer state after len(grads) steps, as NumPy arrays."""
    rng = np.random.default_rng(1)
    params = [
        mg.tensor(rng.standard_normal(s).astype(dtype), device=device, requires_grad=True)
        for s in SHAPES
    ]
    opt = getattr(mg.optim, name)(params, **options)
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = mg.tensor(g, device=device)
        opt.step()
    out = [p.detach().cpu().numpy() for p in params]
    for p in params:
        for key in sorted(opt.state[p]):
            value = opt.state[p][key]
            out.append(value.cpu().numpy() if isinstance(value, mg.Tensor) else value)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("name", "options"), FUSED_CASES)
def test_fused_update_gives_the_cpus_numbers_bit_for_bit(name, options, dtype, kernel_launches):
    grads = _gradients(dtype, steps=8)
    want = _run(name, options, "cpu", dtype, grads)
    assert kernel_launches == []
    got = _run(name, options, "cuda", dtype, grads)
    assert len(kernel_launches) == 8 * len(SHAPES)  # one launch per parameter and step
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("Adam", dict(lr=0.01, amsgrad=True)),
        ("AdamW", dict(lr=0.01, amsgrad=True, maximize=True)),
        ("Adamax", dict(lr=0.01)),
        ("Adamax", dict(lr=0.01, weight_decay=0.1)),
        ("SGD", dict(lr=0.1, momentum=0.9)),
        ("RMSprop", dict(lr=0.01, centered=True)),
    ],
)
def test_fused_update_propagates_nan_and_inf_as_numpy_does(name, options, kernel_launches):
    # NumPy's maximum returns NaN when either operand is NaN; CUDA's max and fmax (and the
    # stand-in's, which copies them) return the other one, so a kernel using them would differ
    grads = _gradients(np.float32, steps=5, special=True)
    with np.errstate(all="ignore"):
        want = _run(name, options, "cpu", np.float32, grads)
    got = _run(name, options, "cuda", np.float32, grads)
    assert len(kernel_launches) == 5 * len(SHAPES)
    assert any(np.isnan(w).any() for w in want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_float16_parameters_keep_the_array_path(kernel_launches):
    # CuPy computes a float16 kernel's expressions in float32: no kernel, the CPU's roundings
    grads = _gradients(np.float16, steps=3)
    want = _run("Adam", dict(lr=0.01, amsgrad=True), "cpu", np.float16, grads)
    got = _run("Adam", dict(lr=0.01, amsgrad=True), "cuda", np.float16, grads)
    assert kernel_launches == []
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
