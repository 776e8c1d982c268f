"""The compiled CPU loops of the exact GELU (kernels/gelu_loop.py) and LayerNorm/RMSNorm
(kernels/layer_norm_loop.py) against a float64 oracle, and at least as close to it as the
NumPy code they stand for (MINIGENESIS_NUMBA=0): values, slopes, all three gradients, special
values, odd and strided shapes, float32 and float64, and the cases they leave to NumPy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import cpu_jit, gelu_loop, layer_norm_loop
from minigenesis.kernels import gelu as G
from tests.core.test_layer_norm_rows_kernel import _reference, _run

pytest.importorskip("numba")
if not cpu_jit.available():
    pytest.skip("compiled kernels switched off (MINIGENESIS_NUMBA=0)", allow_module_level=True)

_ERFC = np.vectorize(math.erfc)


def _gelu64(x):
    """(gelu(x), gelu'(x)) in float64 from erfc (no cancellation in the negative tail)."""
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        cdf = 0.5 * _ERFC(-x / math.sqrt(2))
        return x * cdf, cdf + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _ulps(got, want):
    """|got - want| in float32 ulps of want."""
    return np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)


def _grid():
    rng = np.random.default_rng(0)
    parts = [rng.standard_normal(200_000) * 3, np.linspace(-16, 16, 100_001), [-14.99, 14.99]]
    return np.concatenate(parts).astype(np.float32)


def test_compiled_gelu_is_within_one_ulp_of_float64_and_closer_than_the_numpy_passes():
    x = _grid()
    y, slope = gelu_loop.gelu(x, True)
    y_np, slope_np = G._gelu_float32_blocks(x, True)
    y64, slope64 = _gelu64(x)
    assert _ulps(y, y64).max() < 1.0
    assert _ulps(y, y64).max() <= _ulps(y_np, y64).max()
    # the slope crosses 0 near x = -0.75: absolute error on its scale (it is at most ~1.13)
    assert np.abs(slope - slope64).max() < 1.2e-7
    assert np.abs(slope - slope64).max() <= np.abs(slope_np - slope64).max()
    far = np.abs(x) > 1
    assert _ulps(slope[far], slope64[far]).max() < 1.0


def test_compiled_gelu_special_values_match_the_numpy_passes():
    x = np.zeros(64, np.float32)
    tiny = np.finfo(np.float32).smallest_subnormal  # x/2 a tie: rounds to even, to 0
    x[:11] = [np.inf, -np.inf, np.nan, -0.0, 0.0, 15.0, -15.0, 40.0, -40.0, tiny, -tiny]
    y, slope = gelu_loop.gelu(x, True)
    y_np, slope_np = G._gelu_float32_blocks(x, True)
    np.testing.assert_array_equal(y, y_np)  # inf, NaN (-inf * 0), NaN, -0.0, 0, 15, -0 ...
    np.testing.assert_array_equal(slope, slope_np)  # NaN at +-inf (inf * 0), as PyTorch
    assert np.signbit(y[3]) and y[0] == np.inf and np.isnan(y[1]) and np.isnan(slope[0])


def test_compiled_gelu_leaves_other_dtypes_small_arrays_and_numba_off_to_numpy(monkeypatch):
    assert gelu_loop.gelu(np.ones(100, np.float64), True) is None
    assert gelu_loop.gelu(np.ones(gelu_loop.GELU_LOOP_MIN - 1, np.float32), True) is None
    y, slope = gelu_loop.gelu(np.ones((4, 5), np.float32), False)
    assert y.shape == (4, 5) and slope is None
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    assert gelu_loop.gelu(np.ones(100, np.float32), True) is None


def test_compiled_gelu_writes_arrays_apart_from_x_and_y_without_slope_is_the_same(monkeypatch):
    # The loop writes y (and slope where wanted). Its vectorised code checks at run time that the
    # arrays it writes overlap nothing else and falls back to the scalar loop where they do, so
    # the slope it does not fill must still be an array of its own, never y or x; and both start
    # at least 1 KiB from x modulo 4 KiB, so loads of x never wait on stores that only look alike.
    seen = []
    loop = gelu_loop._gelu_loop
    monkeypatch.setattr(gelu_loop, "_gelu_loop", lambda *a: (seen.append(a), loop(*a))[1])
    x = _grid()[:50_000].reshape(500, 100)
    y_only, none = gelu_loop.gelu(x, False)
    y, _ = gelu_loop.gelu(x, True)
    assert none is None
    np.testing.assert_array_equal(y_only, y)
    for xs, ys, slopes, _want in seen:
        assert not np.shares_memory(slopes, ys) and not np.shares_memory(slopes, xs)
        for out in (ys, slopes):
            assert 1024 <= (out.ctypes.data - xs.ctypes.data) % 4096 <= 3072


@pytest.mark.parametrize("transposed", [False, True])
def test_gelu_op_through_the_loop_matches_float64_and_the_numpy_path(monkeypatch, transposed):
    rng = np.random.default_rng(4)
    base = (rng.standard_normal((33, 70)) * 4).astype(np.float32)
    g = rng.standard_normal((70, 33) if transposed else (33, 70)).astype(np.float32)

    def run():
        t = mg.tensor(base, requires_grad=True)
        y = F.gelu(t.T if transposed else t)
        y.backward(mg.tensor(g))
        return y.detach().numpy(), t.grad.numpy()

    calls = []
    loop = gelu_loop._gelu_loop
    monkeypatch.setattr(gelu_loop, "_gelu_loop", lambda *a: calls.append(1) or loop(*a))
    y, gx = run()
    assert calls  # the loop ran
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    y_np, gx_np = run()
    x = base.T if transposed else base
    y64, slope64 = _gelu64(x)
    gx64 = g * slope64
    gx64 = gx64.T if transposed else gx64
    assert np.abs(y - y64).max() <= np.abs(y_np - y64).max()
    assert np.abs(gx - gx64).max() <= 1.5 * np.abs(gx_np - gx64).max()
    np.testing.assert_allclose(y, y64, rtol=1e-6, atol=1e-30)


LN_CASES = [  # (shape, dtype, weight, bias, center)
    ((16, 64, 128), np.float32, True, True, True),
    ((7, 33), np.float64, True, True, True),
    ((2, 130), np.float32, True, True, True),  # rows not a multiple of 4
    ((9, 7), np.float32, False, True, True),  # a bias without a weight
    ((4, 6, 31), np.float32, True, False, False),  # RMSNorm
    ((4, 6, 31), np.float64, False, False, False),
    ((3, 5, 300), np.float32, False, False, True),
]


def _errors(shape, dtype, weight, bias, center, contiguous):
    rng = np.random.default_rng(shape[-1])
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype) if weight else None
    b = rng.standard_normal(shape[-1]).astype(dtype) if bias else None
    truth = _reference(x, w, b, g, 1e-5, center)
    ours = _run(x, w, b, g, 1e-5, center, contiguous)
    return [
        None if o is None else np.abs(o - t).max() / np.abs(t).max() for o, t in zip(ours, truth)
    ]


@pytest.mark.parametrize("shape, dtype, weight, bias, center", LN_CASES)
@pytest.mark.parametrize("contiguous", [True, False])
def test_compiled_layer_norm_is_as_close_to_float64_as_the_numpy_path(
    monkeypatch, shape, dtype, weight, bias, center, contiguous
):
    calls = []
    backward = layer_norm_loop._backward_rows
    monkeypatch.setattr(
        layer_norm_loop, "_backward_rows", lambda *a: calls.append(1) or backward(*a)
    )
    compiled = _errors(shape, dtype, weight, bias, center, contiguous)
    assert calls  # the loops ran
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain = _errors(shape, dtype, weight, bias, center, contiguous)
    tol = 1e-6 if dtype == np.float32 else 1e-14
    for ours, theirs in zip(compiled, plain):
        if ours is not None:  # y, dL/dx, dL/dw, dL/db: within float precision, never much worse
            assert ours < tol and ours <= 1.5 * theirs + np.finfo(dtype).eps


def test_compiled_layer_norm_keeps_two_pass_accuracy_on_rows_far_from_zero():
    # a row of values 1e4 away from 0 with unit spread: the one-pass sums are shifted by the
    # row's first element, so no digits cancel
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        x = (rng.standard_normal((8, 64)) + 1e4).astype(dtype)
        y, mu, r = layer_norm_loop.forward(x, None, None, 64, 1e-5, True)
        x64 = x.astype(np.float64)
        d = x64 - x64.mean(-1, keepdims=True)
        want = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5)
        assert np.abs(y - want).max() < (2e-3 if dtype == np.float32 else 1e-11)


def test_compiled_layer_norm_leaves_two_byte_floats_and_numba_off_to_numpy(monkeypatch):
    x = np.ones((4, 8), np.float32)
    assert layer_norm_loop.forward(x.astype(np.float16), None, None, 8, 1e-5, True) is None
    assert layer_norm_loop.forward(x[:1, :8], None, None, 8, 1e-5, True) is None  # 8 < 16
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    assert layer_norm_loop.forward(x, None, None, 8, 1e-5, True) is None
    # bfloat16 LayerNorm (weights bfloat16: the op's own code) still matches its float32 math
    xb = mg.randn(6, 40).to(mg.bfloat16)
    y = F.layer_norm(xb, (40,), mg.ones(40, dtype=mg.bfloat16), mg.zeros(40, dtype=mg.bfloat16))
    want = F.layer_norm(xb.float(), (40,))
    assert y.dtype == mg.bfloat16
    np.testing.assert_allclose(y.float().numpy(), want.numpy(), atol=1e-2, rtol=1e-2)


def test_compiled_layer_norm_backward_declines_a_gradient_of_another_shape(monkeypatch):
    """The backward loop indexes every row of x and of dL/dy unchecked: dL/dy with fewer rows,
    or statistics for another number of rows, go back to the caller (None)."""
    monkeypatch.setenv("MINIGENESIS_NUMBA", "1")
    x = np.random.default_rng(2).standard_normal((6, 32)).astype(np.float32)
    y, mu, r = layer_norm_loop.forward(x, None, None, 32, 1e-5, True)
    needs = (True, False, False)
    fewer_rows = np.ones((2, 32), np.float32)
    assert layer_norm_loop.backward(x, None, fewer_rows, mu, r, True, needs) is None
    assert layer_norm_loop.backward(x, None, np.ones_like(x), mu[:3], r, True, needs) is None
    gx, _, _ = layer_norm_loop.backward(x, None, np.ones_like(x), mu, r, True, needs)
    np.testing.assert_allclose(gx, 0.0, atol=1e-6)  # a constant dL/dy moves no normalised row


def test_compiled_layer_norm_declines_a_weight_or_bias_that_is_not_one_value_per_column():
    x = np.ones((4, 32), np.float32)
    for odd in (np.ones(16, np.float32), np.ones((32, 1), np.float32), np.ones(32)):
        assert layer_norm_loop.forward(x, odd, None, 32, 1e-5, True) is None
        assert layer_norm_loop.forward(x, None, odd, 32, 1e-5, True) is None
