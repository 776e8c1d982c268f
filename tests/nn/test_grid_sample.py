"""F.affine_grid and F.grid_sample against float64 loop references written here (each output
point sampled on its own, from the unnormalisation, padding and interpolation rules), their
gradients to the input and the grid against central differences, the edge cases (points outside,
exactly on borders, far reflections, both align_corners) and PyTorch's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from tests.ops.references_grid import affine_grid_ref, grid_sample_ref


def _run(x, g, **kw):
    return F.grid_sample(mg.tensor(x), mg.tensor(g), **kw).numpy()


PADS = ("zeros", "border", "reflection")
CASES_2D = [
    (m, p, a) for m in ("bilinear", "nearest", "bicubic") for p in PADS for a in (False, True)
]
CASES_3D = [(m, p, a) for m in ("bilinear", "nearest") for p in PADS for a in (False, True)]


# --- values ------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode,pm,ac", CASES_2D)
def test_grid_sample_2d_matches_the_point_by_point_reference(mode, pm, ac):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 5))
    g = rng.uniform(-1.8, 1.8, (2, 3, 4, 2))  # inside and outside
    np.testing.assert_allclose(
        _run(x, g, mode=mode, padding_mode=pm, align_corners=ac),
        grid_sample_ref(x, g, mode, pm, ac),
        atol=1e-12,
    )


@pytest.mark.parametrize("mode,pm,ac", CASES_3D)
def test_grid_sample_3d_matches_the_point_by_point_reference(mode, pm, ac):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 4, 5))
    g = rng.uniform(-1.8, 1.8, (1, 2, 3, 2, 3))
    np.testing.assert_allclose(
        _run(x, g, mode=mode, padding_mode=pm, align_corners=ac),
        grid_sample_ref(x, g, mode, pm, ac),
        atol=1e-12,
    )


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample_reflects_far_points_many_times(mode, ac):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((1, 1, 3, 4))
    g = rng.uniform(-9.0, 9.0, (1, 5, 5, 2))
    np.testing.assert_allclose(
        _run(x, g, mode=mode, padding_mode="reflection", align_corners=ac),
        grid_sample_ref(x, g, mode, "reflection", ac),
        atol=1e-12,
    )


@pytest.mark.parametrize("pm", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("ac", [False, True])
def test_grid_sample_points_exactly_on_pixels_and_borders(pm, ac):
    """Corners, edges and far beyond: with align_corners the corners are pixel centres, so the
    identity grid reads the image back exactly; points at +-1 and beyond follow the padding."""
    x = np.arange(12.0).reshape(1, 1, 3, 4)
    edge = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    g = np.stack(np.meshgrid(edge, edge, indexing="xy"), -1)[None]
    for mode in ("bilinear", "nearest", "bicubic"):
        np.testing.assert_allclose(
            _run(x, g, mode=mode, padding_mode=pm, align_corners=ac),
            grid_sample_ref(x, g, mode, pm, ac),
            atol=1e-12,
        )
    if ac:
        ident = F.affine_grid(mg.tensor(np.eye(2, 3)[None]), (1, 1, 3, 4), True)
        out = F.grid_sample(mg.tensor(x), ident, padding_mode=pm, align_corners=True)
        np.testing.assert_allclose(out.numpy(), x, atol=1e-12)


def test_grid_sample_of_one_pixel_wide_input_with_align_corners_reflection():
    x = np.array([[[[2.0, 5.0]]]])  # H = 1: reflection's span is empty, every y reads row 0
    g = np.array([[[[0.3, -4.0], [-0.7, 2.5]]]])
    for mode in ("bilinear", "nearest", "bicubic"):
        np.testing.assert_allclose(
            _run(x, g, mode=mode, padding_mode="reflection", align_corners=True),
            grid_sample_ref(x, g, mode, "reflection", True),
            atol=1e-12,
        )


def test_grid_sample_keeps_float32_and_empty_batches():
    x = mg.randn(2, 3, 4, 4)
    g = mg.rand(2, 5, 6, 2) * 2 - 1
    assert F.grid_sample(x, g, align_corners=False).dtype == mg.float32
    assert F.grid_sample(mg.randn(0, 2, 3, 4), mg.rand(0, 5, 6, 2), align_corners=False).shape == (
        0,
        2,
        5,
        6,
    )
    assert F.grid_sample(mg.randn(1, 0, 3, 4), mg.rand(1, 5, 6, 2), align_corners=False).shape == (
        1,
        0,
        5,
        6,
    )


# --- affine_grid -------------------------------------------------------------------------------


@pytest.mark.parametrize("ac", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 1, 3, 4, 2)])
def test_affine_grid_matches_the_reference(ac, size):
    rng = np.random.default_rng(3)
    d = len(size) - 2
    theta = rng.standard_normal((size[0], d, d + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unit-size warning with align_corners
        out = F.affine_grid(mg.tensor(theta), size, align_corners=ac).numpy()
    np.testing.assert_allclose(out, affine_grid_ref(theta, size, ac), atol=1e-12)


def test_affine_grid_gradient_to_theta_matches_central_differences():
    rng = np.random.default_rng(4)
    theta = rng.standard_normal((2, 2, 3))
    w = rng.standard_normal((2, 3, 4, 2))
    t = mg.tensor(theta, requires_grad=True)
    (F.affine_grid(t, (2, 1, 3, 4), align_corners=False) * mg.tensor(w)).sum().backward()
    num = _numeric(lambda th: (affine_grid_ref(th, (2, 1, 3, 4), False) * w).sum(), theta)
    np.testing.assert_allclose(t.grad.numpy(), num, atol=1e-7)


# --- gradients ---------------------------------------------------------------------------------


def _numeric(f, a: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(a)
    for idx in np.ndindex(*a.shape):
        hi, lo = a.copy(), a.copy()
        hi[idx] += eps
        lo[idx] -= eps
        grad[idx] = (f(hi) - f(lo)) / (2 * eps)
    return grad


GRAD_CASES = [
    ("bilinear", "zeros", False, 2),
    ("bilinear", "border", True, 2),
    ("bilinear", "reflection", False, 2),
    ("bilinear", "reflection", True, 3),
    ("bilinear", "zeros", True, 3),
    ("bicubic", "zeros", False, 2),
    ("bicubic", "border", True, 2),
    ("bicubic", "reflection", False, 2),
    ("nearest", "zeros", False, 2),
    ("nearest", "reflection", True, 3),
]


@pytest.mark.parametrize("mode,pm,ac,d", GRAD_CASES)
def test_grid_sample_gradients_to_input_and_grid_match_central_differences(mode, pm, ac, d):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, *(3, 4, 3)[:d]))
    # far from integer pixel coordinates (where the sampler is not differentiable)
    g = rng.uniform(-2.2, 2.2, (1, 2, 3, *(2,) * (d - 2), d))
    w = rng.standard_normal((1, 2, 2, 3, *(2,) * (d - 2)))
    xt, gt = mg.tensor(x, requires_grad=True), mg.tensor(g, requires_grad=True)
    (
        F.grid_sample(xt, gt, mode=mode, padding_mode=pm, align_corners=ac) * mg.tensor(w)
    ).sum().backward()

    def loss_x(a):
        return (grid_sample_ref(a, g, mode, pm, ac) * w).sum()

    def loss_g(a):
        return (grid_sample_ref(x, a, mode, pm, ac) * w).sum()

    np.testing.assert_allclose(xt.grad.numpy(), _numeric(loss_x, x), atol=1e-7)
    expected_g = np.zeros_like(g) if mode == "nearest" else _numeric(loss_g, g)
    np.testing.assert_allclose(gt.grad.numpy(), expected_g, atol=1e-6)


def test_border_padding_gives_a_zero_grid_gradient_on_and_beyond_the_border():
    """PyTorch counts the clamp's borders as outside for the gradient."""
    x = mg.tensor(np.arange(12.0).reshape(1, 1, 3, 4))
    g = mg.tensor(np.array([[[[1.0, 0.3], [2.0, 0.3], [0.2, -1.0]]]]), requires_grad=True)
    F.grid_sample(x, g, padding_mode="border", align_corners=True).sum().backward()
    grad = g.grad.numpy()[0, 0]
    assert grad[0, 0] == 0 and grad[1, 0] == 0 and grad[2, 1] == 0
    assert grad[0, 1] != 0 and grad[2, 0] != 0


# --- errors ------------------------------------------------------------------------------------


def test_grid_sample_errors_name_what_is_wrong():
    x, g = mg.randn(1, 2, 3, 4), mg.rand(1, 5, 6, 2)
    kw = {"align_corners": False}
    with pytest.raises(ValueError, match="expected mode to be 'bilinear', 'nearest' or 'bicubic'"):
        F.grid_sample(x, g, mode="linear", **kw)
    with pytest.raises(ValueError, match="expected padding_mode to be 'zeros', 'border', or"):
        F.grid_sample(x, g, padding_mode="circular", **kw)
    with pytest.raises(RuntimeError, match="same batch size"):
        F.grid_sample(x, mg.rand(2, 5, 6, 2), **kw)
    with pytest.raises(RuntimeError, match="size 2 in last dimension"):
        F.grid_sample(x, mg.rand(1, 5, 6, 3), **kw)
    with pytest.raises(RuntimeError, match="expected 4D or 5D input and grid"):
        F.grid_sample(x, mg.rand(1, 5, 6, 7, 2), **kw)
    with pytest.raises(RuntimeError, match="dimension 2 being empty"):
        F.grid_sample(mg.randn(1, 2, 0, 4), g, **kw)
    with pytest.raises(RuntimeError, match="bicubic interpolation only supports 4D input"):
        F.grid_sample(mg.randn(1, 2, 3, 3, 4), mg.rand(1, 5, 6, 7, 3), mode="bicubic", **kw)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.grid_sample(x, g.double(), **kw)


def test_affine_grid_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="floating point type"):
        F.affine_grid(mg.zeros(1, 2, 3, dtype=mg.int64), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="shape Nx2x3"):
        F.affine_grid(mg.rand(1, 2, 4), (1, 1, 2, 2), align_corners=False)
    with pytest.raises(ValueError, match="shape Nx3x4"):
        F.affine_grid(mg.rand(1, 3, 3), (1, 1, 2, 2, 2), align_corners=False)
    with pytest.raises(NotImplementedError, match="only supports 4D and 5D sizes"):
        F.affine_grid(mg.rand(1, 2, 3), (1, 1, 2), align_corners=False)
    with pytest.raises(ValueError, match="non-zero, positive output size"):
        F.affine_grid(mg.rand(1, 2, 3), (1, 1, 0, 2), align_corners=False)
    with pytest.raises(RuntimeError, match="batch size"):
        F.affine_grid(mg.rand(2, 2, 3), (1, 1, 3, 2), align_corners=False)


def test_align_corners_none_warns_and_means_false():
    x, g = mg.randn(1, 1, 3, 4), mg.rand(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        out = F.grid_sample(x, g)
    np.testing.assert_array_equal(out.numpy(), F.grid_sample(x, g, align_corners=False).numpy())
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(mg.rand(1, 2, 3), (1, 1, 2, 2))
