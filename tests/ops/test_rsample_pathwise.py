"""rsample's reparameterised gradients, for every distribution that has rsample.

With a fixed seed, the draws x = g(theta, noise) are a function of the parameters, and the
gradient of the Monte Carlo estimate  mean_i f(x_i)  is the pathwise one,
mean_i f'(x_i) dx_i/dtheta, with dx/dtheta in closed form from the draw itself (a Normal's
d/dscale is (x - loc) / scale). Backward must give exactly that. Averaged over many draws it
estimates d/dtheta E[f(x)], whose closed form (d/dscale E[x^2] = 2 scale for a Normal) it must
match within five standard errors, and the draws' mean and variance match the distribution's.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import distributions as D

N = 20000


def _leaf(values) -> mg.Tensor:
    return mg.tensor(np.asarray(values, np.float64), requires_grad=True)


def _draw(dist, n: int = N) -> mg.Tensor:
    mg.manual_seed(1234)
    return dist.rsample((n,))


def _np(t: mg.Tensor) -> np.ndarray:
    return t.detach().numpy()


# name -> (params, build, per-draw dx/dtheta for each parameter from (x, params), d/dtheta E[x^2])
def _loc_scale(cls, second_moment_scale: float):
    def build(p):
        return cls(p["loc"], p["scale"])

    def dx(x, p):
        return {"loc": np.ones_like(x), "scale": (x - p["loc"]) / p["scale"]}

    def expected(p):  # E[x^2] = loc^2 + c scale^2 (c = 1 Normal, 2 Laplace)
        return {"loc": 2 * p["loc"], "scale": 2 * second_moment_scale * p["scale"]}

    return {"loc": [0.3, -1.2], "scale": [0.7, 1.5]}, build, dx, expected


CASES = {
    "Normal": _loc_scale(D.Normal, 1.0),
    "Laplace": _loc_scale(D.Laplace, 2.0),
    "Independent": (
        {"loc": [0.3, -1.2], "scale": [0.7, 1.5]},
        lambda p: D.Independent(D.Normal(p["loc"], p["scale"]), 1),
        lambda x, p: {"loc": np.ones_like(x), "scale": (x - p["loc"]) / p["scale"]},
        lambda p: {"loc": 2 * p["loc"], "scale": 2 * p["scale"]},
    ),
    "Exponential": (
        {"rate": [0.8, 2.5]},
        lambda p: D.Exponential(p["rate"]),
        lambda x, p: {"rate": -x / p["rate"]},  # x = -log(1 - u) / rate
        lambda p: {"rate": -4 / p["rate"] ** 3},  # E[x^2] = 2 / rate^2
    ),
    "Uniform": (
        {"low": [-1.0, 0.5], "high": [2.0, 0.9]},
        lambda p: D.Uniform(p["low"], p["high"]),
        lambda x, p: {
            "low": (p["high"] - x) / (p["high"] - p["low"]),
            "high": (x - p["low"]) / (p["high"] - p["low"]),
        },
        # E[x^2] = (h^2 + h l + l^2) / 3
        lambda p: {"low": (p["high"] + 2 * p["low"]) / 3, "high": (2 * p["high"] + p["low"]) / 3},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rsample_gradient_is_the_pathwise_derivative(name: str) -> None:
    values, build, dx, expected = CASES[name]
    params = {k: _leaf(v) for k, v in values.items()}
    x = _draw(build(params))
    (x**2).mean(0).sum().backward()
    host = {k: np.asarray(v, np.float64) for k, v in values.items()}
    xs = _np(x)
    for k, per_draw in dx(xs, host).items():
        terms = 2 * xs * per_draw  # f'(x) dx/dtheta per draw, f = x^2
        np.testing.assert_allclose(_np(params[k].grad), terms.mean(0), rtol=1e-10, atol=1e-12)
        # the estimate of d/dtheta E[x^2] within five standard errors of its closed form
        se = terms.std(0) / np.sqrt(N)
        np.testing.assert_array_less(np.abs(terms.mean(0) - expected(host)[k]), 5 * se + 1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_rsample_draws_have_the_distributions_mean_and_variance(name: str) -> None:
    values, build, _, _ = CASES[name]
    dist = build({k: _leaf(v) for k, v in values.items()})
    xs = _np(_draw(dist))
    mean, var = _np(dist.mean), _np(dist.variance)
    np.testing.assert_array_less(np.abs(xs.mean(0) - mean), 5 * np.sqrt(var / N))
    # the sample variance's standard error: sqrt((m4 - var^2) / N), m4 from the draws
    m4 = ((xs - xs.mean(0)) ** 4).mean(0)
    np.testing.assert_array_less(np.abs(xs.var(0) - var), 5 * np.sqrt((m4 - var**2) / N))


def test_multivariate_normal_rsample_gradient_is_the_pathwise_derivative() -> None:
    # x = loc + L eps: dx_i / dL_ij = eps_j, eps = L^-1 (x - loc); f = |x|^2, so the pathwise
    # gradient is mean(2 x eps^T) (the whole matrix, as PyTorch's: L is used as given) and
    # d/dL E[|x|^2] = d/dL (|loc|^2 + |L|_F^2) = 2 L
    low = np.array([[1.2, 0.0, 0.0], [0.4, 0.8, 0.0], [-0.3, 0.5, 1.1]])
    loc, scale_tril = _leaf([0.5, -1.0, 2.0]), _leaf(low)
    x = _draw(D.MultivariateNormal(loc, scale_tril=scale_tril))
    (x**2).sum(-1).mean().backward()
    xs = _np(x)
    eps = np.linalg.solve(low, (xs - _np(loc)).T).T
    terms = 2 * xs[:, :, None] * eps[:, None, :]  # per draw, (i, j)
    np.testing.assert_allclose(_np(scale_tril.grad), terms.mean(0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(_np(loc.grad), (2 * xs).mean(0), rtol=1e-10, atol=1e-12)
    se = terms.std(0) / np.sqrt(N)
    np.testing.assert_array_less(np.abs(terms.mean(0) - 2 * low), 5 * se + 1e-12)
    cov = low @ low.T
    np.testing.assert_array_less(np.abs(xs.mean(0) - _np(loc)), 5 * np.sqrt(np.diag(cov) / N))
    np.testing.assert_allclose(np.cov(xs.T), cov, atol=5 * 2 * cov.max() / np.sqrt(N))
