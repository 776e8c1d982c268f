"""The KL pairs across families (and Cauchy, ContinuousBernoulli, the low-rank Gaussians, the
exponential-family Bregman form) against independent oracles: float64 quadrature of
p (log p - log q) on a fine grid, exact sums for discrete p, dense NumPy Gaussians, and
infinity (one value per element of p's batch) where q misses part of p's support."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

D = mg.distributions


def _t(a) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64))


def _quadrature_kl(p, q, lo: float, hi: float, n: int = 400001, log_grid: bool = False) -> float:
    """int p (log p - log q) dx on [lo, hi] by the trapezoid rule: in t with
    x = lo + (hi - lo)(1 - cos(pi t)) / 2 (points crowd both ends, where a density or a
    log-density may be singular), or log-spaced for heavy tails."""
    if log_grid:
        x = np.geomspace(lo, hi, n)
        lp, lq = p.log_prob(_t(x)).numpy(), q.log_prob(_t(x)).numpy()
        return float(np.trapezoid(np.exp(lp) * (lp - lq), x))
    t = np.linspace(0.0, 1.0, n)[1:-1]  # the ends have weight dx/dt = 0
    x = lo + (hi - lo) * (1 - np.cos(np.pi * t)) / 2
    dx = (hi - lo) * np.pi * np.sin(np.pi * t) / 2
    lp, lq = p.log_prob(_t(x)).numpy(), q.log_prob(_t(x)).numpy()
    return float(np.trapezoid(np.exp(lp) * (lp - lq) * dx, t))


N01 = (lambda: D.Normal(_t(0.3), _t(1.4)), (-12.0, 12.0))
FINITE = {
    "Beta-ContinuousBernoulli": (
        lambda: D.Beta(_t(2.5), _t(1.5)),
        lambda: D.ContinuousBernoulli(_t(0.3)),
        (0.0, 1.0),
    ),
    "Beta-Exponential": (lambda: D.Beta(_t(2.5), _t(1.5)), lambda: D.Exponential(_t(1.7)), (0, 1)),
    "Beta-Gamma": (lambda: D.Beta(_t(2.5), _t(1.5)), lambda: D.Gamma(_t(2.2), _t(0.8)), (0, 1)),
    "Beta-Normal": (lambda: D.Beta(_t(2.5), _t(1.5)), N01[0], (0, 1)),
    "Beta-Uniform": (
        lambda: D.Beta(_t(2.5), _t(1.5)),
        lambda: D.Uniform(_t(-0.5), _t(2.0)),
        (0, 1),
    ),
    "ContinuousBernoulli-Exponential": (
        lambda: D.ContinuousBernoulli(_t(0.8)),
        lambda: D.Exponential(_t(1.7)),
        (0, 1),
    ),
    "ContinuousBernoulli-Normal": (lambda: D.ContinuousBernoulli(_t(0.8)), N01[0], (0, 1)),
    "ContinuousBernoulli-Uniform": (
        lambda: D.ContinuousBernoulli(_t(0.2)),
        lambda: D.Uniform(_t(-1.0), _t(1.5)),
        (0, 1),
    ),
    "ContinuousBernoulli-ContinuousBernoulli": (
        lambda: D.ContinuousBernoulli(_t(0.2)),
        lambda: D.ContinuousBernoulli(_t(0.7)),
        (0, 1),
    ),
    "Exponential-Gamma": (
        lambda: D.Exponential(_t(1.3)),
        lambda: D.Gamma(_t(2.2), _t(0.8)),
        (0, 60),
    ),
    "Exponential-Gumbel": (
        lambda: D.Exponential(_t(1.3)),
        lambda: D.Gumbel(_t(0.4), _t(1.5)),
        (0, 60),
    ),
    "Exponential-Normal": (lambda: D.Exponential(_t(1.3)), N01[0], (0, 60)),
    "Gamma-Exponential": (
        lambda: D.Gamma(_t(2.2), _t(0.8)),
        lambda: D.Exponential(_t(1.3)),
        (0, 80),
    ),
    "Gamma-Gumbel": (
        lambda: D.Gamma(_t(2.2), _t(0.8)),
        lambda: D.Gumbel(_t(0.4), _t(1.5)),
        (0, 80),
    ),
    "Gamma-Normal": (lambda: D.Gamma(_t(2.2), _t(0.8)), N01[0], (0, 80)),
    "Gumbel-Normal": (lambda: D.Gumbel(_t(0.4), _t(1.5)), N01[0], (-10, 70)),
    "Laplace-Normal": (lambda: D.Laplace(_t(0.4), _t(1.5)), N01[0], (-60, 60)),
    "Normal-Gumbel": (N01[0], lambda: D.Gumbel(_t(0.4), _t(1.5)), N01[1]),
    "Normal-Laplace": (N01[0], lambda: D.Laplace(_t(-0.4), _t(0.9)), N01[1]),
    "Uniform-Beta": (
        lambda: D.Uniform(_t(0.1), _t(0.7)),
        lambda: D.Beta(_t(2.5), _t(1.5)),
        (0.1, 0.7),
    ),
    "Uniform-ContinuousBernoulli": (
        lambda: D.Uniform(_t(0.1), _t(0.7)),
        lambda: D.ContinuousBernoulli(_t(0.3)),
        (0.1, 0.7),
    ),
    "Uniform-Exponential": (
        lambda: D.Uniform(_t(0.1), _t(0.7)),
        lambda: D.Exponential(_t(1.3)),
        (0.1, 0.7),
    ),
    "Uniform-Gamma": (
        lambda: D.Uniform(_t(0.1), _t(0.7)),
        lambda: D.Gamma(_t(2.2), _t(0.8)),
        (0.1, 0.7),
    ),
    "Uniform-Gumbel": (
        lambda: D.Uniform(_t(-1.0), _t(2.0)),
        lambda: D.Gumbel(_t(0.4), _t(1.5)),
        (-1, 2),
    ),
    "Uniform-Normal": (lambda: D.Uniform(_t(-1.0), _t(2.0)), N01[0], (-1, 2)),
    "Uniform-Pareto": (
        lambda: D.Uniform(_t(1.5), _t(3.0)),
        lambda: D.Pareto(_t(1.2), _t(2.5)),
        (1.5, 3),
    ),
    "Cauchy-Cauchy": (
        lambda: D.Cauchy(_t(0.3), _t(0.8)),
        lambda: D.Cauchy(_t(-0.5), _t(1.6)),
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(FINITE))
def test_kl_matches_quadrature(name):
    make_p, make_q, interval = FINITE[name]
    p, q = make_p(), make_q()
    kl = float(D.kl_divergence(p, q))
    if name == "Cauchy-Cauchy":  # heavy tails: x = tan(theta), dx = sec^2 d theta
        theta = np.linspace(-math.pi / 2 + 1e-9, math.pi / 2 - 1e-9, 400001)
        x = np.tan(theta)
        lp, lq = p.log_prob(_t(x)).numpy(), q.log_prob(_t(x)).numpy()
        expected = float(np.trapezoid(np.exp(lp) * (lp - lq) / np.cos(theta) ** 2, theta))
    else:
        expected = _quadrature_kl(p, q, *interval)
    assert kl == pytest.approx(expected, abs=2e-6)


@pytest.mark.parametrize("q_alpha", [2.5, 4.0])
def test_kl_from_pareto_matches_quadrature_and_is_infinite_without_moments(q_alpha):
    p = D.Pareto(_t([1.2, 1.2, 1.2]), _t([q_alpha, 0.9, 1.8]))
    for q in (D.Exponential(_t(1.3)), D.Gamma(_t(2.2), _t(0.8)), D.Normal(_t(0.3), _t(1.4))):
        kl = D.kl_divergence(p, q).numpy()
        first = D.Pareto(_t(1.2), _t(q_alpha))
        expected = _quadrature_kl(first, q, 1.2, 1e16, n=400001, log_grid=True)
        assert kl[0] == pytest.approx(expected, rel=1e-5)
        assert kl[1] == math.inf  # alpha <= 1: no mean
        if isinstance(q, D.Normal):
            assert kl[2] == math.inf  # alpha <= 2: no variance


INFINITE = [
    (D.Beta(_t([2.0, 3.0]), _t([1.0, 1.0])), D.Pareto(_t(1.0), _t(2.0))),
    (D.ContinuousBernoulli(_t([0.2, 0.6])), D.Pareto(_t(1.0), _t(2.0))),
    (D.Exponential(_t([1.0, 2.0])), D.Beta(_t(2.0), _t(1.0))),
    (D.Exponential(_t([1.0, 2.0])), D.Uniform(_t(0.0), _t(100.0))),
    (D.Gamma(_t([1.0, 2.0]), _t(1.0)), D.ContinuousBernoulli(_t(0.3))),
    (D.Gumbel(_t([0.0, 1.0]), _t(1.0)), D.Exponential(_t(1.0))),
    (D.Laplace(_t([0.0, 1.0]), _t(1.0)), D.Gamma(_t(1.0), _t(1.0))),
    (D.Normal(_t([0.0, 1.0]), _t(1.0)), D.Uniform(_t(-100.0), _t(100.0))),
    (D.Pareto(_t([1.0, 2.0]), _t(3.0)), D.Uniform(_t(0.0), _t(100.0))),
    (D.Poisson(_t([1.0, 2.0])), D.Bernoulli(_t(0.5))),
    (D.Poisson(_t([1.0, 2.0])), D.Binomial(10, _t(0.5))),
]


@pytest.mark.parametrize(("p", "q"), INFINITE, ids=lambda d: type(d).__name__)
def test_kl_is_infinite_where_q_misses_part_of_p_support(p, q):
    kl = D.kl_divergence(p, q)
    assert tuple(kl.shape) == tuple(p.batch_shape) and kl.dtype == mg.float64
    assert np.isinf(kl.numpy()).all() and (kl.numpy() > 0).all()


def test_kl_with_uniform_is_infinite_where_the_intervals_do_not_nest():
    beta = D.Beta(_t(2.0), _t(3.0))
    kl = D.kl_divergence(beta, D.Uniform(_t([-1.0, 0.1, -1.0]), _t([2.0, 2.0, 0.9]))).numpy()
    assert np.isfinite(kl[0]) and np.isinf(kl[1:]).all()
    u = D.Uniform(_t([0.2, -0.1, 0.5]), _t([0.5, 0.5, 1.5]))
    assert np.isinf(D.kl_divergence(u, D.Beta(_t(2.0), _t(3.0))).numpy()[1:]).all()
    assert np.isinf(D.kl_divergence(u, D.Exponential(_t(1.0))).numpy()[1])
    assert np.isinf(D.kl_divergence(u, D.Gamma(_t(2.0), _t(1.0))).numpy()[1])
    assert np.isinf(D.kl_divergence(u, D.ContinuousBernoulli(_t(0.3))).numpy()[1:]).all()
    below = D.Uniform(_t([1.0, 2.0]), _t([3.0, 3.0]))
    kl = D.kl_divergence(below, D.Pareto(_t(1.5), _t(2.0))).numpy()
    assert np.isinf(kl[0]) and np.isfinite(kl[1])


def test_kl_bernoulli_poisson_is_the_two_term_sum():
    p, rate = np.array([0.0, 0.3, 1.0]), 1.7
    kl = D.kl_divergence(D.Bernoulli(_t(p)), D.Poisson(_t(rate))).numpy()
    # sum over x in {0, 1} of p(x) (log p(x) - (x log l - l)), 0 log 0 = 0
    log_q0, log_q1 = -rate, math.log(rate) - rate
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.where(p < 1, (1 - p) * (np.log1p(-p) - log_q0), 0.0)
        t1 = np.where(p > 0, p * (np.log(p) - log_q1), 0.0)
    np.testing.assert_allclose(kl, t0 + t1, rtol=1e-12, atol=1e-15)


def test_kl_half_cauchy_is_the_kl_of_the_unfolded_cauchys():
    p, q = D.HalfCauchy(_t([0.5, 2.0])), D.HalfCauchy(_t([1.5, 2.0]))
    g_p, g_q = np.array([0.5, 2.0]), np.array([1.5, 2.0])
    expected = np.log((g_p + g_q) ** 2 / (4 * g_p * g_q))  # the loc-0 Cauchy closed form
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), expected, rtol=1e-12, atol=1e-15)


def _dense_gauss_kl(mp, sp, mq, sq):
    k = mp.shape[-1]
    inv = np.linalg.inv(sq)
    d = mq - mp
    return 0.5 * (
        np.trace(inv @ sp, axis1=-2, axis2=-1)
        + np.einsum("...i,...ij,...j->...", d, inv, d)
        - k
        + np.linalg.slogdet(sq)[1]
        - np.linalg.slogdet(sp)[1]
    )


def test_kl_between_low_rank_and_full_gaussians_matches_the_dense_formula():
    rng = np.random.default_rng(0)
    k = 4

    def lowrank(batch):
        loc, w = rng.normal(size=batch + (k,)), rng.normal(size=batch + (k, 2))
        d = rng.uniform(0.5, 2, batch + (k,))
        cov = w @ np.swapaxes(w, -1, -2) + d[..., None] * np.eye(k)
        return D.LowRankMultivariateNormal(_t(loc), _t(w), _t(d)), loc, cov

    def full(batch):
        loc, a = rng.normal(size=batch + (k,)), rng.normal(size=batch + (k, k))
        cov = a @ np.swapaxes(a, -1, -2) + np.eye(k)
        return D.MultivariateNormal(_t(loc), covariance_matrix=_t(cov)), loc, cov

    for make_p, make_q in ((lowrank, lowrank), (full, lowrank), (lowrank, full)):
        p, mp, sp = make_p((3,))
        q, mq, sq = make_q(())
        kl = D.kl_divergence(p, q)
        assert tuple(kl.shape) == (3,)
        np.testing.assert_allclose(kl.numpy(), _dense_gauss_kl(mp, sp, mq, sq), rtol=1e-10)
    with pytest.raises(ValueError, match="different event shapes"):
        D.kl_divergence(lowrank(())[0], D.MultivariateNormal(_t(np.zeros(3)), _t(np.eye(3))))


class _ExponentialAsFamily(D.ExponentialFamily):
    """Exponential(rate) as an exponential family: theta = -rate, A(theta) = -log(-theta)."""

    arg_constraints = {"rate": D.constraints.positive}

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    _mean_carrier_measure = 0.0


def test_kl_of_an_exponential_family_is_the_bregman_divergence():
    rp, rq = np.array([0.5, 2.0]), np.array([1.5, 1.5])
    kl = D.kl_divergence(_ExponentialAsFamily(_t(rp)), _ExponentialAsFamily(_t(rq)))
    np.testing.assert_allclose(kl.detach().numpy(), rq / rp - 1 - np.log(rq / rp), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="different exponential families"):
        D.kl_divergence(_ExponentialAsFamily(_t(rp)), D.Poisson(_t(rq)))
