"""F.interpolate on uint8 images (nearest: exact copies; bilinear: PyTorch's fixed-point byte
kernel, width pass then height pass, each rounded to bytes) and mode='area' (each output the
mean of its window: adaptive average pooling) on 3-d and 4-d inputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

IMG = np.random.default_rng(0).integers(0, 256, (2, 3, 7, 9), dtype=np.uint8)


@pytest.mark.parametrize("size", [(3, 4), (14, 18), (7, 13)])
def test_nearest_on_bytes_copies_the_float_result(size) -> None:
    out = F.interpolate(mg.tensor(IMG), size=size)
    ref = F.interpolate(mg.tensor(IMG.astype(np.float32)), size=size)
    assert out.dtype == mg.uint8
    np.testing.assert_array_equal(out.numpy(), ref.numpy().astype(np.uint8))


@pytest.mark.parametrize("size", [(3, 4), (14, 18), (5, 9)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bilinear_on_bytes_is_within_one_of_the_exact_value(size, align_corners) -> None:
    out = F.interpolate(mg.tensor(IMG), size=size, mode="bilinear", align_corners=align_corners)
    exact = F.interpolate(
        mg.tensor(IMG.astype(np.float64)), size=size, mode="bilinear", align_corners=align_corners
    )
    assert out.dtype == mg.uint8
    assert np.abs(out.numpy().astype(float) - exact.numpy()).max() <= 1.0


def test_bilinear_on_bytes_doubling_rounds_halves_up_per_pass() -> None:
    # doubling 1-pixel-high rows: weights 1/4 and 3/4 are exact in fixed point
    row = np.array([[[[0, 1, 2, 255]]]], dtype=np.uint8)
    out = F.interpolate(mg.tensor(row), size=(1, 8), mode="bilinear").numpy().reshape(-1)
    # source of output o: (o + 0.5) / 2 - 0.5, clamped to [0, 3]
    src = np.clip((np.arange(8) + 0.5) / 2 - 0.5, 0, 3)
    i0 = np.floor(src).astype(int)
    lam = src - i0
    values = row.reshape(-1).astype(float)
    exact = (1 - lam) * values[i0] + lam * values[np.minimum(i0 + 1, 3)]
    np.testing.assert_array_equal(out, np.floor(exact + 0.5))


def _window_means(x: np.ndarray, out: int) -> np.ndarray:
    n = x.shape[-1]
    cols = [x[..., (i * n) // out : -((-(i + 1) * n) // out)].mean(-1) for i in range(out)]
    return np.stack(cols, -1)


@pytest.mark.parametrize("out", [1, 3, 4, 6, 9])
def test_area_on_3d_input_averages_each_window(out: int) -> None:
    x = np.random.default_rng(1).standard_normal((2, 3, 6))
    got = F.interpolate(mg.tensor(x), size=out, mode="area")
    np.testing.assert_allclose(got.numpy(), _window_means(x, out))


def test_area_on_4d_input_and_by_scale_factor() -> None:
    x = np.arange(32.0).reshape(1, 2, 4, 4)
    got = F.interpolate(mg.tensor(x), scale_factor=0.5, mode="area")
    np.testing.assert_allclose(got.numpy(), x.reshape(1, 2, 2, 2, 2, 2).mean((3, 5)))


def test_area_on_bytes_is_refused_as_in_pytorch() -> None:
    with pytest.raises(NotImplementedError):
        F.interpolate(mg.tensor(IMG), size=(2, 2), mode="area")
