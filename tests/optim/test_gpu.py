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
    optimizer, options, dtype, monkeypatch
):
    from minigenesis import gpu_kernels

    launches = []
    call = gpu_kernels.ElementwiseKernel.__call__
    monkeypatch.setattr(
        gpu_kernels.ElementwiseKernel,
        "__call__",
        lambda self, *args: launches.append(self.name) or call(self, *args),
    )
    rng = np.random.default_rng(0)
    start = [rng.standard_normal(shape).astype(dtype) for shape in ((6, 5), (5,))]
    finals = {}
    for device in ("cpu", "cuda"):
        params = [mg.tensor(a, device=device, requires_grad=True) for a in start]
        opt = getattr(mg.optim, optimizer)(params, lr=0.05, **options)
        for _ in range(4):
            opt.zero_grad()
            (params[0].tanh().sum(0) * params[1] ** 2).sum().backward()
            opt.step()
        finals[device] = [p.detach().cpu().numpy() for p in params]
    adam = [name for name in launches if name.startswith("adam")]  # (tanh's backward has one)
    assert len(adam) == 4 * len(start)  # the GPU steps only, one launch per parameter
    for cpu, gpu in zip(finals["cpu"], finals["cuda"]):
        np.testing.assert_array_equal(gpu, cpu)  # same arithmetic, same order: same bits
