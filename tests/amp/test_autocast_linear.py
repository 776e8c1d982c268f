"""Linear layers under CPU autocast (ops/linear.py, AutocastLinear): float32 master weights whose
rounding to the low dtype is folded into the layer's op and cached once per parameter version.
Checked bit for bit against the same arithmetic written out with NumPy and ml_dtypes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import autocast_policy as P
from minigenesis.ops import linear as L

LOW = {"bfloat16": (mg.bfloat16, ml_dtypes.bfloat16), "float16": (mg.float16, np.float16)}


def _r(a: np.ndarray, low) -> np.ndarray:
    """a rounded to the low dtype, as float32."""
    return np.asarray(a, np.float32).astype(low).astype(np.float32)


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


def _layer(rng, n_in, n_out):
    w = mg.tensor(rng.standard_normal((n_out, n_in)).astype(np.float32), requires_grad=True)
    b = mg.tensor(rng.standard_normal(n_out).astype(np.float32), requires_grad=True)
    return w, b


@pytest.mark.parametrize("name", list(LOW))
def test_forward_and_gradients_are_the_written_out_arithmetic(name):
    dtype, low = LOW[name]
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((2, 5, 12)).astype(np.float32)
    g_np = rng.standard_normal((2, 5, 7)).astype(np.float32)
    w, b = _layer(rng, 12, 7)
    x = mg.tensor(x_np).to(dtype).requires_grad_()
    with mg.autocast(dtype=dtype):
        y = F.linear(x, w, b)
    assert isinstance(y.grad_fn, L.AutocastLinear) and y.dtype is dtype
    # forward: low-precision operands, float32 BLAS product plus bias, one rounding
    x32, w32, b32 = _r(x_np, low), _r(w.detach().numpy(), low), _r(b.detach().numpy(), low)
    expected = (np.matmul(x32.reshape(10, 12), w32.T) + b32).astype(low).reshape(2, 5, 7)
    assert np.array_equal(_bits(y.detach().numpy()), _bits(expected))
    # backward: the incoming gradient (low precision) widened once; dL/dx rounded like x,
    # dL/dW and dL/db float32 for the float32 parameters (float16: rounded through float16 on
    # the way, so that an overflow becomes inf as in PyTorch)
    y.backward(mg.tensor(g_np).to(dtype))
    g32 = _r(g_np, low).reshape(10, 7)
    assert x.grad.dtype is dtype and w.grad.dtype is mg.float32 and b.grad.dtype is mg.float32
    gx = np.matmul(g32, w32).astype(low).reshape(2, 5, 12)
    assert np.array_equal(_bits(x.grad.numpy()), _bits(gx))
    gw, gb = g32.T @ x32.reshape(10, 12), g32.sum(0)
    if name == "float16":
        gw, gb = _r(gw, low), _r(gb, low)
    np.testing.assert_allclose(w.grad.numpy(), gw, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), gb, rtol=1e-6, atol=1e-5)
    # and within half a unit of the low dtype of the route with a separate cast of the weight
    # (PyTorch's: the weight gradient computed in the low dtype, then cast up)
    routed = (g32.T @ x32.reshape(10, 12)).astype(low).astype(np.float32)
    eps = float(ml_dtypes.finfo(low).eps)
    assert np.all(np.abs(w.grad.numpy() - routed) <= 0.5 * eps * np.abs(routed) + 1e-30)


def test_a_float32_input_is_cast_once_and_gets_a_float32_gradient():
    rng = np.random.default_rng(1)
    w, b = _layer(rng, 6, 3)
    x = mg.tensor(rng.standard_normal((4, 6)).astype(np.float32), requires_grad=True)
    with mg.autocast():
        y = F.linear(x, w, b)
    assert y.dtype is mg.bfloat16
    y.float().sum().backward()
    assert x.grad.dtype is mg.float32
    w32 = _r(w.detach().numpy(), ml_dtypes.bfloat16)
    gx = np.ones((4, 3), np.float32) @ w32
    np.testing.assert_array_equal(x.grad.numpy(), gx.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_the_rounded_weight_is_cached_per_version_of_the_parameter():
    rng = np.random.default_rng(2)
    w, b = _layer(rng, 8, 4)
    x = mg.tensor(rng.standard_normal((3, 8)).astype(np.float32))
    opt = mg.optim.AdamW([w, b], lr=0.1)

    def expected():
        x32, w32 = _r(x.numpy(), ml_dtypes.bfloat16), _r(w.detach().numpy(), ml_dtypes.bfloat16)
        b32 = _r(b.detach().numpy(), ml_dtypes.bfloat16)
        return (x32 @ w32.T + b32).astype(ml_dtypes.bfloat16)

    with mg.autocast():  # a whole training loop inside one region
        for _ in range(3):
            y = F.linear(x, w, b)
            assert P.cache_size() == 2  # the weight and the bias, once each
            assert np.array_equal(_bits(y.detach().numpy()), _bits(expected()))
            opt.zero_grad()
            y.float().square().sum().backward()
            opt.step()  # writes the parameters: their cached copies are stale now
        with mg.no_grad():
            w.mul_(-2.0)  # an in-place edit outside autograd: also a new version
        y = F.linear(x, w, b)
        assert np.array_equal(_bits(y.detach().numpy()), _bits(expected()))
        assert P.cache_size() == 2
    assert P.cache_size() == 0  # dropped when the region ends


def test_cache_disabled_and_non_leaf_weights_still_compute_the_same():
    rng = np.random.default_rng(3)
    w, b = _layer(rng, 5, 2)
    x = mg.tensor(rng.standard_normal((4, 5)).astype(np.float32))
    with mg.autocast():
        ref = F.linear(x, w, b).detach().numpy()
    with mg.autocast(cache_enabled=False):
        assert np.array_equal(_bits(F.linear(x, w, b).detach().numpy()), _bits(ref))
        assert P.cache_size() == 0
    with mg.autocast():
        y = F.linear(x, w * 1.0, b)  # a computed weight: the plain Linear op on cast operands
        assert isinstance(y.grad_fn, L.Linear)
        assert np.array_equal(_bits(y.detach().numpy()), _bits(ref))
        frozen = F.linear(x, w.detach(), b.detach())  # no gradient wanted: still the fused op
        assert np.array_equal(_bits(frozen.numpy()), _bits(ref))


def test_second_derivatives_reach_the_weight():
    """create_graph: a gradient penalty ||dL/dx||^2 differentiated again, against the same
    computation written with the explicit casts (the plain Linear on a cast weight)."""
    rng = np.random.default_rng(4)
    x_np = rng.standard_normal((3, 4)).astype(np.float32)
    w_np = rng.standard_normal((2, 4)).astype(np.float32)

    def penalty(fused: bool):
        w = mg.tensor(w_np, requires_grad=True)
        x = mg.tensor(x_np).bfloat16().requires_grad_()
        with mg.autocast():
            y = F.linear(x, w) if fused else L.Linear.apply(x, w.bfloat16(), None)
        assert (isinstance(y.grad_fn, L.AutocastLinear)) == fused
        (gx,) = mg.autograd.grad(y.float().square().sum(), x, create_graph=True)
        gx.float().square().sum().backward()
        return w.grad.numpy()

    got, ref = penalty(True), penalty(False)
    assert np.abs(got).max() > 0
    np.testing.assert_allclose(got, ref, rtol=2e-2, atol=2e-2)


def test_only_two_byte_arrays_are_kept_for_backward():
    """The activation and the rounded weight are kept in the low dtype, each only when a gradient
    needs it: the float32 copies the product uses are temporaries."""
    rng = np.random.default_rng(5)
    w, b = _layer(rng, 16, 8)
    x = mg.tensor(rng.standard_normal((4, 16)).astype(np.float32))
    with mg.autocast():
        first = F.linear(x, w, b)  # data: no gradient for x, so W_r is not kept
        h = first.relu()
        frozen = mg.tensor(rng.standard_normal((3, 8)).astype(np.float32))
        second = F.linear(h, frozen, None)  # a frozen weight: its input is not kept
    kept = [t for t in first.grad_fn.saved_tensors if t is not None]
    assert [(t.dtype, tuple(t.shape)) for t in kept] == [(mg.bfloat16, (4, 16))]
    kept = [t for t in second.grad_fn.saved_tensors if t is not None]
    assert [(t.dtype, tuple(t.shape)) for t in kept] == [(mg.bfloat16, (3, 8))]


def test_weight_and_bias_gradients_become_their_grad_without_a_copy(monkeypatch):
    """The engine keeps a leaf's gradient as its .grad without a copy only when nothing else
    holds it: AutocastLinear's backward must not keep one in a local while the engine takes it."""
    from minigenesis.autograd import grad_reuse

    seen = []
    held = grad_reuse.held_only_here

    def spy(g, held_here):  # (this frame holds g once more than the engine's)
        seen.append(held(g, held_here + 1))
        return seen[-1]

    monkeypatch.setattr(grad_reuse, "held_only_here", spy)
    rng = np.random.default_rng(0)
    w, b = _layer(rng, 12, 7)
    h = mg.tensor(rng.standard_normal((2, 5, 12)).astype(np.float32), requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = F.linear(h * 2, w, b)  # (dL/dx goes on to Mul: no leaf)
    assert isinstance(y.grad_fn, L.AutocastLinear)
    y.float().sum().backward()
    assert seen == [True, True, True]  # W's and b's, then h's from Mul
