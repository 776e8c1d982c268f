"""MixtureSameFamily against NumPy: the log-density as log sum_k pi_k N(x; mu_k, sigma_k), the
laws of total expectation and variance, draws whose frequencies follow the weights, gradients
to the weights and the components' parameters by central differences, and the shape checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.distributions import (
    Categorical,
    Independent,
    MixtureSameFamily,
    MultivariateNormal,
    Normal,
)

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((4, 3))  # a batch of 4 mixtures of 3 components
LOC = RNG.standard_normal((4, 3)) * 2
SCALE = np.exp(RNG.standard_normal((4, 3)) * 0.3)


def _mixture(logits=LOGITS, loc=LOC, scale=SCALE) -> MixtureSameFamily:
    return MixtureSameFamily(
        Categorical(logits=mg.tensor(logits)), Normal(mg.tensor(loc), mg.tensor(scale))
    )


def _numpy_log_prob(x: np.ndarray, logits=LOGITS, loc=LOC, scale=SCALE) -> np.ndarray:
    pi = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    dens = np.exp(-0.5 * ((x[..., None] - loc) / scale) ** 2) / (scale * math.sqrt(2 * math.pi))
    return np.log((pi * dens).sum(-1))


def test_log_prob_is_the_log_of_the_weighted_sum_of_densities() -> None:
    x = RNG.standard_normal((5, 4)) * 2  # a sample dimension in front of the batch
    got = _mixture().log_prob(mg.tensor(x))
    assert got.shape == (5, 4)
    np.testing.assert_allclose(got.numpy(), _numpy_log_prob(x), rtol=1e-10)


def test_log_prob_far_in_the_tail_stays_finite() -> None:
    # each density underflows to 0 in float64; the logsumexp form does not
    got = _mixture().log_prob(mg.tensor(np.full(4, 80.0)))
    assert np.isfinite(got.numpy()).all() and (got.numpy() < -100).all()


def test_mean_and_variance_follow_the_laws_of_total_expectation_and_variance() -> None:
    d = _mixture()
    pi = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    mean = (pi * LOC).sum(-1)
    var = (pi * (SCALE**2 + LOC**2)).sum(-1) - mean**2
    np.testing.assert_allclose(d.mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), var, rtol=1e-10)
    np.testing.assert_allclose(d.stddev.numpy(), np.sqrt(var), rtol=1e-10)


def test_cdf_is_the_weighted_sum_of_the_components_cdfs() -> None:
    x = np.array([-1.0, 0.0, 0.5, 2.0])
    pi = np.exp(LOGITS) / np.exp(LOGITS).sum(-1, keepdims=True)
    erf = np.vectorize(math.erf)
    cdf = (pi * 0.5 * (1 + erf((x[:, None] - LOC) / (SCALE * math.sqrt(2))))).sum(-1)
    np.testing.assert_allclose(_mixture().cdf(mg.tensor(x)).numpy(), cdf, rtol=1e-10)


def test_draws_pick_components_with_the_mixture_weights() -> None:
    # components far apart (0, 100, 200) with tiny spread: each draw shows its component
    logits = np.log(np.array([[0.2, 0.5, 0.3]]))
    d = _mixture(logits, np.array([[0.0, 100.0, 200.0]]), np.full((1, 3), 1e-3))
    mg.manual_seed(0)
    x = d.sample((20000,))
    assert x.shape == (20000, 1) and d.sample().shape == (1,)
    freq = np.bincount(np.rint(x.numpy()[:, 0] / 100).astype(int), minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.015)  # ~4 standard errors


def test_draws_of_vector_components_keep_whole_events() -> None:
    # each event is one component's 2-vector (both coordinates from the same component)
    loc = mg.tensor(
        [[[0.0, 0.0], [10.0, 20.0]]], dtype=mg.float64
    )  # batch 1, 2 components, event 2
    comp = Independent(Normal(loc, mg.full((1, 2, 2), 1e-3, dtype=mg.float64)), 1)
    d = MixtureSameFamily(Categorical(logits=mg.zeros(1, 2, dtype=mg.float64)), comp)
    assert (d.batch_shape, d.event_shape) == ((1,), (2,))
    mg.manual_seed(0)
    x = d.sample((500,)).numpy()[:, 0]
    assert x.shape == (500, 2)
    assert np.allclose(x[:, 1], 2 * x[:, 0], atol=0.01)  # (0, 0) or (10, 20), never mixed
    assert 0.4 < (x[:, 0] > 5).mean() < 0.6
    lp = d.log_prob(mg.tensor([[10.0, 20.0]]))
    assert lp.shape == (1,)
    # one component's density at its own mean: 2-d Normal of scale 1e-3, halved by the weight
    expected = math.log(0.5) - 2 * math.log(1e-3 * math.sqrt(2 * math.pi))
    np.testing.assert_allclose(lp.numpy(), expected, rtol=1e-9)


def test_mixture_of_multivariate_normals_matches_numpy() -> None:
    loc = RNG.standard_normal((3, 2))
    cov = np.stack([np.eye(2) * s for s in (0.5, 1.0, 2.0)])
    d = MixtureSameFamily(
        Categorical(logits=mg.zeros(3, dtype=mg.float64)),
        MultivariateNormal(mg.tensor(loc), mg.tensor(cov)),
    )
    x = RNG.standard_normal(2)
    dens = [
        np.exp(-0.5 * (x - m) @ np.linalg.solve(c, x - m))
        / (2 * math.pi * np.sqrt(np.linalg.det(c)))
        for m, c in zip(loc, cov)
    ]
    got = d.log_prob(mg.tensor(x)).item()
    np.testing.assert_allclose(got, math.log(np.mean(dens)), rtol=1e-10)


def test_log_prob_gradients_match_central_differences() -> None:
    x = RNG.standard_normal(4)
    logits, loc, scale = (mg.tensor(a, requires_grad=True) for a in (LOGITS, LOC, SCALE))
    MixtureSameFamily(Categorical(logits=logits), Normal(loc, scale)).log_prob(
        mg.tensor(x)
    ).sum().backward()
    for t, base in ((logits, LOGITS), (loc, LOC), (scale, SCALE)):
        numeric = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[idx] += 1e-6
            down[idx] -= 1e-6
            args = {"logits": LOGITS, "loc": LOC, "scale": SCALE}
            name = [k for k, v in args.items() if v is base][0]
            f_up = _numpy_log_prob(x, **{**args, name: up}).sum()
            f_down = _numpy_log_prob(x, **{**args, name: down}).sum()
            numeric[idx] = (f_up - f_down) / 2e-6
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_expand_broadcasts_the_batch() -> None:
    d = _mixture(LOGITS[:1], LOC[:1], SCALE[:1]).expand((3,))
    assert d.batch_shape == (3,)
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(
        d.log_prob(mg.tensor(x)).numpy(), _numpy_log_prob(x, LOGITS[:1], LOC[:1], SCALE[:1])
    )


def test_bad_arguments_are_named() -> None:
    with pytest.raises(ValueError, match="Categorical"):
        MixtureSameFamily(Normal(0.0, 1.0), Normal(mg.zeros(3), mg.ones(3)))
    with pytest.raises(ValueError, match="Component distribution"):
        MixtureSameFamily(Categorical(logits=mg.zeros(3)), "normal")
    with pytest.raises(ValueError, match="does not equal"):  # 3 weights, 4 components
        MixtureSameFamily(Categorical(logits=mg.zeros(3)), Normal(mg.zeros(4), mg.ones(4)))
    with pytest.raises(ValueError, match="not compatible"):  # batches 2 and 5
        MixtureSameFamily(Categorical(logits=mg.zeros(2, 3)), Normal(mg.zeros(5, 3), mg.ones(5, 3)))
    assert not _mixture().has_rsample
