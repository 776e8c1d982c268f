"""affine_grid's base coordinates are rounded as PyTorch rounds them (its symmetric linspace, then
``range * (n - 1) / n`` as a product and a quotient in float32): at the identity map the sampling
points sit on pixel centres up to one ulp, and which side of the centre decides the bilinear
gradient with respect to the grid, so a spatial transformer's first step depends on them."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _pytorch_base_coords(n: int) -> np.ndarray:
    """The float32 formula written out in NumPy: step = 2 / (n - 1) in float32; the first half
    -1 + i step, the second 1 - (n - 1 - i) step (each one rounding); then (v * (n - 1)) / n."""
    step = np.float32(2) / np.float32(n - 1)
    i = np.arange(n, dtype=np.float64)
    v = np.where(i < n // 2, -1.0 + i * float(step), 1.0 - (n - 1 - i) * float(step))
    v = v.astype(np.float32)
    return (v * np.float32(n - 1)) / np.float32(n)


@pytest.mark.parametrize("n", [4, 7, 12, 28])
def test_identity_affine_grid_has_pytorchs_float32_coordinates(n: int) -> None:
    theta = mg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    grid = F.affine_grid(theta, (1, 1, n, n), align_corners=False).numpy()
    expected = _pytorch_base_coords(n)
    np.testing.assert_array_equal(grid[0, 0, :, 0], expected)  # x along the width
    np.testing.assert_array_equal(grid[0, :, 0, 1], expected)  # y along the height


def test_grid_gradient_at_the_identity_is_the_right_hand_difference() -> None:
    """Where a sample lands on a pixel centre from above (floor = that pixel), d out / d x of
    bilinear sampling is (right neighbour - pixel) * n / 2: the one-sided difference."""
    n = 4
    row = np.array([0.0, 1.0, 4.0, 9.0], dtype=np.float32)
    img = mg.tensor(np.tile(row, (n, 1))[None, None])
    grid = F.affine_grid(mg.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, n, n), False)
    grid.requires_grad_()
    F.grid_sample(img, grid, align_corners=False).sum().backward()
    pix = (grid.detach().numpy()[0, 0, :, 0] + np.float32(1)) * np.float32(n / 2) - np.float32(0.5)
    left = np.floor(pix).astype(int)
    right = np.minimum(left + 1, n - 1)
    inside = left + 1 < n
    expected = np.where(inside, row[right] - row[left], -row[left]) * (n / 2)
    np.testing.assert_allclose(grid.grad.numpy()[0, 0, :, 0], expected, rtol=1e-6)
