"""LogNormal, HalfNormal, Cauchy, HalfCauchy, Gumbel, Chi2, StudentT, Poisson, Geometric and
ExponentialFamily against independent oracles: densities integrating (summing) to 1, seeded
sample moments against mean / variance, pathwise gradients of rsample against central
differences, closed-form KL against Monte Carlo, and argument validation. (The float64
closed-form values of every method are checked by the op database's entries.)"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

D = mg.distributions


def _t(a) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64))


CONTINUOUS = {
    "LogNormal": (lambda: D.LogNormal(_t(0.2), _t(0.5)), (1e-9, 40.0)),
    "HalfNormal": (lambda: D.HalfNormal(_t(1.3)), (0.0, 15.0)),
    "Cauchy": (lambda: D.Cauchy(_t(0.5), _t(0.7)), (-2e4, 2e4)),
    "HalfCauchy": (lambda: D.HalfCauchy(_t(0.7)), (0.0, 4e4)),
    "Gumbel": (lambda: D.Gumbel(_t(0.5), _t(1.5)), (-8.0, 60.0)),
    "Chi2": (lambda: D.Chi2(_t(3.5)), (1e-12, 80.0)),
    "StudentT": (lambda: D.StudentT(_t(4.0), _t(-0.5), _t(2.0)), (-3e3, 3e3)),
    "Weibull": (lambda: D.Weibull(_t(1.5), _t(1.7)), (1e-12, 30.0)),
    "Pareto": (lambda: D.Pareto(_t(0.4), _t(2.5)), (0.4, 4e4)),
    "InverseGamma": (lambda: D.InverseGamma(_t(3.0), _t(2.0)), (1e-9, 4e4)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_density_integrates_to_one(name):
    make, (lo, hi) = CONTINUOUS[name]
    d = make()
    # a grid dense near the bulk, log-spaced into the tails
    core = np.linspace(max(lo, -30), min(hi, 30), 400001)
    tails = [np.geomspace(30, hi, 20001)] if hi > 30 else []
    tails += [-np.geomspace(30, -lo, 20001)[::-1]] if lo < -30 else []
    total = 0.0
    for grid in [core, *tails]:
        total += np.trapezoid(np.exp(d.log_prob(_t(grid)).numpy()), grid)
    assert total == pytest.approx(1.0, abs=2e-3)


@pytest.mark.parametrize("name", sorted(set(CONTINUOUS) - {"Chi2", "StudentT", "InverseGamma"}))
def test_cdf_is_the_integral_of_the_density(name):
    d = CONTINUOUS[name][0]()
    a, b = np.array([0.5]), np.array([2.5])
    grid = np.linspace(a[0], b[0], 20001)
    mass = np.trapezoid(np.exp(d.log_prob(_t(grid)).numpy()), grid)
    assert float(d.cdf(_t(b)) - d.cdf(_t(a))) == pytest.approx(mass, rel=1e-6)
    p = _t([0.1, 0.5, 0.9])
    np.testing.assert_allclose(d.cdf(d.icdf(p)).numpy(), p.numpy(), rtol=1e-10)


@pytest.mark.parametrize(
    ("make", "support"),
    [
        (lambda: D.Poisson(_t(3.2)), np.arange(0, 80)),
        (lambda: D.Geometric(_t(0.3)), np.arange(0, 400)),
        (lambda: D.Geometric(logits=_t(-1.0)), np.arange(0, 400)),
    ],
)
def test_probabilities_sum_to_one_and_give_the_moments(make, support):
    d = make()
    p = np.exp(d.log_prob(_t(support.astype(np.float64))).numpy())
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    mean = (p * support).sum()
    assert float(d.mean) == pytest.approx(mean, rel=1e-10)
    assert float(d.variance) == pytest.approx((p * (support - mean) ** 2).sum(), rel=1e-9)
    if not isinstance(d, D.Poisson):  # (Poisson has no entropy, as PyTorch)
        assert float(d.entropy()) == pytest.approx(-(p * np.log(p)).sum(), rel=1e-10)


@pytest.mark.parametrize(
    "make",
    [
        lambda: D.LogNormal(_t([0.1, -0.3]), _t([0.4, 0.6])),
        lambda: D.HalfNormal(_t([0.5, 2.0])),
        lambda: D.Gumbel(_t([0.5, -1.0]), _t([1.5, 0.3])),
        lambda: D.Chi2(_t([2.5, 6.0])),
        lambda: D.StudentT(_t([5.0, 9.0]), _t([1.0, -2.0]), _t([0.5, 2.0])),
        lambda: D.Poisson(_t([0.7, 12.0])),
        lambda: D.Geometric(_t([0.2, 0.8])),
        lambda: D.Weibull(_t([0.5, 2.0]), _t([0.8, 3.0])),
        lambda: D.Pareto(_t([0.5, 2.0]), _t([9.0, 12.0])),
        lambda: D.InverseGamma(_t([9.0, 12.0]), _t([0.5, 2.0])),
    ],
    ids=[
        "LogNormal",
        "HalfNormal",
        "Gumbel",
        "Chi2",
        "StudentT",
        "Poisson",
        "Geometric",
        "Weibull",
        "Pareto",
        "InverseGamma",
    ],
)
def test_sample_moments_match_mean_and_variance(make):
    d = make()
    mg.manual_seed(123)
    s = d.sample((40000,)).numpy()
    assert s.shape == (40000, 2)
    assert bool(d.support.check(_t(s)).all())
    mean, var = d.mean.numpy(), d.variance.numpy()
    assert np.all(np.abs(s.mean(0) - mean) < 5 * np.sqrt(var / 40000))
    np.testing.assert_allclose(s.var(0), var, rtol=0.08)


def test_cauchy_samples_follow_the_cdf():
    d = D.Cauchy(_t(0.5), _t(2.0))
    mg.manual_seed(5)
    s = np.sort(d.sample((20000,)).numpy())
    ecdf = np.arange(1, s.size + 1) / s.size
    assert np.abs(d.cdf(_t(s)).numpy() - ecdf).max() < 0.015  # Kolmogorov-Smirnov


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (D.LogNormal, [0.2, 0.7]),
        (D.HalfNormal, [1.3]),
        (D.Cauchy, [0.2, 0.7]),
        (D.HalfCauchy, [0.9]),
        (D.Gumbel, [0.2, 0.7]),
        (D.Weibull, [0.8, 1.7]),
        (D.Pareto, [0.8, 2.5]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_rsample_gradient_matches_central_differences(cls, params):
    def draws(values):
        mg.manual_seed(11)
        return cls(*[_t(v) for v in values]).rsample((6,)).numpy().sum()

    leaves = [mg.tensor(float(v), dtype=mg.float64, requires_grad=True) for v in params]
    mg.manual_seed(11)
    cls(*leaves).rsample((6,)).sum().backward()
    for i, leaf in enumerate(leaves):
        h = 1e-6
        up, down = list(params), list(params)
        up[i] += h
        down[i] -= h
        assert float(leaf.grad) == pytest.approx((draws(up) - draws(down)) / (2 * h), rel=1e-5)


KL_PAIRS = [
    (lambda: D.LogNormal(_t(0.2), _t(0.5)), lambda: D.LogNormal(_t(-0.1), _t(0.8))),
    (lambda: D.HalfNormal(_t(0.5)), lambda: D.HalfNormal(_t(1.2))),
    (lambda: D.Gumbel(_t(0.2), _t(0.5)), lambda: D.Gumbel(_t(-0.3), _t(0.9))),
    (lambda: D.Chi2(_t(3.0)), lambda: D.Chi2(_t(5.0))),
    (lambda: D.Poisson(_t(3.0)), lambda: D.Poisson(_t(4.5))),
    (lambda: D.Geometric(_t(0.3)), lambda: D.Geometric(_t(0.6))),
    (lambda: D.Pareto(_t(1.0), _t(2.0)), lambda: D.Pareto(_t(0.7), _t(3.0))),
    (lambda: D.Dirichlet(_t([0.5, 2.0, 3.0])), lambda: D.Dirichlet(_t([1.5, 1.0, 0.7]))),
]


@pytest.mark.parametrize(("p", "q"), KL_PAIRS, ids=lambda f: type(f()).__name__)
def test_kl_matches_a_monte_carlo_estimate(p, q):
    p, q = p(), q()
    mg.manual_seed(7)
    x = p.sample((200000,))
    log_ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    stderr = log_ratio.std() / math.sqrt(log_ratio.size)
    assert float(D.kl_divergence(p, q)) == pytest.approx(log_ratio.mean(), abs=5 * stderr + 1e-9)


def test_kl_of_transformed_distributions_needs_equal_transforms():
    p = D.TransformedDistribution(D.Normal(_t(0.0), _t(1.0)), [D.ExpTransform()])
    q = D.TransformedDistribution(D.Normal(_t(0.0), _t(1.0)), [D.SigmoidTransform()])
    with pytest.raises(NotImplementedError):
        D.kl_divergence(p, q)


class _ExponentialAsFamily(D.ExponentialFamily):
    """Exponential(rate) written as an exponential family: theta = -rate, A = -log(-theta),
    h = 1, to check the base's entropy against 1 - log(rate)."""

    arg_constraints = {"rate": D.constraints.positive}

    def __init__(self, rate):
        self.rate = rate
        super().__init__(rate.shape)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()

    @property
    def _mean_carrier_measure(self):
        return 0.0


def test_exponential_family_entropy_comes_from_the_log_normalizer():
    rate = _t([0.5, 2.0, 3.0])
    np.testing.assert_allclose(
        _ExponentialAsFamily(rate).entropy().detach().numpy(), 1 - np.log(rate.numpy()), rtol=1e-12
    )
    with pytest.raises(NotImplementedError):
        D.Poisson(rate).entropy()


@pytest.mark.parametrize(
    "make",
    [
        lambda: D.LogNormal(_t([0.0]), _t([-1.0])),
        lambda: D.HalfNormal(_t([0.0])),
        lambda: D.Cauchy(_t([0.0]), _t([0.0])),
        lambda: D.Chi2(_t([-1.0])),
        lambda: D.StudentT(_t([0.0])),
        lambda: D.Poisson(_t([-0.5])),
        lambda: D.Geometric(_t([1.5])),
        lambda: D.Geometric(_t([0.0])),
        lambda: D.Geometric(_t([0.5]), _t([0.0])),
    ],
)
def test_invalid_parameters_raise_value_error(make):
    with pytest.raises(ValueError):
        make()


def test_values_outside_the_support_raise_and_shapes_expand():
    with pytest.raises(ValueError):
        D.HalfNormal(_t([1.0])).log_prob(_t([-1.0]))
    with pytest.raises(ValueError):
        D.Poisson(_t([1.0])).log_prob(_t([0.5]))
    for d in (
        D.LogNormal(_t([0.0]), _t([1.0])),
        D.Gumbel(_t([0.0]), _t([1.0])),
        D.Chi2(_t([2.0])),
        D.StudentT(_t([3.0])),
        D.HalfCauchy(_t([1.0])),
    ):
        e = d.expand((4, 1))
        assert type(e) is type(d) and tuple(e.batch_shape) == (4, 1)
        assert tuple(e.sample((2,)).shape) == (2, 4, 1)
        np.testing.assert_allclose(e.mean.numpy(), np.broadcast_to(d.mean.numpy(), (4, 1)))


def test_pareto_kl_is_infinite_where_q_misses_part_of_p():
    kl = D.kl_divergence(D.Pareto(_t([1.0]), _t([2.0])), D.Pareto(_t([1.5]), _t([2.0])))
    assert float(kl) == math.inf


def test_dirichlet_density_integrates_to_one_over_the_simplex_and_moments_match():
    a = np.array([1.5, 2.0, 3.0])
    d = D.Dirichlet(_t(a))
    n = 1500
    u = (np.arange(n) + 0.5) / n  # midpoints of a grid on the triangle x1 + x2 < 1
    x1, x2 = np.meshgrid(u, u, indexing="ij")
    inside = x1 + x2 < 1
    pts = np.stack([x1[inside], x2[inside], 1 - x1[inside] - x2[inside]], -1)
    dens = np.exp(d.log_prob(_t(pts)).numpy())
    assert dens.sum() / n**2 == pytest.approx(1.0, abs=5e-3)
    mg.manual_seed(3)
    s = d.sample((40000,)).numpy()
    np.testing.assert_allclose(s.sum(-1), 1, atol=1e-12)
    np.testing.assert_allclose(s.mean(0), d.mean.numpy(), atol=5e-3)
    np.testing.assert_allclose(s.var(0), d.variance.numpy(), rtol=0.05)
    np.testing.assert_allclose(d.mode.numpy(), (a - 1) / (a.sum() - 3))
    mc = -np.log(np.exp(d.log_prob(_t(s)).numpy())).mean()
    assert float(d.entropy()) == pytest.approx(mc, abs=0.02)


def test_binomial_probabilities_sum_to_one_and_give_the_moments():
    n, p = 7.0, np.array([0.15, 0.5, 0.9])
    d = D.Binomial(_t(n), _t(p))
    ks = np.arange(8.0)[:, None]
    logp = d.log_prob(_t(np.broadcast_to(ks, (8, 3)).copy())).numpy()
    choose = np.array([math.comb(7, int(k)) for k in ks[:, 0]])[:, None]
    np.testing.assert_allclose(logp, np.log(choose * p**ks * (1 - p) ** (n - ks)), rtol=1e-12)
    probs = np.exp(logp)
    np.testing.assert_allclose(probs.sum(0), 1, rtol=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), (probs * ks).sum(0))
    np.testing.assert_allclose(d.entropy().numpy(), -(probs * logp).sum(0), rtol=1e-12)
    mg.manual_seed(9)
    s = d.sample((40000,)).numpy()
    assert set(np.unique(s)) <= set(range(8))
    np.testing.assert_allclose(s.var(0), d.variance.numpy(), rtol=0.05)


def test_binomial_validates_and_its_kl_matches_monte_carlo():
    with pytest.raises(ValueError):
        D.Binomial(_t([2.5]), _t([0.5]))
    with pytest.raises(ValueError):
        D.Binomial(_t([3.0]), _t([0.5])).log_prob(_t([4.0]))
    with pytest.raises(NotImplementedError):
        D.Binomial(_t([2.0, 3.0]), _t([0.5, 0.5])).entropy()
    p, q = D.Binomial(_t(6.0), _t(0.3)), D.Binomial(_t(6.0), _t(0.6))
    mg.manual_seed(4)
    x = p.sample((200000,))
    mc = (p.log_prob(x) - q.log_prob(x)).numpy().mean()
    assert float(D.kl_divergence(p, q)) == pytest.approx(mc, abs=0.01)


def test_negative_binomial_probabilities_sum_to_one_and_give_the_moments():
    r, p = np.array([0.7, 3.0]), np.array([0.3, 0.6])
    d = D.NegativeBinomial(_t(r), _t(p))
    ks = np.arange(300.0)[:, None]
    logp = d.log_prob(_t(np.broadcast_to(ks, (300, 2)).copy())).numpy()
    expected = [
        math.lgamma(k + ri)
        - math.lgamma(k + 1)
        - math.lgamma(ri)
        + k * math.log(pi)
        + ri * math.log(1 - pi)
        for k in (0.0, 5.0)
        for ri, pi in zip(r, p)
    ]
    np.testing.assert_allclose(logp[[0, 5]].ravel(), expected, rtol=1e-12)
    probs = np.exp(logp)
    np.testing.assert_allclose(probs.sum(0), 1, rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), (probs * ks).sum(0), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), (probs * (ks - d.mean.numpy()) ** 2).sum(0))
    mg.manual_seed(8)
    s = d.sample((40000,)).numpy()
    assert np.all(np.abs(s.mean(0) - d.mean.numpy()) < 5 * np.sqrt(d.variance.numpy() / 40000))


def test_straight_through_draws_are_one_hot_with_the_probabilities_gradient():
    logits = mg.tensor([0.1, 0.5, -0.3], dtype=mg.float64, requires_grad=True)
    d = D.OneHotCategoricalStraightThrough(logits=logits)
    mg.manual_seed(2)
    x = d.rsample((4,))
    np.testing.assert_array_equal(x.detach().numpy().sum(-1), 1)
    assert set(np.unique(x.detach().numpy())) <= {0.0, 1.0}
    c = np.array([1.0, 2.0, 3.0])
    (x * mg.tensor(c)).sum().backward()
    p = np.exp([0.1, 0.5, -0.3]) / np.exp([0.1, 0.5, -0.3]).sum()
    # d/dl_j of 4 sum_i c_i p_i = 4 p_j (c_j - sum_i c_i p_i)
    np.testing.assert_allclose(logits.grad.numpy(), 4 * p * (c - (c * p).sum()), rtol=1e-12)


def test_relaxed_bernoulli_density_integrates_to_one_and_draws_follow_it():
    d = D.RelaxedBernoulli(_t(0.7), logits=_t(0.4))
    grid = np.linspace(1e-9, 1 - 1e-9, 400001)
    dens = np.exp(d.log_prob(_t(grid)).numpy())
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=2e-3)
    mg.manual_seed(6)
    s = d.rsample((40000,)).numpy()
    assert np.all((s > 0) & (s < 1))
    for a in (0.2, 0.5, 0.8):  # P(Y <= a) from the draws vs the integrated density
        inside = grid <= a
        assert (s <= a).mean() == pytest.approx(np.trapezoid(dens[inside], grid[inside]), abs=0.01)


def test_relaxed_bernoulli_tends_to_a_bernoulli_at_low_temperature():
    d = D.RelaxedBernoulli(_t(0.01), probs=_t(0.3))
    mg.manual_seed(1)
    s = d.sample((20000,)).numpy()
    assert np.mean((s > 0.01) & (s < 0.99)) < 0.02
    assert (s > 0.5).mean() == pytest.approx(0.3, abs=0.015)


def test_relaxed_bernoulli_rsample_gradient_matches_central_differences():
    def draws(logit):
        mg.manual_seed(12)
        return D.RelaxedBernoulli(_t(0.8), logits=_t(logit)).rsample((5,)).numpy().sum()

    leaf = mg.tensor(0.3, dtype=mg.float64, requires_grad=True)
    mg.manual_seed(12)
    D.RelaxedBernoulli(_t(0.8), logits=leaf).rsample((5,)).sum().backward()
    h = 1e-6
    assert float(leaf.grad) == pytest.approx((draws(0.3 + h) - draws(0.3 - h)) / (2 * h), rel=1e-6)


def test_fisher_snedecor_density_integrates_to_one_and_moments_match():
    d = D.FisherSnedecor(_t(6.0), _t(14.0))
    grid = np.concatenate([np.linspace(1e-12, 30, 300001), np.geomspace(30.0001, 1e6, 20001)])
    assert np.trapezoid(np.exp(d.log_prob(_t(grid)).numpy()), grid) == pytest.approx(1, abs=1e-3)
    mg.manual_seed(13)
    s = d.sample((60000,)).numpy()
    assert abs(s.mean() - float(d.mean)) < 5 * math.sqrt(float(d.variance) / 60000)
    assert s.var() == pytest.approx(float(d.variance), rel=0.1)
    assert np.isnan(float(D.FisherSnedecor(_t(1.0), _t(2.0)).mean))


def test_multinomial_probabilities_sum_to_one_over_all_count_vectors():
    p = np.array([0.2, 0.5, 0.3])
    d = D.Multinomial(4, _t(p))
    xs = np.array([(a, b, 4 - a - b) for a in range(5) for b in range(5 - a)], dtype=np.float64)
    logp = d.log_prob(_t(xs)).numpy()
    fact = np.array([math.factorial(int(v)) for v in xs.ravel()]).reshape(xs.shape).prod(-1)
    np.testing.assert_allclose(logp, np.log(24 / fact * (p**xs).prod(-1)), rtol=1e-12)
    probs = np.exp(logp)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(d.mean.numpy(), (probs[:, None] * xs).sum(0), rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), (probs[:, None] * (xs - 4 * p) ** 2).sum(0))
    mg.manual_seed(10)
    s = d.sample((20000,)).numpy()
    np.testing.assert_array_equal(s.sum(-1), 4)
    np.testing.assert_allclose(s.mean(0), 4 * p, atol=0.03)
    with pytest.raises(ValueError):
        d.log_prob(_t([1.0, 1.0, 1.5]))
