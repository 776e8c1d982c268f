"""mg.distributions against torch.distributions (log_prob, entropy, moments, cdf, KL), float64
finite differences (gradients through log_prob and rsample) and sampling statistics."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import distributions as D
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(3)
LOC = RNG.standard_normal((2, 3))
SCALE = RNG.uniform(0.5, 2.0, (2, 3))
RATE = RNG.uniform(0.5, 3.0, (2, 3))
CONC0 = RNG.uniform(0.3, 4.0, (2, 3))
CONC1 = RNG.uniform(0.3, 4.0, (2, 3))
PROBS = RNG.uniform(0.05, 0.95, (2, 3))
LOGITS = RNG.standard_normal((2, 4))
COV = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 1.5]])


def _t(x):
    return mg.tensor(np.asarray(x, dtype=np.float64))


# (name, kwargs as float64 arrays, value inside the support)
CASES = [
    ("Normal", {"loc": LOC, "scale": SCALE}, LOC + 0.7),
    ("Uniform", {"low": LOC, "high": LOC + SCALE}, LOC + 0.3 * SCALE),
    ("Exponential", {"rate": RATE}, SCALE),
    ("Laplace", {"loc": LOC, "scale": SCALE}, LOC - 0.4),
    ("Gamma", {"concentration": CONC1, "rate": RATE}, SCALE),
    ("Beta", {"concentration1": CONC1, "concentration0": CONC0}, PROBS),
    ("Bernoulli", {"probs": PROBS}, (PROBS > 0.5).astype(float)),
    ("Bernoulli", {"logits": LOC}, (LOC > 0).astype(float)),
    ("Categorical", {"logits": LOGITS}, np.array([3, 0])),
    ("Categorical", {"probs": np.exp(LOGITS)}, np.array([1, 2])),
    ("OneHotCategorical", {"logits": LOGITS}, np.eye(4)[[2, 1]]),
    ("MultivariateNormal", {"loc": LOC, "covariance_matrix": COV}, LOC * 0.5),
    ("MultivariateNormal", {"loc": LOC[0], "scale_tril": np.linalg.cholesky(COV)}, LOC),
    ("MultivariateNormal", {"loc": LOC[1], "precision_matrix": np.linalg.inv(COV)}, LOC),
]


def _pair(torch, name, kwargs):
    ours = getattr(D, name)(**{k: _t(v) for k, v in kwargs.items()})
    theirs = getattr(torch.distributions, name)(
        **{k: torch.tensor(np.array(v, dtype=np.float64)) for k, v in kwargs.items()}
    )
    return ours, theirs


def _close(ours, theirs, rtol=1e-10):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=1e-12
    )


@pytest.mark.parametrize("name, kwargs, value", CASES, ids=[c[0] for c in CASES])
def test_log_prob_entropy_and_moments_match_torch(name, kwargs, value):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(torch, name, kwargs)
    assert ours.batch_shape == tuple(theirs.batch_shape)
    assert ours.event_shape == tuple(theirs.event_shape)
    v = np.asarray(value)
    tv = torch.tensor(v) if v.dtype.kind != "f" else torch.tensor(v, dtype=torch.float64)
    _close(ours.log_prob(mg.tensor(v)), theirs.log_prob(tv))
    _close(ours.entropy(), theirs.entropy())
    if name != "Categorical":  # torch's Categorical mean/variance are NaN
        _close(ours.mean, theirs.mean)
        _close(ours.variance, theirs.variance)
        _close(ours.stddev, theirs.stddev)


@pytest.mark.parametrize(
    "name, kwargs, value",
    [c for c in CASES if c[0] in ("Normal", "Uniform", "Exponential", "Laplace")],
)
def test_cdf_and_icdf_match_torch(name, kwargs, value):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(torch, name, kwargs)
    _close(ours.cdf(_t(value)), theirs.cdf(torch.tensor(value)), rtol=1e-9)
    p = RNG.uniform(0.05, 0.95, (2, 3))
    _close(ours.icdf(_t(p)), theirs.icdf(torch.tensor(p)), rtol=1e-9)


def test_enumerate_support_matches_torch():
    torch = pytest.importorskip("torch")
    for name, kwargs in [
        ("Bernoulli", {"probs": PROBS}),
        ("Categorical", {"logits": LOGITS}),
        ("OneHotCategorical", {"logits": LOGITS}),
    ]:
        ours, theirs = _pair(torch, name, kwargs)
        for expand in (True, False):
            a, b = ours.enumerate_support(expand), theirs.enumerate_support(expand)
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())


KL_CASES = [
    ("Normal", {"loc": LOC, "scale": SCALE}, {"loc": LOC[::-1], "scale": RATE}),
    ("Bernoulli", {"probs": PROBS}, {"logits": LOC}),
    ("Categorical", {"logits": LOGITS}, {"probs": np.exp(LOGITS[::-1])}),
    ("OneHotCategorical", {"logits": LOGITS}, {"logits": LOGITS[::-1]}),
    ("Uniform", {"low": LOC, "high": LOC + SCALE}, {"low": LOC - 1, "high": LOC + 3.0 * SCALE}),
    ("Uniform", {"low": LOC, "high": LOC + SCALE}, {"low": LOC + 0.1, "high": LOC + 3.0}),  # inf
    ("Exponential", {"rate": RATE}, {"rate": SCALE}),
    ("Laplace", {"loc": LOC, "scale": SCALE}, {"loc": -LOC, "scale": RATE}),
    ("Gamma", {"concentration": CONC1, "rate": RATE}, {"concentration": CONC0, "rate": SCALE}),
    (
        "Beta",
        {"concentration1": CONC1, "concentration0": CONC0},
        {"concentration1": CONC0, "concentration0": RATE},
    ),
    (
        "MultivariateNormal",
        {"loc": LOC, "covariance_matrix": COV},
        {
            "loc": LOC[0] * 2,
            "scale_tril": np.diag([1.0, 2.0, 0.5]) + np.tril(np.full((3, 3), 0.2), -1),
        },
    ),
]


@pytest.mark.parametrize("name, kw_p, kw_q", KL_CASES, ids=[c[0] for c in KL_CASES])
def test_kl_divergence_matches_torch(name, kw_p, kw_q):
    torch = pytest.importorskip("torch")
    p, tp = _pair(torch, name, kw_p)
    q, tq = _pair(torch, name, kw_q)
    _close(D.kl_divergence(p, q), torch.distributions.kl_divergence(tp, tq))


def test_kl_of_independent_normals_sums_over_the_event():
    torch = pytest.importorskip("torch")
    p, tp = _pair(torch, "Normal", {"loc": LOC, "scale": SCALE})
    q, tq = _pair(torch, "Normal", {"loc": LOC * 0, "scale": RATE})
    ours = D.kl_divergence(D.Independent(p, 1), D.Independent(q, 1))
    theirs = torch.distributions.kl_divergence(
        torch.distributions.Independent(tp, 1), torch.distributions.Independent(tq, 1)
    )
    _close(ours, theirs)
    _close(
        D.Independent(p, 2).log_prob(_t(LOC)),
        torch.distributions.Independent(tp, 2).log_prob(torch.tensor(LOC)),
    )


def test_kl_of_a_distribution_with_itself_is_zero():
    for name, kw_p, _ in KL_CASES:
        p = getattr(D, name)(**{k: _t(v) for k, v in kw_p.items()})
        np.testing.assert_allclose(D.kl_divergence(p, p).numpy(), 0.0, atol=1e-12)


# ----------------------------------------------------------------------------- registry
def test_register_kl_dispatches_to_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(_t(0.0), _t(1.0)), D.Normal(_t(1.0), _t(2.0))
    inherited = D.kl_divergence(p, q)  # falls back to (Normal, Normal)
    np.testing.assert_allclose(float(inherited), math.log(2) + (1 + 1) / 8 - 0.5, rtol=1e-12)

    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    assert float(D.kl_divergence(p, q)) == 42.0
    assert float(D.kl_divergence(q, p)) != 42.0  # (Normal, MyNormal) still uses the general form


def test_kl_of_an_unregistered_pair_raises():
    with pytest.raises(
        NotImplementedError,
        match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Cauchy",
    ):
        D.kl_divergence(D.Normal(_t(0.0), _t(1.0)), D.Cauchy(_t(0.0), _t(1.0)))


# ----------------------------------------------------------------------------- gradients
def test_normal_log_prob_gradient_matches_finite_differences():
    loc, scale = _t(LOC).requires_grad_(), _t(SCALE).requires_grad_()
    assert gradcheck(lambda m, s: D.Normal(m, s).log_prob(_t(LOC + 0.7)), (loc, scale))


def test_gamma_and_beta_log_prob_gradients_match_finite_differences():
    a, b = _t(CONC1).requires_grad_(), _t(RATE).requires_grad_()
    assert gradcheck(lambda a, b: D.Gamma(a, b).log_prob(_t(SCALE)), (a, b))
    assert gradcheck(lambda a, b: D.Beta(a, b).log_prob(_t(PROBS)), (a, b))
    assert gradcheck(lambda a, b: D.Beta(a, b).entropy(), (a, b))


def test_mvn_log_prob_gradient_reaches_loc_and_scale_tril():
    loc = _t(LOC[0]).requires_grad_()
    tril = _t(np.linalg.cholesky(COV)).requires_grad_()
    value = _t(LOC[1])
    assert gradcheck(
        lambda m, lt: D.MultivariateNormal(m, scale_tril=lt.tril()).log_prob(value), (loc, tril)
    )
    cov = _t(COV).requires_grad_()
    assert gradcheck(
        lambda c: D.MultivariateNormal(loc, covariance_matrix=(c + c.t()) / 2).log_prob(value),
        (cov,),
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda a, b: D.Normal(a, b),
        lambda a, b: D.Laplace(a, b),
        lambda a, b: D.Uniform(a, a + b),
        lambda a, b: D.Exponential(b),
        lambda a, b: D.MultivariateNormal(
            a, scale_tril=(b.unsqueeze(-1) * mg.eye(3, dtype=mg.float64))
        ),
    ],
    ids=["Normal", "Laplace", "Uniform", "Exponential", "MultivariateNormal"],
)
def test_rsample_is_differentiable_in_the_parameters(make):
    a, b = _t(LOC[0]).requires_grad_(), _t(SCALE[0]).requires_grad_()

    def draw(a, b):
        mg.manual_seed(11)  # the same noise at every evaluation: a deterministic function
        return make(a, b).rsample((4,))

    assert draw(a, b).requires_grad
    assert gradcheck(draw, (a, b))


def test_distributions_without_rsample_say_so():
    p = D.Poisson(_t(2.0))
    assert not p.has_rsample and D.Gamma(_t(2.0), _t(1.0)).has_rsample
    assert not D.Categorical(logits=_t(LOGITS)).has_rsample
    with pytest.raises(NotImplementedError, match="Poisson does not support rsample"):
        p.rsample()
    assert D.Normal(_t(0.0), _t(1.0)).has_rsample
    assert D.Independent(D.Normal(_t(LOC), _t(SCALE)), 1).has_rsample


# ----------------------------------------------------------------------------- sampling
def _within_sigmas(draws: np.ndarray, mean, var, fourth_central=None, sigmas: float = 5.0):
    """The sample mean within `sigmas` standard errors of the true mean (SE = sqrt(var / n)),
    the sample variance within `sigmas` standard errors of the true variance
    (SE = sqrt((mu4 - var^2) / n), mu4 the fourth central moment)."""
    n = draws.shape[0]
    m = draws.mean(0)
    assert np.all(np.abs(m - mean) <= sigmas * np.sqrt(var / n)), (m, mean)
    if fourth_central is not None:
        v = draws.var(0)
        assert np.all(np.abs(v - var) <= sigmas * np.sqrt((fourth_central - var**2) / n)), (v, var)


N = 20000


@pytest.mark.parametrize(
    "name, kwargs, mu4",
    [
        ("Normal", {"loc": LOC, "scale": SCALE}, lambda d: 3 * SCALE**4),
        ("Uniform", {"low": LOC, "high": LOC + SCALE}, lambda d: SCALE**4 / 80),
        ("Exponential", {"rate": RATE}, lambda d: 9 / RATE**4),
        ("Laplace", {"loc": LOC, "scale": SCALE}, lambda d: 24 * SCALE**4),
        (
            "Gamma",
            {"concentration": CONC1, "rate": RATE},
            lambda d: 3 * CONC1 * (CONC1 + 2) / RATE**4,
        ),
        (
            "Bernoulli",
            {"probs": PROBS},
            lambda d: PROBS * (1 - PROBS) * (1 - 3 * PROBS * (1 - PROBS)),
        ),
        ("Beta", {"concentration1": CONC1, "concentration0": CONC0}, None),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_sample_mean_and_variance_are_within_five_standard_errors(name, kwargs, mu4):
    mg.manual_seed(0)
    d = getattr(D, name)(**{k: _t(v) for k, v in kwargs.items()})
    draws = d.sample((N,))
    assert tuple(draws.shape) == (N, 2, 3) and not draws.requires_grad
    _within_sigmas(draws.numpy(), d.mean.numpy(), d.variance.numpy(), mu4(d) if mu4 else None)


def test_categorical_sample_frequencies_are_within_five_standard_errors():
    mg.manual_seed(0)
    d = D.Categorical(logits=_t(LOGITS))
    draws = d.sample((N,)).numpy()
    assert draws.shape == (N, 2) and draws.dtype == np.int64
    probs = d.probs.numpy()
    for b in range(2):
        freq = np.bincount(draws[:, b], minlength=4) / N
        assert np.all(np.abs(freq - probs[b]) <= 5 * np.sqrt(probs[b] * (1 - probs[b]) / N))
    one_hot = D.OneHotCategorical(logits=_t(LOGITS)).sample((N,)).numpy()
    assert one_hot.shape == (N, 2, 4) and np.all(one_hot.sum(-1) == 1)
    assert np.all(np.abs(one_hot.mean(0) - probs) <= 5 * np.sqrt(probs * (1 - probs) / N))


def test_multivariate_normal_sample_covariance_is_within_five_standard_errors():
    mg.manual_seed(0)
    d = D.MultivariateNormal(_t(LOC[0]), covariance_matrix=_t(COV))
    x = d.sample((N,)).numpy()
    assert x.shape == (N, 3)
    _within_sigmas(x, LOC[0], np.diag(COV))
    # Var of one product (x_i - mu_i)(x_j - mu_j) for a Gaussian: S_ii S_jj + S_ij^2
    se = np.sqrt((np.outer(np.diag(COV), np.diag(COV)) + COV**2) / N)
    assert np.all(np.abs(np.cov(x.T) - COV) <= 5 * se)


def test_same_seed_gives_the_same_draws():
    d = D.Normal(_t(LOC), _t(SCALE))
    mg.manual_seed(5)
    a = d.sample((3,)).numpy()
    mg.manual_seed(5)
    np.testing.assert_array_equal(a, d.sample((3,)).numpy())


# ----------------------------------------------------------------------------- shapes, errors
def test_sample_and_log_prob_shapes_follow_sample_batch_event():
    d = D.MultivariateNormal(_t(LOC), covariance_matrix=_t(COV))  # batch (2,), event (3,)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = d.sample((5, 4))
    assert x.shape == (5, 4, 2, 3) and d.log_prob(x).shape == (5, 4, 2)
    c = D.Categorical(logits=_t(LOGITS))
    assert c.sample().shape == (2,) and c.log_prob(c.sample((7,))).shape == (7, 2)


def test_expand_broadcasts_the_parameters():
    torch = pytest.importorskip("torch")
    for name, kwargs, value in CASES:
        ours, theirs = _pair(torch, name, kwargs)
        batch = (5, 1) + tuple(ours.batch_shape)
        e, te = ours.expand(batch), theirs.expand(batch)
        assert type(e) is type(ours) and e.batch_shape == tuple(te.batch_shape)
        v = np.asarray(value)
        tv = torch.tensor(v) if v.dtype.kind != "f" else torch.tensor(v, dtype=torch.float64)
        _close(e.log_prob(mg.tensor(v)), te.log_prob(tv))


def test_invalid_parameters_raise_a_value_error_naming_the_parameter():
    with pytest.raises(
        ValueError, match="Expected parameter scale .* GreaterThan\\(lower_bound=0.0\\)"
    ):
        D.Normal(_t(0.0), _t(-1.0))
    with pytest.raises(ValueError, match="Expected parameter probs .* Interval"):
        D.Bernoulli(probs=_t(1.5))
    with pytest.raises(ValueError, match="Expected parameter rate"):
        D.Exponential(_t([1.0, 0.0]))
    with pytest.raises(ValueError, match="Expected parameter concentration0"):
        D.Beta(_t(1.0), _t(-2.0))
    with pytest.raises(ValueError, match="Expected parameter scale_tril .* LowerCholesky"):
        D.MultivariateNormal(_t([0.0, 0.0]), scale_tril=_t([[1.0, 1.0], [0.0, 1.0]]))
    with pytest.raises(
        ValueError, match="Expected parameter covariance_matrix .* PositiveDefinite"
    ):
        D.MultivariateNormal(_t([0.0, 0.0]), covariance_matrix=_t([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="low"):
        D.Uniform(_t(1.0), _t(0.0))
    with pytest.raises(ValueError, match="exactly one"):
        D.Categorical(probs=_t([0.5, 0.5]), logits=_t([0.0, 0.0]))
    with pytest.raises(
        ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"
    ):
        D.MultivariateNormal(_t([0.0, 0.0]))
    D.Normal(_t(0.0), _t(-1.0), validate_args=False)  # the check can be turned off


def test_log_prob_outside_the_support_raises_when_validating():
    with pytest.raises(
        ValueError, match="within the support \\(GreaterThanEq\\(lower_bound=0.0\\)\\)"
    ):
        D.Exponential(_t(1.0)).log_prob(_t(-1.0))
    with pytest.raises(ValueError, match="IntegerInterval\\(lower_bound=0, upper_bound=3\\)"):
        D.Categorical(logits=_t(LOGITS)).log_prob(mg.tensor([4, 0]))
    with pytest.raises(ValueError, match="not broadcastable"):
        D.Normal(_t(LOC), _t(SCALE)).log_prob(_t([0.0, 1.0]))
    out = D.Exponential(_t(1.0), validate_args=False).log_prob(_t(-1.0))
    assert float(out) == 1.0  # the formula, unchecked


def test_constraint_names_match_torch():
    torch = pytest.importorskip("torch")
    for name in (
        "Normal",
        "Bernoulli",
        "Categorical",
        "Exponential",
        "Laplace",
        "Gamma",
        "Beta",
        "MultivariateNormal",
        "OneHotCategorical",
    ):
        ours, theirs = getattr(D, name), getattr(torch.distributions, name)
        assert set(ours.arg_constraints) == set(theirs.arg_constraints), name
        for k in ours.arg_constraints:
            assert repr(ours.arg_constraints[k]) == repr(theirs.arg_constraints[k]), (name, k)
    assert repr(D.Normal.support) == repr(torch.distributions.Normal.support)
    assert repr(D.Beta.support) == repr(torch.distributions.Beta.support)
