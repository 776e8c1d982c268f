"""interpolate's bicubic mode, its antialiased bilinear/bicubic modes and 'area' on 5-d inputs,
against loop references of the formulas (see nn/functional/interpolation_weights.py), closed
forms, and central differences for the gradient."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _keys(x: float, a: float = -0.75) -> float:
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _bicubic_row(row: np.ndarray, m: int, align_corners: bool) -> np.ndarray:
    """One dim of bicubic resizing, output by output: four clamped taps around the source."""
    n = len(row)
    out = np.zeros(m)
    for o in range(m):
        if align_corners:
            src = o * (n - 1) / (m - 1) if m > 1 else 0.0
        else:
            src = (o + 0.5) * n / m - 0.5
        base = math.floor(src)
        t = src - base
        for k, w in enumerate((_keys(t + 1), _keys(t), _keys(1 - t), _keys(2 - t))):
            out[o] += w * row[min(max(base - 1 + k, 0), n - 1)]
    return out


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(("size", "out"), [((3, 4), (7, 5)), ((5, 6), (2, 3)), ((4, 4), (4, 9))])
def test_bicubic_matches_the_loop_reference(align_corners: bool, size: tuple, out: tuple) -> None:
    x = np.random.default_rng(0).standard_normal((1, 2, *size))
    got = F.interpolate(mg.tensor(x), size=out, mode="bicubic", align_corners=align_corners)
    ref = np.apply_along_axis(_bicubic_row, 3, x, out[1], align_corners)
    ref = np.apply_along_axis(_bicubic_row, 2, ref, out[0], align_corners)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-12)


def test_bicubic_to_the_same_size_is_the_identity() -> None:
    x = np.random.default_rng(1).standard_normal((2, 1, 3, 5))
    got = F.interpolate(mg.tensor(x), size=(3, 5), mode="bicubic", align_corners=False)
    np.testing.assert_allclose(got.numpy(), x, atol=1e-15)


def test_antialiased_bilinear_halving_is_the_1_3_3_1_filter() -> None:
    """Shrinking by 2: the triangle stretched to 4 inputs gives weights (1, 3, 3, 1) / 8."""
    x = np.random.default_rng(2).standard_normal((1, 1, 1, 12))
    got = F.interpolate(mg.tensor(x), size=(1, 6), mode="bilinear", antialias=True).numpy()
    r = x[0, 0, 0]
    for o in range(1, 5):  # interior outputs (at the border the weights are renormalised)
        expected = (r[2 * o - 1] + 3 * r[2 * o] + 3 * r[2 * o + 1] + r[2 * o + 2]) / 8
        np.testing.assert_allclose(got[0, 0, 0, o], expected, rtol=1e-12)
    np.testing.assert_allclose(got[0, 0, 0, 0], (3 * r[0] + 3 * r[1] + r[2]) / 7, rtol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_antialiased_weights_sum_to_one(mode: str) -> None:
    ones = mg.ones(1, 1, 9, 7, dtype=mg.float64)
    got = F.interpolate(ones, size=(4, 3), mode=mode, antialias=True)
    np.testing.assert_allclose(got.numpy(), 1.0, rtol=1e-12)


@pytest.mark.parametrize("antialias", [False, True])
def test_bicubic_gradient_matches_central_differences(antialias: bool) -> None:
    x0 = np.random.default_rng(3).standard_normal((1, 1, 4, 5))
    w = np.random.default_rng(4).standard_normal((1, 1, 3, 7))

    def loss(a: np.ndarray) -> float:
        y = F.interpolate(mg.tensor(a), size=(3, 7), mode="bicubic", antialias=antialias)
        return float((y.numpy() * w).sum())

    x = mg.tensor(x0, requires_grad=True)
    y = F.interpolate(x, size=(3, 7), mode="bicubic", antialias=antialias)
    (y * mg.tensor(w)).sum().backward()
    num = np.zeros_like(x0)
    for k in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[k] += 1e-6
        down[k] -= 1e-6
        num[k] = (loss(up) - loss(down)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_area_on_a_5d_input_averages_each_block() -> None:
    x = np.random.default_rng(5).standard_normal((1, 2, 4, 6, 2))
    got = F.interpolate(mg.tensor(x), size=(2, 3, 1), mode="area")
    ref = x.reshape(1, 2, 2, 2, 3, 2, 1, 2).mean(axis=(3, 5, 7))
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)


def test_align_corners_with_a_non_interpolating_mode_raises() -> None:
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(mg.zeros(1, 2, 3), size=4, mode="area", align_corners=True)
