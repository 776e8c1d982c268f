"""PyTorch parity for ContinuousBernoulli, Kumaraswamy, VonMises, LowRankMultivariateNormal,
RelaxedOneHotCategorical, ExpRelaxedCategorical and LogisticNormal: values for random float64
parameters, shapes after expand and for sample shapes, and the errors for bad arguments (an
additional oracle beside the NumPy closed forms of test_new_families.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

D, TD = mg.distributions, torch.distributions
rng = np.random.default_rng(2027)


def _exp_relaxed(lib):
    return lib.distributions.relaxed_categorical.ExpRelaxedCategorical


CASES = {
    "ContinuousBernoulli-probs": (
        lambda lib, p: lib.distributions.ContinuousBernoulli(probs=p[0]),
        [np.array([0.02, 0.3, 0.4995, 0.5, 0.5008, 0.97])],
        rng.uniform(0.01, 0.99, 6),
    ),
    "ContinuousBernoulli-logits": (
        lambda lib, p: lib.distributions.ContinuousBernoulli(logits=p[0]),
        [np.array([-4.0, -0.001, 0.0, 0.003, 1.0, 6.0])],
        rng.uniform(0.01, 0.99, 6),
    ),
    "Kumaraswamy": (
        lambda lib, p: lib.distributions.Kumaraswamy(*p),
        [rng.uniform(0.5, 4, 5), rng.uniform(0.5, 4, 5)],
        rng.uniform(0.05, 0.95, 5),
    ),
    "VonMises": (
        lambda lib, p: lib.distributions.VonMises(*p),
        [rng.normal(size=5), np.array([1e-3, 0.5, 3.7, 3.8, 40.0])],
        rng.normal(size=5) * 3,
    ),
    "LowRankMultivariateNormal": (
        lambda lib, p: lib.distributions.LowRankMultivariateNormal(*p),
        [rng.normal(size=(2, 1, 4)), rng.normal(size=(3, 4, 2)), rng.uniform(0.3, 2, (4,))],
        rng.normal(size=(5, 2, 3, 4)),
    ),
    "RelaxedOneHotCategorical": (
        lambda lib, p: lib.distributions.RelaxedOneHotCategorical(p[0], probs=p[1]),
        [np.array(0.3), rng.dirichlet(np.ones(3), 2)],
        rng.dirichlet(np.ones(3), (4, 2)),
    ),
    "ExpRelaxedCategorical": (
        lambda lib, p: _exp_relaxed(lib)(p[0], logits=p[1]),
        [np.array(0.6), rng.normal(size=(2, 3))],
        np.log(rng.dirichlet(np.ones(3), (4, 2))),
    ),
    "LogisticNormal": (
        lambda lib, p: lib.distributions.LogisticNormal(*p),
        [rng.normal(size=(2, 3)), rng.uniform(0.5, 2, (2, 3))],
        rng.dirichlet(np.ones(4), (5, 2)),
    ),
}
ATTRS = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")
ATTRS += ("covariance_matrix", "precision_matrix", "scale_tril")


def _build(name, lib):
    make, params, _ = CASES[name]
    return make(lib, [lib.tensor(p) for p in params])


def _attr(d, attr, x):
    if attr in ("log_prob", "cdf", "icdf"):
        return getattr(d, attr)(x)
    if attr == "entropy":
        return d.entropy()
    return getattr(d, attr)


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("attr", ATTRS)
def test_values_match_pytorch(name, attr):
    x = CASES[name][2]
    if name.startswith("ContinuousBernoulli") and attr == "icdf":
        x = rng.uniform(0, 1, 6)
    td, md = _build(name, torch), _build(name, mg)
    try:
        expected = _attr(td, attr, torch.tensor(x))
    except (NotImplementedError, AttributeError):
        return  # PyTorch does not define it: nothing to match
    if name == "Kumaraswamy" and attr == "mode":
        return  # PyTorch's mode is NaN everywhere (see Kumaraswamy.mode)
    got = _attr(md, attr, mg.tensor(x))
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(
        got.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_shapes_after_expand_and_for_sample_shapes_match_pytorch(name):
    td, md = _build(name, torch), _build(name, mg)
    assert tuple(md.batch_shape) == tuple(td.batch_shape)
    assert tuple(md.event_shape) == tuple(td.event_shape)
    new = (3,) + tuple(td.batch_shape)
    te, me = td.expand(new), md.expand(new)
    assert type(me).__name__ == type(te).__name__
    assert tuple(me.batch_shape) == tuple(te.batch_shape)
    ts, ms = te.sample((2, 1)), me.sample((2, 1))
    assert tuple(ms.shape) == tuple(ts.shape) and ms.dtype == mg.float64
    assert tuple(me.log_prob(ms).shape) == tuple(te.log_prob(ts).shape)
    assert md.has_rsample == td.has_rsample
    if td.has_rsample:
        assert tuple(md.rsample((4,)).shape) == tuple(td.rsample((4,)).shape)


BAD = [
    (
        "Kumaraswamy",
        lambda lib: lib.distributions.Kumaraswamy(lib.tensor([0.0]), lib.tensor([1.0])),
    ),
    ("VonMises", lambda lib: lib.distributions.VonMises(lib.tensor([0.0]), lib.tensor([-1.0]))),
    (
        "ContinuousBernoulli",
        lambda lib: lib.distributions.ContinuousBernoulli(lib.tensor([1.2]), validate_args=True),
    ),
    ("ContinuousBernoulli-both", lambda lib: lib.distributions.ContinuousBernoulli(0.5, 0.5)),
    (
        "RelaxedOneHotCategorical",
        lambda lib: lib.distributions.RelaxedOneHotCategorical(
            lib.tensor(1.0), probs=lib.tensor([-0.2, 0.5])
        ),
    ),
    (
        "LogisticNormal",
        lambda lib: lib.distributions.LogisticNormal(lib.tensor([0.0]), lib.tensor([0.0])),
    ),
    (
        "LowRank-loc",
        lambda lib: lib.distributions.LowRankMultivariateNormal(
            lib.tensor(0.0), lib.ones(2, 1), lib.ones(2)
        ),
    ),
    (
        "LowRank-factor",
        lambda lib: lib.distributions.LowRankMultivariateNormal(
            lib.zeros(2), lib.ones(3, 1), lib.ones(2)
        ),
    ),
    (
        "LowRank-diag",
        lambda lib: lib.distributions.LowRankMultivariateNormal(
            lib.zeros(2), lib.ones(2, 1), lib.ones(3)
        ),
    ),
    (
        "LowRank-batch",
        lambda lib: lib.distributions.LowRankMultivariateNormal(
            lib.zeros(3, 2), lib.ones(2, 2, 1), lib.ones(2)
        ),
    ),
    (
        "Kumaraswamy-support",
        lambda lib: lib.distributions.Kumaraswamy(lib.tensor(1.0), lib.tensor(1.0)).log_prob(
            lib.tensor(1.5)
        ),
    ),
]


@pytest.mark.parametrize(("label", "make"), BAD, ids=[b[0] for b in BAD])
def test_bad_arguments_raise_what_pytorch_raises(label, make):
    with pytest.raises(Exception) as expected:
        make(torch)
    with pytest.raises(type(expected.value)) as got:
        make(mg)
    first = str(expected.value).split(":")[0].split("(")[0].split("torch")[0]
    assert str(got.value).startswith(first)


@pytest.mark.parametrize("n", [1, 6])
def test_multinomial_entropy_matches_pytorch(n):
    probs = rng.dirichlet(np.ones(4), (2, 3))
    expected = TD.Multinomial(n, torch.tensor(probs)).entropy().numpy()
    got = D.Multinomial(n, mg.tensor(probs)).entropy().numpy()
    # PyTorch's log n! is a float32 lgamma (of an integer tensor): within 1e-7
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-7)


def test_generalized_pareto_matches_pytorch_in_float32():
    # (float32: PyTorch's log_prob compares concentration with a float32 zero, so float64
    # parameters raise there)
    loc = rng.normal(size=6).astype(np.float32)
    scale = rng.uniform(0.5, 2, 6).astype(np.float32)
    xi = np.array([-1.0, -0.3, 0.0, 1e-9, 0.4, 1.2], dtype=np.float32)
    x = (loc + scale * rng.uniform(0.05, 0.9, 6)).astype(np.float32)
    u = rng.uniform(0.05, 0.95, 6).astype(np.float32)
    td = TD.GeneralizedPareto(*map(torch.tensor, (loc, scale, xi)))
    md = D.GeneralizedPareto(*map(mg.tensor, (loc, scale, xi)))
    for name in ("log_prob", "cdf", "log_cdf", "log_survival_function"):
        expected = getattr(td, name)(torch.tensor(x)).numpy()
        np.testing.assert_allclose(
            getattr(md, name)(mg.tensor(x)).numpy(), expected, rtol=2e-6, atol=1e-7
        )
    np.testing.assert_allclose(
        md.icdf(mg.tensor(u)).numpy(), td.icdf(torch.tensor(u)).numpy(), rtol=1e-6
    )
    for name in ("mean", "variance", "mode", "stddev"):
        np.testing.assert_allclose(getattr(md, name).numpy(), getattr(td, name).numpy(), rtol=1e-6)
    np.testing.assert_allclose(md.entropy().numpy(), td.entropy().numpy(), rtol=1e-6)
    assert tuple(md.expand((3, 6)).rsample((2,)).shape) == tuple(
        td.expand((3, 6)).rsample((2,)).shape
    )
