"""F.affine_grid and F.grid_sample against float64 loop references written here (each output
point sampled on its own, from the unnormalisation, padding and interpolation rules), their
gradients to the input and the grid against central differences, the edge cases (points outside,
exactly on borders, far reflections, both align_corners) and PyTorch's errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

# --- loop references ---------------------------------------------------------------------------


def _unnorm(g: float, n: int, ac: bool) -> float:
    return (g + 1) / 2 * (n - 1) if ac else ((g + 1) * n - 1) / 2


def _reflect(i: float, lo2: int, hi2: int) -> float:
    if lo2 == hi2:
        return 0.0
    lo, span = lo2 / 2, (hi2 - lo2) / 2
    t = abs(i - lo)
    k = math.floor(t / span)
    r = t - k * span
    return lo + r if k % 2 == 0 else lo + span - r


def _pad(i: float, n: int, pm: str, ac: bool) -> float:
    if pm == "reflection":
        i = _reflect(i, 0, 2 * (n - 1)) if ac else _reflect(i, -1, 2 * n - 1)
    if pm in ("border", "reflection"):
        i = min(max(i, 0.0), n - 1.0)
    return i


def _value(img: np.ndarray, pos: tuple) -> float:
    """img[pos] or 0 outside (img is one channel's (D,) H, W)."""
    if all(0 <= p < n for p, n in zip(pos, img.shape)):
        return float(img[pos])
    return 0.0


def _cubic(t: float) -> list[float]:
    a = -0.75

    def k(x: float) -> float:
        x = abs(x)
        if x <= 1:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [k(1 + t), k(t), k(1 - t), k(2 - t)]


def _sample_point(img: np.ndarray, g: np.ndarray, mode: str, pm: str, ac: bool) -> float:
    """One channel read at one normalised point g = (x, y[, z])."""
    d = img.ndim
    i = [_unnorm(float(g[d - 1 - k]), img.shape[k], ac) for k in range(d)]
    if mode == "bicubic":
        y0, x0 = math.floor(i[0]), math.floor(i[1])
        wy, wx = _cubic(i[0] - y0), _cubic(i[1] - x0)
        total = 0.0
        for r in range(4):
            for c in range(4):
                yy = int(_pad(y0 - 1 + r, img.shape[0], pm, ac))
                xx = int(_pad(x0 - 1 + c, img.shape[1], pm, ac))
                total += wy[r] * wx[c] * _value(img, (yy, xx))
        return total
    i = [_pad(v, n, pm, ac) for v, n in zip(i, img.shape)]
    if mode == "nearest":
        return _value(img, tuple(int(np.round(v)) for v in i))
    lows = [math.floor(v) for v in i]
    total = 0.0
    for corner in np.ndindex(*(2,) * d):
        w = 1.0
        for v, lo, c in zip(i, lows, corner):
            w *= (v - lo) if c else (1 - (v - lo))
        total += w * _value(img, tuple(lo + c for lo, c in zip(lows, corner)))
    return total


def _grid_sample_ref(x: np.ndarray, grid: np.ndarray, mode: str, pm: str, ac: bool) -> np.ndarray:
    n, c = x.shape[:2]
    out_sp = grid.shape[1:-1]
    out = np.zeros((n, c, *out_sp))
    for b in range(n):
        for ch in range(c):
            for pos in np.ndindex(*out_sp):
                out[(b, ch, *pos)] = _sample_point(x[b, ch], grid[(b, *pos)], mode, pm, ac)
    return out


def _affine_grid_ref(theta: np.ndarray, size: tuple, ac: bool) -> np.ndarray:
    spatial = size[2:]

    def base(k: int, n: int) -> float:
        if n == 1:
            return 0.0
        v = -1 + 2 * k / (n - 1)
        return v if ac else v * (n - 1) / n

    out = np.zeros((size[0], *spatial, len(spatial)))
    for b in range(size[0]):
        for pos in np.ndindex(*spatial):
            # (x, y[, z], 1): x is the last spatial dim
            p = [base(pos[k], spatial[k]) for k in reversed(range(len(spatial)))] + [1.0]
            out[(b, *pos)] = theta[b] @ np.array(p)
    return out


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
        _grid_sample_ref(x, g, mode, pm, ac),
        atol=1e-12,
    )


@pytest.mark.parametrize("mode,pm,ac", CASES_3D)
def test_grid_sample_3d_matches_the_point_by_point_reference(mode, pm, ac):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 2, 3, 4, 5))
    g = rng.uniform(-1.8, 1.8, (1, 2, 3, 2, 3))
    np.testing.assert_allclose(
        _run(x, g, mode=mode, padding_mode=pm, align_corners=ac),
        _grid_sample_ref(x, g, mode, pm, ac),
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
        _grid_sample_ref(x, g, mode, "reflection", ac),
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
            _grid_sample_ref(x, g, mode, pm, ac),
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
            _grid_sample_ref(x, g, mode, "reflection", True),
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
    np.testing.assert_allclose(out, _affine_grid_ref(theta, size, ac), atol=1e-12)


def test_affine_grid_gradient_to_theta_matches_central_differences():
    rng = np.random.default_rng(4)
    theta = rng.standard_normal((2, 2, 3))
    w = rng.standard_normal((2, 3, 4, 2))
    t = mg.tensor(theta, requires_grad=True)
    (F.affine_grid(t, (2, 1, 3, 4), align_corners=False) * mg.tensor(w)).sum().backward()
    num = _numeric(lambda th: (_affine_grid_ref(th, (2, 1, 3, 4), False) * w).sum(), theta)
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
        return (_grid_sample_ref(a, g, mode, pm, ac) * w).sum()

    def loss_g(a):
        return (_grid_sample_ref(x, a, mode, pm, ac) * w).sum()

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
