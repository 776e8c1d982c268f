"""PyTorch parity for every pair in torch.distributions.kl's registry: the same pairs are
registered here, and each gives PyTorch's values (and shape) for random float64 parameters."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")
from torch.distributions import kl as torch_kl  # noqa: E402

rng = np.random.default_rng(5)
B = 3


def _u(lo, hi, shape=(B,)):
    return rng.uniform(lo, hi, shape)


PARAMS = {
    "Bernoulli": lambda: (_u(0.05, 0.95),),
    "Beta": lambda: (_u(0.5, 3), _u(0.5, 3)),
    "Binomial": lambda: (np.full(B, 7.0), _u(0.05, 0.95)),
    "Categorical": lambda: (rng.dirichlet(np.ones(4), B),),
    "Cauchy": lambda: (rng.normal(size=B), _u(0.5, 2)),
    "ContinuousBernoulli": lambda: (np.array([0.2, 0.4996, 0.8]),),
    "Dirichlet": lambda: (_u(0.5, 3, (B, 4)),),
    "Exponential": lambda: (_u(0.5, 2),),
    "Gamma": lambda: (_u(0.5, 3), _u(0.5, 2)),
    "Geometric": lambda: (_u(0.05, 0.95),),
    "Gumbel": lambda: (rng.normal(size=B), _u(0.5, 2)),
    "HalfNormal": lambda: (_u(0.5, 2),),
    "Laplace": lambda: (rng.normal(size=B), _u(0.5, 2)),
    "Normal": lambda: (rng.normal(size=B), _u(0.5, 2)),
    "OneHotCategorical": lambda: (rng.dirichlet(np.ones(4), B),),
    "Pareto": lambda: (_u(0.5, 2), np.array([0.8, 1.5, 3.0])),
    "Poisson": lambda: (_u(0.5, 4),),
    "Uniform": lambda: (np.array([-1.0, 0.05, 0.5]), np.array([2.0, 0.6, 3.0])),
}


def _make(lib, name, params):
    d = lib.distributions
    ts = [lib.tensor(p) for p in params]
    if name == "Binomial":
        return d.Binomial(ts[0], ts[1])
    if name == "ContinuousBernoulli":
        return d.ContinuousBernoulli(probs=ts[0])
    if name in ("Categorical", "OneHotCategorical"):
        return getattr(d, name)(probs=ts[0])
    if name == "Independent":
        return d.Independent(d.Normal(ts[0], ts[1]), 1)
    if name == "TransformedDistribution":
        return d.TransformedDistribution(d.Normal(ts[0], ts[1]), [d.ExpTransform()])
    if name == "MultivariateNormal":
        return d.MultivariateNormal(ts[0], scale_tril=ts[1])
    if name == "LowRankMultivariateNormal":
        return d.LowRankMultivariateNormal(*ts)
    return getattr(d, name)(*ts)


def _params(name):
    if name in ("Independent", "TransformedDistribution"):
        return (rng.normal(size=(B, 2)), _u(0.5, 2, (B, 2)))
    if name == "MultivariateNormal":
        a = np.tril(rng.normal(size=(B, 3, 3)), -1) + np.eye(3) * _u(0.5, 2, (B, 1, 1))
        return (rng.normal(size=(B, 3)), a)
    if name == "LowRankMultivariateNormal":
        return (rng.normal(size=(B, 3)), rng.normal(size=(B, 3, 2)), _u(0.5, 2, (B, 3)))
    return PARAMS[name]()


PAIRS = sorted(
    (p.__name__, q.__name__)
    for p, q in torch_kl._KL_REGISTRY
    if p.__name__ != "ExponentialFamily"  # the Bregman form: tested on a family of its own
)


def test_the_same_pairs_are_registered():
    ours = {
        (p.__name__, q.__name__)
        for p, q in mg.distributions.kl._KL_REGISTRY
        if p.__module__.startswith("minigenesis") and q.__module__.startswith("minigenesis")
    }  # (other tests register pairs of their own classes)
    assert ours == {(p.__name__, q.__name__) for p, q in torch_kl._KL_REGISTRY}


@pytest.mark.parametrize(("p_name", "q_name"), PAIRS, ids=["-".join(p) for p in PAIRS])
def test_kl_matches_pytorch(p_name, q_name):
    pp, qp = _params(p_name), _params(q_name)
    if p_name == "Binomial" and q_name == "Binomial":
        qp = (np.array([7.0, 7.0, 5.0]), qp[1])  # equal counts, and one infinite
    expected = torch_kl.kl_divergence(_make(torch, p_name, pp), _make(torch, q_name, qp))
    got = mg.distributions.kl_divergence(_make(mg, p_name, pp), _make(mg, q_name, qp))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(
        got.detach().numpy(), expected.detach().numpy(), rtol=1e-9, atol=1e-12
    )
