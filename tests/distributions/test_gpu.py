"""Distributions and autograd.functional on CuPy: the same numbers as on the CPU (skipped
without CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import distributions as D
from minigenesis.autograd import functional as AF

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

RNG = np.random.default_rng(0)
LOC, SCALE = RNG.standard_normal((2, 3)), RNG.uniform(0.5, 2, (2, 3))
CONC, PROBS = RNG.uniform(0.3, 4, (2, 3)), RNG.uniform(0.1, 0.9, (2, 3))
COV = np.array([[2, 0.5, 0.1], [0.5, 1, -0.3], [0.1, -0.3, 1.5]])
VALUES = [
    LOC + 0.3,
    LOC,
    SCALE,
    PROBS,
    SCALE,
    (LOC > 0) * 1.0,
    np.array([0, 2]),
    LOC * 0.5,
]


def _run(dev: str) -> tuple[list, list]:
    params = []

    def t(a):
        params.append(mg.tensor(a, device=dev, requires_grad=True))
        return params[-1]

    dists = [
        D.Normal(t(LOC), t(SCALE)),
        D.Laplace(t(LOC), t(SCALE)),
        D.Gamma(t(CONC), t(SCALE)),
        D.Beta(t(CONC), t(SCALE)),
        D.Exponential(t(SCALE)),
        D.Bernoulli(logits=t(LOC)),
        D.Categorical(logits=t(LOC)),
        D.MultivariateNormal(t(LOC), covariance_matrix=t(COV)),
    ]
    results = []
    for d, v in zip(dists, VALUES):
        lp, h = d.log_prob(mg.tensor(v, device=dev)), d.entropy()
        (lp.sum() + h.sum()).backward()
        results += [lp, h, D.kl_divergence(d, d)]
        assert d.sample((10,)).device.type == dev
        assert not d.has_rsample or d.rsample((2,)).requires_grad
    x = mg.tensor(LOC, device=dev)
    results += [
        AF.jacobian(lambda a: (a.sin() * a).sum(0), x),
        AF.hessian(lambda a: (a**3).sum(), x),
        AF.jvp(lambda a: a.exp(), x, x)[1],
    ]
    return [r.detach().cpu().numpy() for r in results], [p.grad.cpu().numpy() for p in params]


def test_log_prob_entropy_kl_gradients_and_jacobians_match_cpu():
    cpu_values, cpu_grads = _run("cpu")
    gpu_values, gpu_grads = _run("cuda")
    for a, b in zip(cpu_values + cpu_grads, gpu_values + gpu_grads):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_gamma_draws_on_the_gpu_have_the_right_mean():
    mg.manual_seed(0)
    n = 20000
    d = D.Gamma(mg.tensor(CONC, device="cuda"), mg.tensor(SCALE, device="cuda"))
    draws = d.sample((n,)).cpu().numpy()
    mean, var = CONC / SCALE, CONC / SCALE**2
    assert np.all(np.abs(draws.mean(0) - mean) <= 5 * np.sqrt(var / n))


def test_gamma_family_and_its_derivatives_match_cpu():
    def values(dev: str) -> list:
        x = mg.tensor([0.3, 1.0, 2.0, 4.5, 17.0], device=dev, dtype=mg.float64, requires_grad=True)
        (g,) = mg.autograd.grad(mg.lgamma(x).sum(), x, create_graph=True)  # digamma
        (h,) = mg.autograd.grad(g.sum(), x)  # polygamma(1, .)
        out = [mg.lgamma(x), g, h, mg.polygamma(0, x), mg.polygamma(3, x)]
        return [t.detach().cpu().numpy() for t in out]

    for a, b in zip(values("cpu"), values("cuda")):
        np.testing.assert_allclose(a, b, rtol=1e-10)
