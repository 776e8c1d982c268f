"""PyTorch parity for the distributions built on transforms, the heavy-tailed and counting
families, and the transforms: log_prob, cdf, icdf, entropy, mean, mode, variance and KL for
random parameters (an additional oracle beside the closed forms of the op database)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

D, TD = mg.distributions, torch.distributions
rng = np.random.default_rng(2026)


def _pos(*shape, lo=0.5, hi=2.5):
    return rng.uniform(lo, hi, shape)


CASES = {
    "LogNormal": ((rng.normal(size=4), _pos(4)), _pos(4)),
    "HalfNormal": ((_pos(4),), _pos(4)),
    "Cauchy": ((rng.normal(size=4), _pos(4)), rng.normal(size=4)),
    "HalfCauchy": ((_pos(4),), _pos(4)),
    "Gumbel": ((rng.normal(size=4), _pos(4)), rng.normal(size=4)),
    "Chi2": ((_pos(4, lo=0.5, hi=6),), _pos(4)),
    "StudentT": ((_pos(4, lo=0.5, hi=6), rng.normal(size=4), _pos(4)), rng.normal(size=4) * 3),
    "Poisson": ((_pos(4, lo=0.1, hi=8),), rng.integers(0, 9, 4).astype(np.float64)),
    "Geometric": ((rng.uniform(0.05, 0.95, 4),), rng.integers(0, 9, 4).astype(np.float64)),
    "Weibull": ((_pos(4), _pos(4, lo=0.5, hi=4)), _pos(4)),
    "Pareto": ((_pos(4, lo=0.2, hi=1), _pos(4, lo=0.5, hi=4)), _pos(4, lo=1.0, hi=3)),
    "InverseGamma": ((_pos(4, lo=0.5, hi=4), _pos(4)), _pos(4)),
    "Dirichlet": ((_pos(2, 4, lo=0.3, hi=3),), rng.dirichlet(np.ones(4), 2)),
    "FisherSnedecor": ((_pos(4, lo=0.5, hi=8), _pos(4, lo=1, hi=9)), _pos(4)),
    "Binomial": ((np.full(4, 6.0), rng.uniform(0.05, 0.95, 4)), rng.integers(0, 7, 4) * 1.0),
    "NegativeBinomial": (
        (_pos(4, lo=0.3, hi=5), rng.uniform(0.05, 0.95, 4)),
        rng.integers(0, 9, 4) * 1.0,
    ),
}
ATTRS = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")


def _value(d, attr, x):
    if attr in ("log_prob", "cdf"):
        return d.__getattribute__(attr)(x)
    if attr == "icdf":
        return d.icdf(x)
    if attr == "entropy":
        return d.entropy()
    return getattr(d, attr)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("attr", ATTRS)
def test_values_match_pytorch(name, attr):
    params, x = CASES[name]
    ours = getattr(D, name)(*(mg.tensor(p) for p in params))
    theirs = getattr(TD, name)(*(torch.tensor(p) for p in params))
    arg = rng.uniform(0.05, 0.95, tuple(theirs.batch_shape)) if attr == "icdf" else x
    try:
        expected = _value(theirs, attr, torch.tensor(arg)).detach().numpy()
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            _value(ours, attr, mg.tensor(arg))
        return
    got = _value(ours, attr, mg.tensor(arg)).detach().numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    "name", ["LogNormal", "HalfNormal", "Gumbel", "Chi2", "Poisson", "Geometric"]
)
def test_kl_matches_pytorch(name):
    p, _ = CASES[name]
    q = tuple(v[::-1].copy() for v in p)
    ours = D.kl_divergence(*(getattr(D, name)(*map(mg.tensor, a)) for a in (p, q)))
    theirs = TD.kl_divergence(*(getattr(TD, name)(*map(torch.tensor, a)) for a in (p, q)))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


TRANSFORMS = [
    ("ExpTransform", ()),
    ("SigmoidTransform", ()),
    ("TanhTransform", ()),
    ("SoftplusTransform", ()),
    ("AffineTransform", (0.3, -1.7)),
    ("StickBreakingTransform", ()),
    ("SoftmaxTransform", ()),
    ("AbsTransform", ()),
]


@pytest.mark.parametrize(("name", "args"), TRANSFORMS, ids=[n for n, _ in TRANSFORMS])
def test_transforms_match_pytorch(name, args):
    x = rng.normal(size=(3, 4))
    ours, theirs = getattr(D, name)(*args), getattr(TD.transforms, name)(*args)
    y, ty = ours(mg.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.inv(y).numpy(), theirs.inv(ty).numpy(), rtol=1e-9)
    assert ours.bijective == theirs.bijective and ours.event_dim == theirs.event_dim
    if ours.bijective:
        np.testing.assert_allclose(
            ours.log_abs_det_jacobian(mg.tensor(x), y).numpy(),
            theirs.log_abs_det_jacobian(torch.tensor(x), ty).numpy(),
            rtol=1e-10,
        )


def test_transformed_distribution_shapes_match_pytorch():
    base = np.zeros((2, 3)), np.ones((2, 3))
    ours = D.TransformedDistribution(D.Normal(*map(mg.tensor, base)), [D.StickBreakingTransform()])
    theirs = TD.TransformedDistribution(
        TD.Normal(*map(torch.tensor, base)), [TD.StickBreakingTransform()]
    )
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    y = theirs.sample((5,))
    np.testing.assert_allclose(
        ours.log_prob(mg.tensor(y.numpy())).numpy(), theirs.log_prob(y).numpy(), rtol=1e-10
    )


def test_relaxed_bernoulli_log_prob_matches_pytorch():
    t, logits, y = _pos(4, lo=0.2, hi=2), rng.normal(size=4), rng.uniform(0.05, 0.95, 4)
    ours = D.RelaxedBernoulli(mg.tensor(t), logits=mg.tensor(logits)).log_prob(mg.tensor(y))
    theirs = TD.RelaxedBernoulli(torch.tensor(t), logits=torch.tensor(logits)).log_prob(
        torch.tensor(y)
    )
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)


def test_multinomial_matches_pytorch():
    p = rng.dirichlet(np.ones(4), 3)
    x = rng.multinomial(5, [0.25] * 4, 3).astype(np.float64)
    ours, theirs = D.Multinomial(5, mg.tensor(p)), TD.Multinomial(5, torch.tensor(p))
    np.testing.assert_allclose(
        ours.log_prob(mg.tensor(x)).numpy(), theirs.log_prob(torch.tensor(x)).numpy(), rtol=1e-10
    )
    np.testing.assert_allclose(ours.variance.numpy(), theirs.variance.numpy(), rtol=1e-12)
