"""Adaptive average pooling and bicubic / antialiased resampling are one kernel each in PyTorch,
on none of CPU autocast's lists, so under ``autocast("cpu")`` they run in their input's dtype: a
float32 input gives a float32 result equal to the one without autocast (here they are matmuls
with weight matrices, and a matmul alone would run in bfloat16). A bfloat16 input stays
bfloat16. Oracle: the float32 result outside autocast, and NumPy's window means."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

X = np.random.default_rng(0).standard_normal((2, 3, 7, 7)).astype(np.float32)

CALLS = {
    "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x[:, :, 0], 3),
    "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
    "adaptive_avg_pool3d": lambda x: F.adaptive_avg_pool3d(x[None], (1, 2, 3)),
    "area": lambda x: F.interpolate(x, size=(3, 5), mode="area"),
    "bicubic": lambda x: F.interpolate(x, scale_factor=2, mode="bicubic"),
    "antialias": lambda x: F.interpolate(x, size=(3, 4), mode="bilinear", antialias=True),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_runs_in_float32_under_cpu_autocast_as_without_it(name: str) -> None:
    x = mg.tensor(X, requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = CALLS[name](x)
    assert y.dtype == mg.float32
    plain = CALLS[name](mg.tensor(X))
    np.testing.assert_array_equal(y.detach().numpy(), plain.numpy())
    y.sum().backward()
    assert x.grad.dtype == mg.float32


def test_adaptive_avg_pool_under_autocast_is_the_window_mean() -> None:
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = F.adaptive_avg_pool2d(mg.tensor(X), 3).numpy()
    rows = [(0, 3), (2, 5), (4, 7)]  # [floor(i 7 / 3), ceil((i + 1) 7 / 3))
    want = np.array(
        [[X[:, :, a:b, c:d].mean(axis=(2, 3)) for c, d in rows] for a, b in rows]
    ).transpose(2, 3, 0, 1)
    np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-7)


def test_a_bfloat16_input_stays_bfloat16() -> None:
    with mg.autocast("cpu", dtype=mg.bfloat16):
        assert F.adaptive_avg_pool2d(mg.tensor(X).bfloat16(), 3).dtype == mg.bfloat16


def test_autocast_is_on_again_after_the_call() -> None:
    w = mg.ones(7, 7)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        F.adaptive_avg_pool2d(mg.tensor(X), 3)
        assert mg.is_autocast_enabled("cpu")
        assert (mg.tensor(X) @ w).dtype == mg.bfloat16
    assert not mg.is_autocast_enabled("cpu")
