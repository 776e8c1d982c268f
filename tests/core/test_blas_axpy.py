"""kernels/blas.py's axpy (y += a x in one BLAS pass) against NumPy, the cases it declines, and
LBFGS (its user) taking the same steps with it as with NumPy's y += a * x."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import blas


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (1000,), (7, 5)])
def test_axpy_adds_a_scaled_vector_in_place(dtype, shape):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    want = y.astype(np.float64) + 0.37 * x.astype(np.float64)
    y_id = id(y)
    if blas.cblas_axpy(np.dtype(dtype)) is None:
        pytest.skip("no CBLAS found in NumPy's OpenBLAS")
    assert blas.axpy(0.37, x, y) is True
    assert id(y) == y_id
    tol = 1e-6 if dtype == np.float32 else 1e-15
    np.testing.assert_allclose(y, want, rtol=tol, atol=tol)


def test_axpy_declines_what_it_cannot_do_and_leaves_y_alone():
    x = np.arange(8.0)
    y = np.ones(8)
    cases = [
        (x.astype(np.float32), y),  # mixed dtypes
        (x[::2], y[:4]),  # strided
        (x, y[:4]),  # shapes differ
        (x.astype(np.int64), y.astype(np.int64)),  # not floating point
        (y, y),  # overlapping memory
        (np.empty(0), np.empty(0)),
    ]
    for a, b in cases:
        before = b.copy()
        assert blas.axpy(2.0, a, b) is False
        np.testing.assert_array_equal(b, before)


def _lbfgs_trajectory(steps: int) -> list:
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(3, 8), mg.nn.Tanh(), mg.nn.Linear(8, 1)).double()
    x = mg.randn(32, 3, dtype=mg.float64)
    y = (x[:, :1] * 2 - x[:, 1:2]).sin()
    opt = mg.optim.LBFGS(model.parameters(), lr=0.5, max_iter=5, history_size=4)

    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss

    return [float(opt.step(closure)) for _ in range(steps)] + [
        p.detach().numpy().copy() for p in model.parameters()
    ]


def test_lbfgs_takes_the_same_steps_with_and_without_blas(monkeypatch):
    done = []
    real = blas.axpy
    monkeypatch.setattr(blas, "axpy", lambda a, x, y: done.append(real(a, x, y)) or done[-1])
    fast = _lbfgs_trajectory(6)
    if blas.cblas_axpy(np.dtype(np.float64)) is not None:
        assert any(done)  # the BLAS path ran
    monkeypatch.setattr(blas, "axpy", lambda a, x, y: False)
    plain = _lbfgs_trajectory(6)
    for a, b in zip(fast, plain):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    assert fast[5] < fast[0]  # and it descends
