"""BatchNorm's training step through the compiled loops (kernels/batch_norm_loops.py, Numba):
against a float64 NumPy reference, and at least as close to it as the NumPy passes that run
without Numba, in every layout the input and gradient arrive in."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import batch_norm_loops as loops
from tests.nn.compiled_calls import record_calls
from tests.nn.test_batch_norm_layouts import layout, reference

pytest.importorskip("numba")


@pytest.fixture
def calls(monkeypatch) -> list[str]:
    """The names of the compiled loops that ran."""
    return record_calls(monkeypatch, loops, ("_stats_loop", "_affine_loop", "_backward_loop"))


def _step(x, g, dtype, affine=True, momentum=0.1):
    """y, dL/dx, dL/dw, dL/db and the running averages of one BatchNorm training step."""
    c, rng = x.shape[1], np.random.default_rng(5)
    cls = {2: mg.nn.BatchNorm1d, 3: mg.nn.BatchNorm1d, 4: mg.nn.BatchNorm2d, 5: mg.nn.BatchNorm3d}
    bn = cls[x.ndim](c, affine=affine, momentum=momentum)
    if affine:
        with mg.no_grad():
            bn.weight.copy_(mg.tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
            bn.bias.copy_(mg.tensor(rng.standard_normal(c).astype(np.float32)))
    bn = bn.to(mg.float64) if dtype == np.float64 else bn
    xt = mg.from_numpy(x).requires_grad_()  # (x and g in their own layouts: no copy)
    y = bn(xt)
    y.backward(mg.from_numpy(g))
    w = bn.weight.detach().numpy() if affine else np.ones(c)
    b = bn.bias.detach().numpy() if affine else np.zeros(c)
    grads = (bn.weight.grad.numpy(), bn.bias.grad.numpy()) if affine else (None, None)
    return (y.detach().numpy(), xt.grad.numpy(), *grads), (w, b), bn


def _errors(got, want) -> list[float]:
    return [float(np.abs(a - b).max()) for a, b in zip(got, want) if a is not None]


SHAPES = [(8, 5, 6, 7), (6, 4, 17), (3, 2, 4, 5, 6), (2, 3, 1, 1), (5, 4, 3), (9, 1, 33, 4)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("x_layout", ["nc", "cn", "strided", "grid"])
@pytest.mark.parametrize("g_layout", ["nc", "cn", "grid"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_batch_norm_step_matches_float64_and_the_numpy_passes(
    shape, x_layout, g_layout, dtype, calls, monkeypatch
):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 20).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    xl, gl = layout(x, x_layout), layout(g, g_layout)
    got, (w, b), bn = _step(xl, gl, dtype)
    # every layout but a 5-D padded grid (two outer spatial runs) takes the loops
    expected = ["_stats_loop", "_affine_loop"] if loops._layout(xl) else []
    expected += ["_backward_loop"] if loops._layout(xl, gl) else []
    assert calls == expected and (len(shape) == 5 or len(expected) == 3)
    want = reference(x, g, w, b, 1e-5)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain, _, bn_plain = _step(xl, gl, dtype)
    assert calls == expected  # not again
    scale = [max(1.0, float(np.abs(v).max())) for v in want]
    # float64: the loops' sums are float64 as the NumPy passes' are, taken in another order (one
    # partial sum per position of a run): errors of the same size, tens of ulp of the result
    ulp = np.finfo(dtype).eps * (1 if dtype == np.float32 else 16)
    # Both paths hand the same float32 mu and r from the forward to the backward, whose rounding
    # dominates dL/dw's error (sum g (x - mu) r over a mean of 20): within a quarter of the NumPy
    # passes' error there, nearer elsewhere
    for err, err_plain, s in zip(_errors(got, want), _errors(plain, want), scale):
        assert err <= max(1.25 * err_plain, 4 * ulp * s)
    tol = dict(rtol=1e-6, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-14, atol=1e-14)
    for buf in ("running_mean", "running_var"):
        np.testing.assert_allclose(getattr(bn, buf).numpy(), getattr(bn_plain, buf).numpy(), **tol)
    axes = (0, *range(2, len(shape)))
    n = x.size // shape[1]
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * x64.var(axis=axes) * n / (n - 1),
                               rtol=1e-6)  # fmt: skip
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x64.mean(axis=axes), rtol=1e-6)


def test_compiled_batch_norm_without_affine_and_cumulative_average(calls):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((10, 3, 4, 4)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    (y, gx, _, _), _, bn = _step(x, g, np.float32, affine=False, momentum=None)
    assert calls == ["_stats_loop", "_affine_loop", "_backward_loop"]
    ry, rgx, _, _ = reference(x, g, np.ones(3), np.zeros(3), 1e-5)
    np.testing.assert_allclose(y, ry, rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(gx, rgx, rtol=2e-6, atol=2e-6)
    n = x.size // 3  # momentum None: the cumulative average, here of one batch
    np.testing.assert_allclose(bn.running_var.numpy(), x.astype(np.float64).var(axis=(0, 2, 3))
                               * n / (n - 1), rtol=1e-6)  # fmt: skip


def test_compiled_batch_norm_parameter_gradients_only(calls):
    """The input needs no gradient: the loop sums g and g (x - mu) and writes no dL/dx."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3, 5, 5))
    g = rng.standard_normal(x.shape)
    bn = mg.nn.BatchNorm2d(3).to(mg.float64)
    bn(mg.tensor(x)).backward(mg.tensor(g))
    assert calls == ["_stats_loop", "_affine_loop", "_backward_loop"]
    _, _, rgw, rgb = reference(x, g, np.ones(3), np.zeros(3), 1e-5)
    np.testing.assert_allclose(bn.weight.grad.numpy(), rgw, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(bn.bias.grad.numpy(), rgb, rtol=1e-13, atol=1e-13)


def test_compiled_batch_norm_statistics_of_a_large_mean_stay_exact(calls):
    rng = np.random.default_rng(3)
    x = 1e6 + rng.standard_normal((64, 4, 8, 8))
    mu, var = loops.stats(x)
    np.testing.assert_allclose(var, x.var(axis=(0, 2, 3)), rtol=1e-9)
    np.testing.assert_allclose(mu, x.mean(axis=(0, 2, 3)), rtol=1e-15)


def test_compiled_loops_decline_channels_last_and_two_byte_floats(calls):
    """A channels-last input (no contiguous spatial run) and 2-byte floats keep the NumPy code."""
    x = np.ones((4, 3, 5, 5), np.float32).transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)
    assert loops.stats(x) is None
    xt = mg.randn(4, 3, 5, 5).contiguous(memory_format=mg.channels_last).requires_grad_()
    y = mg.nn.BatchNorm2d(3)(xt)
    y.backward(mg.ones_like(y))
    xh = mg.tensor(np.ones((4, 3, 5, 5)), dtype=mg.bfloat16, requires_grad=True)
    mg.nn.functional.batch_norm(xh, None, None, training=True).sum().backward()
    assert calls == []


def test_compiled_loops_off_without_numba(monkeypatch):
    x = np.ones((2, 2, 4, 4), np.float32)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "1")
    assert loops.stats(x) is not None
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    assert loops.stats(x) is None


def test_compiled_batch_norm_reads_a_broadcast_gradient_and_declines_a_flipped_input(calls):
    """dL/dy with zero strides (an expanded array) is read where it lies; an input with a
    negative stride keeps the NumPy code. Both against the float64 reference."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((4, 3, 5, 6)).astype(np.float32)
    g = np.broadcast_to(rng.standard_normal((1, 1, 5, 6)).astype(np.float32), x.shape)
    (y, gx, gw, gb), (w, b), _ = _step(x, g, np.float32)
    assert calls == ["_stats_loop", "_affine_loop", "_backward_loop"]
    for got, want in zip((y, gx, gw, gb), reference(x, np.ascontiguousarray(g), w, b, 1e-5)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    for flipped in (x[:, :, ::-1], x[::-1], x[:, ::-1]):  # rows, samples, channels reversed
        assert loops.stats(flipped) is None
        (y, gx, gw, gb), (w, b), _ = _step(flipped, flipped, np.float32)
        for got, want in zip((y, gx, gw, gb), reference(flipped, flipped, w, b, 1e-5)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_gradient_of_another_shape_than_x_is_declined_not_read_past_its_end(calls):
    """The loops walk every array with x's (N, C, *) sizes and no bounds checks: a gradient of
    another shape goes back to the caller (None), as does an output of another shape."""
    x = np.ones((2, 3, 4, 4), np.float32)
    vectors = np.zeros(3), np.ones(3), np.ones(3)
    assert loops.backward(x, np.ones((2, 3, 4, 2), np.float32), None, *vectors) is None
    assert loops.forward(x, np.empty((2, 3, 4, 2), np.float32), *vectors) is False
    assert calls == []
    sums = loops.backward(x, np.full_like(x, 2.0), None, *vectors)
    np.testing.assert_array_equal(sums[0], np.full(3, 64.0))  # sum of g per channel
