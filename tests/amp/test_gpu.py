"""autocast and GradScaler on CuPy arrays (skipped without CuPy and a CUDA device)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.amp import GradScaler

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


def test_autocast_defaults_to_float16_on_cuda_and_keeps_cpu_ops_apart():
    x, w = mg.randn(8, 16, device="cuda"), mg.randn(16, 4, device="cuda", requires_grad=True)
    with mg.autocast():
        y = x @ w
        assert y.dtype is mg.float16
        assert y.softmax(-1).dtype is mg.float32
        assert (mg.randn(2, 3) @ mg.randn(3, 2)).dtype is mg.bfloat16  # a CPU op: bf16
    with mg.autocast("cpu"):
        assert (x @ w).dtype is mg.float32  # autocast("cpu") leaves CUDA ops alone
    with mg.autocast():
        loss = (x @ w).float().sum()
    loss.backward()
    assert w.grad.dtype is mg.float32 and w.grad.is_cuda
    ref = x.cpu().numpy().sum(0)[:, None] * np.ones((1, 4), np.float32)
    np.testing.assert_allclose(w.grad.cpu().numpy(), ref, rtol=2e-2, atol=2e-2)


def test_grad_scaler_on_cuda_follows_the_cpu_trajectory():
    def run(device):
        w = mg.zeros(3, device=device, requires_grad=True)
        opt = mg.optim.SGD([w], lr=0.1)
        scaler = GradScaler(init_scale=8.0, growth_interval=2)
        scales = []
        for i in range(8):
            opt.zero_grad()
            d = np.array([1.0, -2.0, 0.5], np.float32)
            if i in (2, 5):
                d[1] = np.inf
            scaler.scale((w * mg.tensor(d, device=device)).sum()).backward()
            scaler.step(opt)
            scaler.update()
            scales.append(scaler.get_scale())
        return scales, w.detach().cpu().numpy()

    cpu_scales, cpu_w = run("cpu")
    gpu_scales, gpu_w = run("cuda")
    assert gpu_scales == cpu_scales == [8, 16, 8, 8, 16, 8, 8, 16]
    np.testing.assert_allclose(gpu_w, cpu_w, rtol=1e-6)
