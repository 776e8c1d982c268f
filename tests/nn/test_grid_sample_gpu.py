"""F.grid_sample and F.affine_grid on CuPy arrays: on "cuda" against the same calls on the CPU,
outputs and the gradients to the input, the grid and theta (skipped without CuPy and a CUDA
device; run on the strict CuPy stand-in by tests/core/test_cuda_standin.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


@pytest.mark.parametrize(
    "mode,pm,d",
    [
        ("bilinear", "zeros", 2),
        ("bicubic", "reflection", 2),
        ("nearest", "border", 2),
        ("bilinear", "reflection", 3),
        ("nearest", "zeros", 3),
    ],
)
def test_grid_sample_on_cuda_matches_the_cpu(mode, pm, d):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, *(4, 5, 3)[:d]))
    theta = rng.standard_normal((2, d, d + 1))
    size = (2, 3, *(3, 2, 2)[:d])
    results = []
    for device in ("cpu", "cuda"):
        xt = mg.tensor(x, device=device, requires_grad=True)
        th = mg.tensor(theta, device=device, requires_grad=True)
        grid = F.affine_grid(th, size, align_corners=False)
        out = F.grid_sample(xt, grid * 1.5, mode=mode, padding_mode=pm, align_corners=False)
        assert out.device.type == device
        (out**2).sum().backward()
        results.append([out.detach().cpu().numpy(), xt.grad.cpu().numpy(), th.grad.cpu().numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, atol=1e-10)
