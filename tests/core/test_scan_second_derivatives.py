"""Second derivatives of the scans (cumsum, cumprod, cummax, cummin, logcumsumexp): the Hessian of
a weighted sum, from a double backward, against float64 central differences of the first
derivative (and logcumsumexp's against its closed form)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.functional import hessian


def _first_derivative(f, x_arr: np.ndarray, w: np.ndarray) -> np.ndarray:
    x = mg.tensor(x_arr, requires_grad=True)
    (g,) = mg.autograd.grad((f(x) * mg.tensor(w)).sum(), x)
    return g.numpy()


def _numeric_hessian(f, x_arr: np.ndarray, w: np.ndarray, h: float = 1e-6) -> np.ndarray:
    rows = []
    for k in np.ndindex(x_arr.shape):
        e = np.zeros_like(x_arr)
        e[k] = h
        plus, minus = _first_derivative(f, x_arr + e, w), _first_derivative(f, x_arr - e, w)
        rows.append(((plus - minus) / (2 * h)).ravel())
    return np.array(rows)


def _hessian_by_double_backward(f, x_arr: np.ndarray, w: np.ndarray) -> np.ndarray:
    x = mg.tensor(x_arr, requires_grad=True)
    (g,) = mg.autograd.grad((f(x) * mg.tensor(w)).sum(), x, create_graph=True)
    g = g.reshape(-1)
    if not g.requires_grad:  # a first derivative that is constant in x (cumsum, cummax)
        return np.zeros((g.shape[0], x_arr.size))
    return np.array(
        [mg.autograd.grad(g[i], x, retain_graph=True)[0].numpy().ravel() for i in range(g.shape[0])]
    )


SCANS = {
    "cumsum": lambda x: x.cumsum(1),
    "cumprod": lambda x: x.cumprod(1),
    "cummax": lambda x: x.cummax(1)[0],
    "cummin": lambda x: x.cummin(1)[0],
    "logcumsumexp": lambda x: x.logcumsumexp(1),
    "logcumsumexp dim 0": lambda x: x.logcumsumexp(0),
}


@pytest.mark.parametrize("name", list(SCANS))
@pytest.mark.parametrize("signed_weights", [False, True])
def test_scan_second_derivative_matches_central_differences(name, signed_weights):
    rng = np.random.default_rng(3)
    x = rng.uniform(0.5, 1.5, (2, 4)) * rng.choice([-1.0, 1.0], (2, 4))
    w = rng.standard_normal((2, 4)) if signed_weights else np.ones((2, 4))
    f = SCANS[name]
    np.testing.assert_allclose(
        _hessian_by_double_backward(f, x, w), _numeric_hessian(f, x, w), rtol=1e-5, atol=1e-7
    )


def test_logcumsumexp_hessian_is_the_full_closed_form_matrix():
    """f(x) = sum_i y_i, y_i = log sum_{j<=i} e^(x_j): H_jk = delta_jk g_j - sum_{i>=max(j,k)}
    e^(x_j + x_k - 2 y_i), g_j = sum_{i>=j} e^(x_j - y_i)."""
    x = np.array([0.5, -1.2, 2.0])
    y = np.logaddexp.accumulate(x)
    n = len(x)
    g = np.array([sum(np.exp(x[j] - y[i]) for i in range(j, n)) for j in range(n)])
    expected = np.diag(g) - np.array(
        [
            [sum(np.exp(x[j] + x[k] - 2 * y[i]) for i in range(max(j, k), n)) for k in range(n)]
            for j in range(n)
        ]
    )
    got = hessian(lambda t: t.logcumsumexp(0).sum(), mg.tensor(x, dtype=mg.float64))
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    "x",
    [[[0.7, 0.0, 1.3, -0.4], [0.0, 0.0, 2.0, 1.0]], [[0.0, 1.1, -0.6, 0.9], [1.2, 0.5, 0.0, 2.0]]],
    ids=["zero inside and two zeros", "zero first and last"],
)
def test_cumprod_derivatives_with_zeros_match_central_differences(x):
    """With a zero in a slice the first derivative is the direct sum over the later products;
    its own derivative (the Hessian) must be right there too, not a constant."""
    x = np.array(x)
    w = np.random.default_rng(4).standard_normal(x.shape)
    f = SCANS["cumprod"]
    xt = mg.tensor(x, requires_grad=True)
    (g,) = mg.autograd.grad((f(xt) * mg.tensor(w)).sum(), xt)
    h = 1e-6
    numeric = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = h
        numeric[k] = ((np.cumprod(x + e, 1) - np.cumprod(x - e, 1)) * w).sum() / (2 * h)
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(
        _hessian_by_double_backward(f, x, w), _numeric_hessian(f, x, w), rtol=1e-5, atol=1e-7
    )
