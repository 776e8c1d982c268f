"""The CPU's affine map with the bias added inside BLAS's gemm, and the bias gradient as a
matrix-vector product (kernels/blas.py, used by ops/linear.py), against float64 references:
every operand layout gemm can read (and the copies for those it cannot), float32 and float64,
the gradients through F.linear, a second derivative, and the fallbacks where it does not apply."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import kernels

RNG = np.random.default_rng(0)


def _layouts(m: int, k: int, dtype):
    """x (m, k) with the same values in four layouts: C order, F order (a transpose), rows
    with a gap (a column slice), and every other row (a strided view gemm cannot read)."""
    base = RNG.standard_normal((m, k)).astype(dtype)
    wide = np.zeros((m, k + 3), dtype)
    wide[:, 1 : k + 1] = base
    every_other = np.zeros((2 * m, k), dtype)[::2]
    every_other[...] = base
    tall = np.zeros((m, 2 * k), dtype)[:, ::2]  # columns with a stride: copied first
    tall[...] = base
    return base, [base, np.asfortranarray(base), wide[:, 1 : k + 1], every_other, tall]


@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-6), (np.float64, 1e-14)])
@pytest.mark.parametrize("m, k, n", [(64, 16, 24), (7, 5, 3), (1, 9, 1), (33, 1, 8)])
def test_linear_adds_the_bias_inside_the_product_for_every_operand_layout(
    monkeypatch, m, k, n, dtype, tol
):
    monkeypatch.setattr(kernels.blas, "LINEAR_MIN_OUTPUT", 0)  # gemm at every size
    base, xs = _layouts(m, k, dtype)
    w = RNG.standard_normal((n, k)).astype(dtype)
    b = RNG.standard_normal(n).astype(dtype)
    ref = base.astype(np.float64) @ w.astype(np.float64).T + b
    scale = np.abs(base).sum(axis=1, keepdims=True) @ np.abs(w).sum(axis=1)[None, :] + 1
    for x in xs:
        for weight in (w, np.asfortranarray(w), np.ascontiguousarray(w.T).T):
            y = kernels.blas.linear(x, weight, b)
            assert y.dtype == dtype and y.shape == (m, n)
            assert np.all(np.abs(y - ref) <= tol * scale)


def test_linear_keeps_special_values_as_the_sum_would(monkeypatch):
    monkeypatch.setattr(kernels.blas, "LINEAR_MIN_OUTPUT", 0)
    x = np.array([[1.0, 2.0], [np.inf, 0.0], [np.nan, 1.0]], np.float32)
    w = np.array([[1.0, 1.0], [0.0, 1.0]], np.float32)
    b = np.array([-np.inf, 0.5], np.float32)
    y = kernels.blas.linear(x, w, b)
    with np.errstate(invalid="ignore"):
        expected = x @ w.T + b  # -inf + 3 = -inf; inf * 0 = nan; nan
    np.testing.assert_array_equal(y, expected)


def test_linear_declines_what_it_does_not_compute():  # (an empty batch it computes)
    x = np.ones((4, 3), np.float32)
    w = np.ones((2, 3), np.float32)
    assert kernels.blas.linear(x, w, None) is None  # no bias: matmul alone
    assert (
        kernels.blas.linear(x.astype(np.float16), w.astype(np.float16), np.ones(2, np.float16))
        is None
    )
    assert kernels.blas.linear(x, w.astype(np.float64), np.ones(2, np.float32)) is None
    empty = kernels.blas.linear(np.ones((0, 3), np.float32), w, np.ones(2, np.float32))
    assert empty.shape == (0, 2)  # (an empty batch: NumPy's empty product)
    assert kernels.blas.linear(x, np.ones((2, 4), np.float32), np.ones(2, np.float32)) is None


def test_linear_small_outputs_are_numpys_product_and_add_large_ones_gemm():
    """Below LINEAR_MIN_OUTPUT outputs the fixed cost of the ctypes call outweighs the pass it
    saves: NumPy's product and an add compute them (the op's own plain numbers, to the bit), and
    with CBLAS missing too. From there on gemm does, to float precision."""
    w = RNG.standard_normal((128, 51))
    b = RNG.standard_normal(128)
    small = RNG.standard_normal((kernels.blas.LINEAR_MIN_OUTPUT // 128 - 1, 51))
    np.testing.assert_array_equal(kernels.blas.linear(small, w, b), small @ w.T + b)
    if kernels.blas.cblas_gemm(np.dtype(np.float64)) is None:
        pytest.skip("no CBLAS in this NumPy build")
    large = RNG.standard_normal((kernels.blas.LINEAR_MIN_OUTPUT // 128, 51))
    np.testing.assert_allclose(kernels.blas.linear(large, w, b), large @ w.T + b, atol=1e-12)


def test_linear_overflows_quietly_as_pytorch():
    x = np.full((4, 3), 3e38, np.float32)
    w = np.full((2, 3), 3e38, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = kernels.blas.linear(x, w, np.array([-np.inf, 1.0], np.float32))
    assert np.isnan(y[:, 0]).all() and np.isposinf(y[:, 1]).all()


def test_column_sum_is_the_float64_sum_of_each_column():
    for dtype, tol in ((np.float32, 1e-5), (np.float64, 1e-13)):
        g = RNG.standard_normal((300, 17)).astype(dtype)
        for a in (g, np.asfortranarray(g), g[::3]):
            s = kernels.blas.column_sum(a)
            ref = a.astype(np.float64).sum(axis=0)
            assert s.dtype == dtype
            np.testing.assert_allclose(s, ref, rtol=0, atol=tol * np.abs(a).sum(axis=0).max())
    assert kernels.blas.column_sum(np.ones((3, 2), np.float16)) is None
    assert kernels.blas.column_sum(np.ones((0, 2), np.float32)) is None


@pytest.mark.parametrize("no_cblas", [False, True])
def test_f_linear_values_and_gradients_against_float64(monkeypatch, no_cblas):
    if no_cblas:  # another NumPy build: the plain matmul and add
        monkeypatch.setattr(kernels.blas, "cblas_gemm", lambda dtype: None)
    x0 = RNG.standard_normal((3, 5, 8)).astype(np.float32)
    w0 = RNG.standard_normal((6, 8)).astype(np.float32)
    b0 = RNG.standard_normal(6).astype(np.float32)
    gy = RNG.standard_normal((3, 5, 6)).astype(np.float32)
    x, w, b = (mg.tensor(a, requires_grad=True) for a in (x0, w0, b0))
    y = F.linear(x, w, b)
    y.backward(mg.tensor(gy))
    x64, w64, g64 = x0.astype(np.float64), w0.astype(np.float64), gy.astype(np.float64)
    np.testing.assert_allclose(y.detach().numpy(), x64 @ w64.T + b0, rtol=0, atol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), g64 @ w64, rtol=0, atol=1e-5)
    np.testing.assert_allclose(w.grad.numpy(), g64.reshape(-1, 6).T @ x64.reshape(-1, 8), atol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), g64.sum(axis=(0, 1)), rtol=0, atol=1e-5)


def test_bias_gradient_recorded_under_create_graph():
    """With create_graph the bias gradient is a recorded op: d/dg of sum(db^2) = 2 db per row."""
    x = mg.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    w = mg.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    b = mg.tensor(RNG.standard_normal(2), requires_grad=True)
    g = mg.tensor(RNG.standard_normal((4, 2)), requires_grad=True)
    (db,) = mg.autograd.grad(F.linear(x, w, b), b, grad_outputs=g, create_graph=True)
    np.testing.assert_allclose(db.detach().numpy(), g.detach().numpy().sum(axis=0), atol=1e-12)
    (dg,) = mg.autograd.grad((db * db).sum(), g)
    np.testing.assert_allclose(
        dg.numpy(), np.broadcast_to(2 * db.detach().numpy(), (4, 2)), atol=1e-12
    )


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float64, 1e-13)])
@pytest.mark.parametrize("offset", [-1, 0])  # NumPy's sum below the threshold, ones @ g from it
def test_bias_gradient_is_the_column_sum_on_both_sides_of_the_blas_threshold(dtype, tol, offset):
    rows = kernels.blas.COLUMN_SUM_MIN_ROWS + offset
    x0 = RNG.standard_normal((rows, 5)).astype(dtype)
    gy = RNG.standard_normal((rows, 7)).astype(dtype)
    x, w, b = (
        mg.tensor(a, requires_grad=True) for a in (x0, np.ones((7, 5), dtype), np.ones(7, dtype))
    )
    F.linear(x, w, b).backward(mg.tensor(gy))
    assert b.grad.dtype == mg.tensor(gy).dtype
    ref = gy.astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(b.grad.numpy(), ref, rtol=0, atol=tol * np.abs(gy).sum(axis=0).max())


def test_float16_bias_gradient_is_summed_in_float32_and_rounded_once():
    """PyTorch accumulates a float16 sum in float32: 2048 + 1 + 1 + ... is exact there, where a
    float16 running sum would stay at 2048 (its spacing there is 2)."""
    gy = np.ones((40, 2), np.float16)
    gy[0] = 2048
    x, w, b = (mg.tensor(np.ones(s, np.float16), requires_grad=True) for s in ((40, 3), (2, 3), 2))
    F.linear(x, w, b).backward(mg.tensor(gy))
    expected = gy.astype(np.float32).sum(axis=0).astype(np.float16)
    assert b.grad.numpy().dtype == np.float16 and b.grad.numpy().tolist() == expected.tolist()
