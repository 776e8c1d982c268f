"""ContinuousBernoulli, Kumaraswamy, VonMises, LowRankMultivariateNormal,
RelaxedOneHotCategorical / ExpRelaxedCategorical and LogisticNormal against NumPy oracles:
densities in closed form or integrating to 1 on a fine grid, moments and entropies by
quadrature, pathwise gradients of rsample against float64 central differences, sample
statistics within five standard errors, shapes and argument validation."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

D = mg.distributions


def _t(a, grad: bool = False) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def _grid(lo: float, hi: float, n: int = 400001) -> np.ndarray:
    return np.linspace(lo, hi, n)


def _integral(y: np.ndarray, x: np.ndarray) -> float:
    return float(np.trapezoid(y, x))


def _central_difference(f, params: list[float], i: int, h: float = 1e-6) -> float:
    up, down = list(params), list(params)
    up[i] += h
    down[i] -= h
    return (f(up) - f(down)) / (2 * h)


def _check_rsample_gradient(make, params: list[float], shape=(5,)) -> None:
    """d/d(param) of sum(rsample) with the noise held fixed (same seed) = central differences."""

    def draws(values):
        mg.manual_seed(3)
        return float(make(*[_t(v) for v in values]).rsample(shape).sum())

    leaves = [_t(v, grad=True) for v in params]
    mg.manual_seed(3)
    make(*leaves).rsample(shape).sum().backward()
    for i, leaf in enumerate(leaves):
        expected = _central_difference(draws, params, i)
        assert float(leaf.grad) == pytest.approx(expected, rel=1e-5, abs=1e-8)


# ---------------------------------------------------------------- ContinuousBernoulli
@pytest.mark.parametrize("lam", [0.05, 0.3, 0.4995, 0.5, 0.8])
def test_continuous_bernoulli_moments_cdf_and_entropy_by_quadrature(lam):
    d = D.ContinuousBernoulli(probs=_t(lam))
    x = _grid(0.0, 1.0, 200001)
    p = np.exp(d.log_prob(_t(x)).numpy())
    # the normaliser C(l) = 2 atanh(1 - 2l) / (1 - 2l), = 2 at l = 1/2
    c = 2.0 if lam == 0.5 else 2 * np.arctanh(1 - 2 * lam) / (1 - 2 * lam)
    np.testing.assert_allclose(p, c * lam**x * (1 - lam) ** (1 - x), rtol=1e-6)
    assert _integral(p, x) == pytest.approx(1.0, abs=1e-8)
    mean = _integral(x * p, x)
    assert float(d.mean) == pytest.approx(mean, abs=1e-7)
    assert float(d.variance) == pytest.approx(_integral((x - mean) ** 2 * p, x), abs=1e-7)
    assert float(d.entropy()) == pytest.approx(-_integral(p * np.log(p), x), abs=1e-7)
    xs = np.array([0.1, 0.37, 0.9])
    cdf = d.cdf(_t(xs)).numpy()
    expected = [_integral(p[x <= v], x[x <= v]) for v in xs]
    # inside PyTorch's lims (0.499, 0.501] the cdf and icdf are the uniform's (off by < 1e-3)
    np.testing.assert_allclose(cdf, expected, atol=1e-5 if abs(lam - 0.5) > 1e-3 else 1e-3)
    np.testing.assert_allclose(d.icdf(_t(cdf)).numpy(), xs, atol=1e-9)


def test_continuous_bernoulli_logits_are_the_logit_of_probs():
    logits = np.array([-3.0, 0.0, 0.7, 4.0])
    a = D.ContinuousBernoulli(logits=_t(logits))
    b = D.ContinuousBernoulli(probs=_t(1 / (1 + np.exp(-logits))))
    x = _t([0.2, 0.5, 0.6, 0.99])
    np.testing.assert_allclose(a.log_prob(x).numpy(), b.log_prob(x).numpy(), rtol=1e-12)
    np.testing.assert_allclose(a.entropy().numpy(), b.entropy().numpy(), rtol=1e-12)


def test_continuous_bernoulli_rsample_gradient_and_validation():
    _check_rsample_gradient(lambda p: D.ContinuousBernoulli(probs=p), [0.3])
    _check_rsample_gradient(lambda p: D.ContinuousBernoulli(logits=p), [1.2])
    with pytest.raises(ValueError, match="probs has invalid values"):
        D.ContinuousBernoulli(probs=_t([1.5]), validate_args=True)
    with pytest.raises(ValueError, match="not both"):
        D.ContinuousBernoulli(probs=_t(0.5), logits=_t(0.0))
    with pytest.raises(ValueError, match="support"):
        D.ContinuousBernoulli(probs=_t(0.3)).log_prob(_t(1.5))


# ---------------------------------------------------------------- Kumaraswamy
@pytest.mark.parametrize(("a", "b"), [(2.0, 3.0), (0.7, 1.5), (5.0, 0.9)])
def test_kumaraswamy_density_moments_and_entropy(a, b):
    d = D.Kumaraswamy(_t(a), _t(b))
    # (from 1e-3: nearer 0, 1 - x^a rounds to 1 in the transforms' inverse, as in PyTorch)
    x = _grid(1e-3, 1 - 1e-3, 200001)
    logp = d.log_prob(_t(x)).numpy()
    np.testing.assert_allclose(
        logp, np.log(a * b) + (a - 1) * np.log(x) + (b - 1) * np.log1p(-(x**a)), rtol=1e-9
    )
    grid = x
    p = np.exp(logp)
    # E[X^n] = b B(1 + n/a, b)
    beta = lambda s, t: math.exp(math.lgamma(s) + math.lgamma(t) - math.lgamma(s + t))  # noqa: E731
    m1, m2 = b * beta(1 + 1 / a, b), b * beta(1 + 2 / a, b)
    assert float(d.mean) == pytest.approx(m1, rel=1e-12)
    assert float(d.variance) == pytest.approx(m2 - m1**2, rel=1e-10)
    if min(a, b) >= 1:
        cdf = lambda v: 1 - (1 - v**a) ** b  # noqa: E731
        assert _integral(p, grid) == pytest.approx(cdf(grid[-1]) - cdf(grid[0]), abs=1e-8)
        wide = _grid(1e-12, 1 - 1e-12, 400001)  # the closed-form density, over all of (0, 1)
        logq = np.log(a * b) + (a - 1) * np.log(wide) + (b - 1) * np.log1p(-(wide**a))
        assert float(d.entropy()) == pytest.approx(-_integral(np.exp(logq) * logq, wide), abs=1e-7)
        mode = ((a - 1) / (a * b - 1)) ** (1 / a)
        assert float(d.mode) == pytest.approx(mode, rel=1e-12)
        assert grid[np.argmax(p)] == pytest.approx(mode, abs=1e-4)
    else:
        assert math.isnan(float(d.mode))


def test_kumaraswamy_mode_at_the_edges_of_its_parameters():
    d = D.Kumaraswamy(_t([1.0, 2.0, 1.0, 0.5]), _t([2.0, 1.0, 1.0, 2.0]))
    mode = d.mode.numpy()  # b (1-x)^(b-1) peaks at 0; a x^(a-1) at 1; uniform and U-shapes: NaN
    assert mode[0] == 0.0 and mode[1] == 1.0 and np.isnan(mode[2:]).all()


def test_kumaraswamy_samples_follow_the_cdf_and_rsample_is_differentiable():
    a, b = 2.0, 3.0
    mg.manual_seed(0)
    s = D.Kumaraswamy(_t(a), _t(b)).sample((20000,)).numpy()
    for q in (0.2, 0.5, 0.8):
        cdf = 1 - (1 - q**a) ** b
        assert np.mean(s <= q) == pytest.approx(cdf, abs=5 * math.sqrt(cdf * (1 - cdf) / s.size))
    _check_rsample_gradient(D.Kumaraswamy, [a, b])
    with pytest.raises(ValueError, match="concentration1"):
        D.Kumaraswamy(_t([-1.0]), _t([1.0]))
    e = D.Kumaraswamy(_t([a]), _t([b])).expand((3, 1))
    assert type(e) is D.Kumaraswamy and tuple(e.sample((2,)).shape) == (2, 3, 1)


# ---------------------------------------------------------------- VonMises
@pytest.mark.parametrize("kappa", [0.05, 1.0, 3.7, 3.8, 25.0])
def test_von_mises_density_and_circular_variance(kappa):
    loc = 0.4
    d = D.VonMises(_t(loc), _t(kappa))
    x = _grid(-math.pi, math.pi, 200001)
    logp = d.log_prob(_t(x)).numpy()
    # exp(k cos(x - mu)) / (2 pi I_0(k)); the polynomial I_0 is good to ~1e-7 relative
    expected = kappa * np.cos(x - loc) - np.log(2 * np.pi * np.i0(kappa))
    np.testing.assert_allclose(logp, expected, atol=1e-6)
    p = np.exp(logp)
    assert _integral(p, x) == pytest.approx(1.0, abs=1e-6)
    # circular variance 1 - E[cos(x - mu)] = 1 - I_1(k) / I_0(k)
    assert float(d.variance) == pytest.approx(1 - _integral(np.cos(x - loc) * p, x), abs=1e-6)
    assert float(d.mean) == loc and float(d.mode) == loc


def test_von_mises_log_prob_is_periodic_and_differentiable_in_concentration():
    d = D.VonMises(_t(0.3), _t(2.0))
    x = np.array([-2.0, 0.1, 1.5])
    np.testing.assert_allclose(
        d.log_prob(_t(x)).numpy(), d.log_prob(_t(x + 2 * np.pi)).numpy(), atol=1e-12
    )
    k = _t(2.0, grad=True)
    D.VonMises(_t(0.3), k).log_prob(_t(x)).sum().backward()

    def f(v):
        return float(D.VonMises(_t(0.3), _t(v[0])).log_prob(_t(x)).sum())

    assert float(k.grad) == pytest.approx(_central_difference(f, [2.0], 0), rel=1e-6)


@pytest.mark.parametrize("kappa", [1e-3, 0.8, 12.0])
def test_von_mises_draws_have_the_circular_moments(kappa):
    loc = -2.9  # near the wrap-around at -pi
    mg.manual_seed(1)
    d = D.VonMises(_t([loc, loc]).float(), _t([kappa, kappa]).float())
    s = d.sample((20000,))
    assert s.dtype == mg.float32 and tuple(s.shape) == (20000, 2)
    s = s.numpy().astype(np.float64)
    assert s.min() >= -math.pi and s.max() <= math.pi
    rho = 1 - float(D.VonMises(_t(0.0), _t(kappa)).variance)  # E[cos(x - mu)]
    c = np.cos(s - loc)
    assert abs(c.mean() - rho) < 5 * c.std() / math.sqrt(c.size) + 1e-9
    sn = np.sin(s - loc)  # symmetric about loc: E[sin(x - mu)] = 0
    assert abs(sn.mean()) < 5 * sn.std() / math.sqrt(sn.size)
    assert not D.VonMises.has_rsample


# ---------------------------------------------------------------- LowRankMultivariateNormal
def _lowrank(batch=(2,), k=4, m=2, seed=0):
    rng = np.random.default_rng(seed)
    return (
        rng.normal(size=batch + (k,)),
        rng.normal(size=batch + (k, m)),
        rng.uniform(0.5, 2, batch + (k,)),
    )


def test_lowrank_mvn_matches_the_dense_gaussian():
    loc, w, dg = _lowrank()
    d = D.LowRankMultivariateNormal(_t(loc), _t(w), _t(dg))
    cov = w @ np.swapaxes(w, -1, -2) + dg[..., None] * np.eye(4)
    x = np.random.default_rng(1).normal(size=(3, 2, 4))
    diff = x - loc
    maha = np.einsum("...i,...ij,...j->...", diff, np.linalg.inv(cov), diff)
    logdet = np.linalg.slogdet(cov)[1]
    np.testing.assert_allclose(
        d.log_prob(_t(x)).numpy(), -0.5 * (4 * np.log(2 * np.pi) + logdet + maha), rtol=1e-12
    )
    np.testing.assert_allclose(
        d.entropy().numpy(), 0.5 * (4 * (1 + np.log(2 * np.pi)) + logdet), rtol=1e-12
    )
    np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-12)
    np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), atol=1e-12)
    tril = d.scale_tril.numpy()
    np.testing.assert_allclose(tril @ np.swapaxes(tril, -1, -2), cov, atol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), np.diagonal(cov, 0, -2, -1), rtol=1e-12)


def test_lowrank_mvn_sample_covariance_and_rsample_gradient():
    loc, w, dg = _lowrank(batch=(), k=3, m=1)
    mg.manual_seed(5)
    s = D.LowRankMultivariateNormal(_t(loc), _t(w), _t(dg)).sample((40000,)).numpy()
    cov = w @ w.T + np.diag(dg)
    np.testing.assert_allclose(s.mean(0), loc, atol=5 * np.sqrt(np.diag(cov).max() / 40000))
    np.testing.assert_allclose(np.cov(s.T), cov, atol=0.1)

    def make(*params):
        return D.LowRankMultivariateNormal(
            _t(loc) + params[0], _t(w) * params[1], _t(dg) * params[2]
        )

    _check_rsample_gradient(make, [0.3, 1.2, 0.8], shape=(4,))


def test_lowrank_mvn_shapes_and_bad_arguments():
    loc, w, dg = _lowrank(batch=(2,))
    d = D.LowRankMultivariateNormal(_t(loc[0]), _t(w), _t(dg[:1]))
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (4,)
    e = d.expand((3, 2))
    assert tuple(e.rsample((5,)).shape) == (5, 3, 2, 4)
    assert tuple(e.log_prob(_t(np.zeros(4))).shape) == (3, 2)
    with pytest.raises(ValueError, match="at least one-dimensional"):
        D.LowRankMultivariateNormal(_t(0.0), _t(w), _t(dg))
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices"):
        D.LowRankMultivariateNormal(_t(loc), _t(w[..., :3, :]), _t(dg))
    with pytest.raises(ValueError, match="cov_diag must be a batch of vectors"):
        D.LowRankMultivariateNormal(_t(loc), _t(w), _t(dg[..., :3]))
    with pytest.raises(ValueError, match="Incompatible batch shapes"):
        D.LowRankMultivariateNormal(_t(np.zeros((3, 4))), _t(w), _t(dg))
    with pytest.raises(mg.linalg.LinAlgError, match="not positive-definite"):
        D.LowRankMultivariateNormal(_t(loc), _t(w), _t(-dg))  # the capacitance's Cholesky


# ---------------------------------------------------------------- relaxed categoricals
def _concrete_log_density(y: np.ndarray, logits: np.ndarray, tau: float) -> np.ndarray:
    """Maddison et al. (2017), eq. (5): (K-1)! tau^(K-1) prod(p_i y_i^(-tau-1)) /
    (sum_i p_i y_i^-tau)^K, p = softmax(logits)."""
    k = y.shape[-1]
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    log_terms = logp - tau * np.log(y)
    lse = np.log(np.exp(log_terms).sum(-1))
    return (
        math.lgamma(k) + (k - 1) * math.log(tau) + (logp - (tau + 1) * np.log(y)).sum(-1) - k * lse
    )


def test_relaxed_one_hot_categorical_density_is_the_concrete_density():
    rng = np.random.default_rng(2)
    logits, tau = rng.normal(size=(2, 4)), 0.7
    y = rng.dirichlet(np.ones(4), (5, 2))
    d = D.RelaxedOneHotCategorical(_t(tau), logits=_t(logits))
    expected = _concrete_log_density(y, logits, tau)
    np.testing.assert_allclose(d.log_prob(_t(y)).numpy(), expected, rtol=1e-10)
    # the log-space law: the same density times the Jacobian of exp, prod_i y_i
    e = D.relaxed_categorical.ExpRelaxedCategorical(_t(tau), logits=_t(logits))
    np.testing.assert_allclose(
        e.log_prob(_t(np.log(y))).numpy(), expected + np.log(y).sum(-1), rtol=1e-10
    )
    # a float temperature works the same
    e2 = D.relaxed_categorical.ExpRelaxedCategorical(tau, logits=_t(logits))
    np.testing.assert_allclose(
        e2.log_prob(_t(np.log(y))).numpy(), e.log_prob(_t(np.log(y))).numpy()
    )


def test_relaxed_one_hot_draws_lie_on_the_simplex_and_harden_at_low_temperature():
    probs = np.array([0.2, 0.5, 0.3])
    mg.manual_seed(4)
    s = D.RelaxedOneHotCategorical(_t(0.01), probs=_t(probs)).sample((20000,)).numpy()
    np.testing.assert_allclose(s.sum(-1), 1.0, atol=1e-12)
    assert (s >= 0).all()
    freq = (s.argmax(-1)[:, None] == np.arange(3)).mean(0)
    np.testing.assert_allclose(freq, probs, atol=5 * np.sqrt(0.25 / 20000))
    assert (s.max(-1) > 0.99).mean() > 0.95


def test_relaxed_one_hot_rsample_gradient_and_validation():
    def make(t, l0, l1):
        return D.RelaxedOneHotCategorical(t, logits=mg.stack([l0, l1, l0 * 0]))

    _check_rsample_gradient(make, [0.8, 0.3, -0.5], shape=(3,))
    with pytest.raises(ValueError, match="probs"):
        D.RelaxedOneHotCategorical(_t(0.5), probs=_t([-0.5, 0.6]))
    d = D.RelaxedOneHotCategorical(_t(0.5), probs=_t([0.5, 0.5])).expand((3,))
    assert type(d) is D.RelaxedOneHotCategorical
    assert tuple(d.rsample((2,)).shape) == (2, 3, 2) and float(d.temperature) == 0.5


# ---------------------------------------------------------------- LogisticNormal
def _stick_breaking(x: np.ndarray) -> np.ndarray:
    """R^(K-1) -> simplex: z_i = sigmoid(x_i - log(K - 1 - i)), y_i = z_i prod_{j<i}(1 - z_j)."""
    k1 = x.shape[-1]
    z = 1 / (1 + np.exp(-(x - np.log(np.arange(k1, 0, -1)))))
    stick = np.concatenate([np.ones(x.shape[:-1] + (1,)), np.cumprod(1 - z, -1)], -1)
    return np.concatenate([z, np.ones(x.shape[:-1] + (1,))], -1) * stick


def test_logistic_normal_density_by_the_change_of_variables():
    rng = np.random.default_rng(3)
    loc, scale = rng.normal(size=3), rng.uniform(0.5, 2, 3)
    d = D.LogisticNormal(_t(loc), _t(scale))
    assert tuple(d.event_shape) == (4,) and tuple(d.batch_shape) == ()
    x = rng.normal(size=3)
    y = _stick_breaking(x)
    # the Jacobian of x -> y[:K-1] by central differences
    h = 1e-6
    jac = np.stack(
        [
            (_stick_breaking(x + h * e)[:3] - _stick_breaking(x - h * e)[:3]) / (2 * h)
            for e in np.eye(3)
        ],
        -1,
    )
    normal = (-0.5 * ((x - loc) / scale) ** 2 - np.log(scale) - 0.5 * np.log(2 * np.pi)).sum()
    expected = normal - np.log(abs(np.linalg.det(jac)))
    assert float(d.log_prob(_t(y))) == pytest.approx(expected, rel=1e-7)
    mg.manual_seed(0)
    s = d.rsample((4, 2)).numpy()
    assert s.shape == (4, 2, 4)
    np.testing.assert_allclose(s.sum(-1), 1.0, atol=1e-12)
    assert tuple(D.LogisticNormal(_t(0.0), _t(1.0)).event_shape) == (2,)
    np.testing.assert_allclose(d.loc.numpy(), loc)
    np.testing.assert_allclose(d.scale.numpy(), scale)
    with pytest.raises(ValueError, match="scale"):
        D.LogisticNormal(_t(loc), _t(-scale))


# ---------------------------------------------------------------- Multinomial.entropy
@pytest.mark.parametrize("n", [1, 4, 7])
def test_multinomial_entropy_is_the_sum_over_all_count_vectors(n):
    probs = np.array([[0.2, 0.5, 0.3], [0.0, 0.6, 0.4]])  # a zero probability: 0 log 0 = 0
    xs = np.array([(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)])
    log_fact = np.vectorize(lambda v: math.lgamma(v + 1))
    expected = []
    for p in probs:
        with np.errstate(divide="ignore", invalid="ignore"):
            x_log_p = np.where(xs > 0, xs * np.log(p), 0.0).sum(-1)  # 0 log 0 = 0
        terms = math.lgamma(n + 1) - log_fact(xs).sum(-1) + x_log_p
        pmf = np.exp(terms)
        expected.append(-(pmf * np.where(pmf > 0, terms, 0.0)).sum())
    got = D.Multinomial(n, _t(probs)).entropy()
    assert tuple(got.shape) == (2,)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-12, atol=1e-14)
    logits = _t(np.log([0.2, 0.5, 0.3]))
    from_logits = D.Multinomial(n, logits=logits).entropy()
    assert float(from_logits) == pytest.approx(expected[0], rel=1e-12)


# ---------------------------------------------------------------- GeneralizedPareto
@pytest.mark.parametrize("xi", [-1.0, -0.4, 0.0, 0.3])
def test_generalized_pareto_density_moments_and_entropy(xi):
    loc, scale = 0.5, 1.5
    d = D.GeneralizedPareto(_t(loc), _t(scale), _t(xi))
    hi = loc - scale / xi if xi < 0 else loc + 4000.0
    if xi < 0:  # a bounded support [loc, loc - scale / xi]
        x = np.linspace(loc, hi, 400001)
    else:
        x = np.concatenate(
            [np.linspace(loc, loc + 20, 400001), np.geomspace(loc + 20, hi, 20001)[1:]]
        )
    z = (x - loc) / scale
    if xi == 0:
        expected = -np.log(scale) - z
    else:
        with np.errstate(divide="ignore", invalid="ignore"):  # (log 0 at the upper end)
            expected = -np.log(scale) - (1 / xi + 1) * np.log1p(xi * z)
    logp = d.log_prob(_t(x)).numpy()
    inside = slice(None, -1) if xi < 0 else slice(None)  # (the closed form is 0 * inf at hi)
    np.testing.assert_allclose(logp[inside], expected[inside], rtol=1e-12, atol=1e-12)
    p = np.exp(logp)
    tail = (1 + xi * (hi - loc) / scale) ** (-1 / xi) if xi > 0 else 0.0  # S(hi) beyond the grid
    assert _integral(p, x) + tail == pytest.approx(1.0, abs=1e-6)
    mean = float(d.mean)
    assert mean == pytest.approx(loc + scale / (1 - xi), rel=1e-12)
    assert float(d.variance) == pytest.approx(scale**2 / ((1 - xi) ** 2 * (1 - 2 * xi)), rel=1e-12)
    if xi <= 0:  # (the heavy tail of xi > 0 is beyond a grid's reach for the entropy)
        p_log_p = p * np.where(p > 0, logp, 0.0)
        assert float(d.entropy()) == pytest.approx(-_integral(p_log_p, x), abs=1e-5)
    xs = np.array([loc + 0.1, loc + 0.5 * scale])
    survival = (
        np.exp(-(xs - loc) / scale) if xi == 0 else (1 + xi * (xs - loc) / scale) ** (-1 / xi)
    )
    np.testing.assert_allclose(d.cdf(_t(xs)).numpy(), 1 - survival, rtol=1e-12)
    np.testing.assert_allclose(d.icdf(_t(1 - survival)).numpy(), xs, rtol=1e-12)


def test_generalized_pareto_moments_are_nan_where_they_diverge_and_it_validates():
    d = D.GeneralizedPareto(_t([0.0, 0.0]), _t([1.0, 1.0]), _t([0.7, 1.5]))
    assert np.isnan(d.variance.numpy()).all()
    assert np.isfinite(d.mean.numpy()[0]) and np.isnan(d.mean.numpy()[1])
    _check_rsample_gradient(D.GeneralizedPareto, [0.3, 1.4, 0.2])
    _check_rsample_gradient(D.GeneralizedPareto, [0.3, 1.4, -0.3])
    with pytest.raises(ValueError, match="scale"):
        D.GeneralizedPareto(_t(0.0), _t(-1.0), _t(0.1))
    with pytest.raises(ValueError, match="support"):
        D.GeneralizedPareto(_t(0.0), _t(1.0), _t(-0.5)).log_prob(_t(2.5))  # above loc + 2
    e = D.GeneralizedPareto(_t([0.0]), _t([1.0]), _t([0.1])).expand((3, 1))
    assert type(e) is D.GeneralizedPareto and tuple(e.rsample((2,)).shape) == (2, 3, 1)
