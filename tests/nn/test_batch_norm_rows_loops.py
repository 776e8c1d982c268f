"""BatchNorm1d's training step on (N, C) input through its compiled loops
(kernels/batch_norm_rows.py, Numba): against a float64 NumPy reference and at least as close to it
as the op's NumPy code (MINIGENESIS_NUMBA=0); running averages; what it declines."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import batch_norm_rows as rows
from tests.nn.compiled_calls import record_calls

pytest.importorskip("numba")


@pytest.fixture
def calls(monkeypatch) -> list[str]:
    """The names of the compiled loops that ran."""
    return record_calls(monkeypatch, rows, ("_forward_loop", "_backward_loop"))


def reference(x, g, w, b, eps=1e-5):
    """y, dL/dx, dL/dw, dL/db in float64 (the closed form per column)."""
    x, g, w, b = (a.astype(np.float64) for a in (x, g, w, b))
    n = x.shape[0]
    mu, var = x.mean(axis=0), x.var(axis=0)
    r = 1 / np.sqrt(var + eps)
    xhat = (x - mu) * r
    gb, gw = g.sum(axis=0), (g * xhat).sum(axis=0)
    gx = r * w * (g - gb / n - xhat * gw / n)
    return xhat * w + b, gx, gw, gb, mu, var * n / (n - 1)


def _step(x, g, affine=True, track=True, momentum=0.1, x_grad=True):
    c, rng = x.shape[1], np.random.default_rng(5)
    bn = mg.nn.BatchNorm1d(c, affine=affine, track_running_stats=track, momentum=momentum)
    if affine:
        with mg.no_grad():
            bn.weight.copy_(mg.tensor(rng.uniform(0.5, 2, c).astype(np.float32)))
            bn.bias.copy_(mg.tensor(rng.standard_normal(c).astype(np.float32)))
    bn = bn.to(mg.float64) if x.dtype == np.float64 else bn
    xt = mg.tensor(x, requires_grad=x_grad)
    y = bn(xt)
    y.backward(mg.tensor(g))
    w = bn.weight.detach().numpy() if affine else np.ones(c)
    b = bn.bias.detach().numpy() if affine else np.zeros(c)
    out = [y.detach().numpy(), None if xt.grad is None else xt.grad.numpy()]
    out += [bn.weight.grad.numpy(), bn.bias.grad.numpy()] if affine else [None, None]
    return out, (w, b), bn


@pytest.mark.parametrize("shape", [(32, 200), (2, 1), (7, 33)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_rows_step_matches_float64_and_the_numpy_code(shape, dtype, calls, monkeypatch):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(shape) * 3 + 20).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    got, (w, b), bn = _step(x, g)
    assert calls == ["_forward_loop", "_backward_loop"]
    ry, rgx, rgw, rgb, rmu, rvar = reference(x, g, w, b)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain, _, bn_plain = _step(x, g)
    assert len(calls) == 2  # the NumPy code ran
    ulp = np.finfo(dtype).eps * (1 if dtype == np.float32 else 4)
    for a, p, want in zip(got, plain, (ry, rgx, rgw, rgb)):
        assert a.dtype == dtype
        scale = max(1.0, float(np.abs(want).max()))
        err, err_plain = np.abs(a - want).max(), np.abs(p - want).max()
        assert err <= max(err_plain, 4 * ulp * scale)  # as close as the NumPy code, or nearer
    tol = dict(rtol=4 * ulp, atol=4 * ulp)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * rmu, **tol)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * rvar, **tol)
    np.testing.assert_allclose(bn.running_var.numpy(), bn_plain.running_var.numpy(), **tol)


def test_compiled_rows_without_affine_or_running_averages(calls):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    (y, gx, _, _), _, bn = _step(x, g, affine=False, track=False)
    assert calls == ["_forward_loop", "_backward_loop"] and bn.running_mean is None
    ry, rgx, *_ = reference(x, g, np.ones(5), np.zeros(5))
    np.testing.assert_allclose(y, ry, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(gx, rgx, rtol=1e-6, atol=1e-6)


def test_compiled_rows_cumulative_average_and_parameter_gradients_only(calls):
    rng = np.random.default_rng(3)
    x, g = rng.standard_normal((9, 4)), rng.standard_normal((9, 4))
    (_, gx, gw, gb), (w, b), bn = _step(x, g, momentum=None, x_grad=False)
    assert calls == ["_forward_loop", "_backward_loop"] and gx is None
    _, _, rgw, rgb, rmu, rvar = reference(x, g, w, b)
    np.testing.assert_allclose(gw, rgw, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(gb, rgb, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(bn.running_mean.numpy(), rmu, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(bn.running_var.numpy(), rvar, rtol=1e-13)


def test_compiled_rows_decline_strided_input_and_two_byte_floats(calls):
    x = mg.randn(4, 6).t().requires_grad_()  # (6, 4), not C-contiguous
    mg.nn.functional.batch_norm(x, None, None, training=True).sum().backward()
    xh = mg.randn(4, 3, dtype=mg.bfloat16, requires_grad=True)
    mg.nn.functional.batch_norm(xh, None, None, training=True).sum().backward()
    assert calls == []


def _second_derivative(x):
    xd = mg.tensor(x, requires_grad=True)
    y = mg.nn.functional.batch_norm(xd, None, None, training=True)
    (gx,) = mg.autograd.grad((y * y * y).sum(), xd, create_graph=True)  # Tensor-op backward
    (gx * gx).sum().backward()
    return xd.grad.numpy()


def test_second_derivatives_through_the_compiled_forward_match_the_numpy_code(calls, monkeypatch):
    x = np.random.default_rng(4).standard_normal((5, 3))
    got = _second_derivative(x)
    assert calls[0] == "_forward_loop"
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    np.testing.assert_allclose(got, _second_derivative(x), rtol=1e-11, atol=1e-11)


def test_per_channel_arrays_of_another_shape_are_declined_not_indexed_past_their_end(calls):
    """The loops index w, b and the running averages as vectors of C elements without bounds
    checks: a (1, C, 1) running mean was written past its end (heap corruption) and a (1, C)
    weight raised Numba's TypingError. Such shapes go to the op's NumPy code."""
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    vec = np.zeros(3, np.float32)
    for odd in (np.zeros((1, 3, 1), np.float32), np.ones((1, 3), np.float32)):
        assert rows.forward(x, odd, vec, None, 1e-5) is None
        assert rows.forward(x, None, None, (odd, vec + 1, 0.1), 1e-5) is None
        assert rows.forward(x, None, None, (vec, odd, 0.1), 1e-5) is None
    assert rows.forward(x, None, None, (np.zeros(4, np.float32), vec + 1, 0.1), 1e-5) is None
    assert calls == []
    w, b = np.full((1, 3), 2.0, np.float32), np.full((1, 3), 0.5, np.float32)
    y = mg.nn.functional.batch_norm(
        mg.tensor(x), None, None, mg.tensor(w), mg.tensor(b), training=True
    )
    expected = (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5) * 2.0 + 0.5
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)
