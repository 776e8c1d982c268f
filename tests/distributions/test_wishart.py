"""``distributions.Wishart`` against the closed forms written in NumPy (log density, entropy,
mean, mode, variance; the p = 1 case against the Gamma(df/2, 2v) density), Monte Carlo moments
of Bartlett's sampler, float64 gradcheck through log_prob and rsample, and PyTorch's errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck
from minigenesis.distributions import Wishart


def _spd(p, seed, shift=1.0):
    a = np.random.default_rng(seed).standard_normal((p, p))
    return a @ a.T + shift * np.eye(p)


def _log_mvgamma(a, p):
    return p * (p - 1) / 4 * math.log(math.pi) + sum(math.lgamma(a - j / 2) for j in range(p))


def _digamma(x, h=1e-5):  # from lgamma by a central difference (error ~ h^2)
    return (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)


def _log_pdf(x, df, v):
    p = v.shape[0]
    return (
        (df - p - 1) / 2 * np.linalg.slogdet(x)[1]
        - np.trace(np.linalg.solve(v, x)) / 2
        - df * p / 2 * math.log(2)
        - df / 2 * np.linalg.slogdet(v)[1]
        - _log_mvgamma(df / 2, p)
    )


def _entropy(df, v):
    p = v.shape[0]
    psi_p = sum(_digamma(df / 2 - j / 2) for j in range(p))
    return (
        (p + 1) / 2 * np.linalg.slogdet(v)[1]
        + p * (p + 1) / 2 * math.log(2)
        + _log_mvgamma(df / 2, p)
        - (df - p - 1) / 2 * psi_p
        + df * p / 2
    )


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_log_prob_and_entropy_match_the_closed_forms_in_each_parametrization(param):
    v, x = _spd(3, 0, 3.0), _spd(3, 1)
    given = {
        "covariance_matrix": v, "precision_matrix": np.linalg.inv(v),
        "scale_tril": np.linalg.cholesky(v),
    }[param]  # fmt: skip
    d = Wishart(mg.tensor(5.5, dtype=mg.float64), **{param: mg.tensor(given)})
    assert d.batch_shape == () and d.event_shape == (3, 3)
    assert d.arg_constraints["df"].lower_bound == 2  # df > p - 1
    np.testing.assert_allclose(d.log_prob(mg.tensor(x)).item(), _log_pdf(x, 5.5, v), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), _entropy(5.5, v), rtol=1e-8)
    np.testing.assert_allclose(d.covariance_matrix.numpy(), v, rtol=1e-10, atol=1e-12)


def test_one_by_one_wishart_is_a_gamma_of_shape_df_over_2_and_scale_2v():
    df, v, xs = 3.5, 0.7, np.array([0.2, 1.0, 4.5])
    d = Wishart(
        mg.tensor(df, dtype=mg.float64), covariance_matrix=mg.tensor([[v]], dtype=mg.float64)
    )
    k, theta = df / 2, 2 * v
    want = (k - 1) * np.log(xs) - xs / theta - math.lgamma(k) - k * math.log(theta)
    got = d.log_prob(mg.tensor(xs).reshape(3, 1, 1))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_moments_and_mode_follow_df_and_the_scale_matrix_with_batches():
    v = np.stack([_spd(2, 3), _spd(2, 4)])
    df = np.array([4.0, 2.5])
    d = Wishart(mg.tensor(df), covariance_matrix=mg.tensor(v))
    assert d.batch_shape == (2,)
    np.testing.assert_allclose(d.mean.numpy(), df[:, None, None] * v, rtol=1e-12)
    diag = np.diagonal(v, axis1=-2, axis2=-1)
    want_var = df[:, None, None] * (v**2 + diag[:, :, None] * diag[:, None, :])
    np.testing.assert_allclose(d.variance.numpy(), want_var, rtol=1e-12)
    mode = d.mode.numpy()  # (df - p - 1) V, undefined (NaN) where df <= p + 1
    np.testing.assert_allclose(mode[0], (4.0 - 3) * v[0], rtol=1e-12)
    assert np.isnan(mode[1]).all()


def test_bartlett_samples_have_the_wishart_mean_and_variance_and_are_positive_definite():
    mg.manual_seed(0)
    v = _spd(2, 5)
    d = Wishart(mg.tensor(6.0, dtype=mg.float64), covariance_matrix=mg.tensor(v))
    x = d.sample((20000,)).numpy()
    assert x.shape == (20000, 2, 2) and np.allclose(x, x.transpose(0, 2, 1))
    assert (np.linalg.eigvalsh(x) > 0).all()
    np.testing.assert_allclose(x.mean(0), d.mean.numpy(), rtol=0.03)
    np.testing.assert_allclose(x.var(0), d.variance.numpy(), rtol=0.08)
    # the Monte Carlo mean of -log p is the entropy
    mc = -d.log_prob(mg.tensor(x[:5000])).mean().item()
    assert abs(mc - d.entropy().item()) < 0.1


def test_gradients_of_log_prob_and_rsample_match_finite_differences():
    v = mg.tensor(_spd(2, 6, 2.0), requires_grad=True)
    x = mg.tensor(_spd(2, 7), requires_grad=True)
    df = mg.tensor(4.5, dtype=mg.float64, requires_grad=True)

    def log_prob(v, x, df):  # cholesky reads one triangle: perturb V symmetrically
        return Wishart(df, covariance_matrix=(v + v.mT) / 2).log_prob(x)

    assert gradcheck(log_prob, [v, x, df])
    lower = mg.tensor(np.linalg.cholesky(_spd(2, 8)), requires_grad=True)

    def draw(lower):
        mg.manual_seed(1)  # the same standard draws each call: X is a function of L
        return Wishart(mg.tensor(5.0, dtype=mg.float64), scale_tril=lower.tril()).rsample((3,))

    assert gradcheck(draw, [lower])


def test_bad_arguments_raise_as_in_pytorch_and_low_df_warns():
    v = mg.tensor(_spd(3, 9))
    with pytest.raises(ValueError, match="greater than ndim - 1 = 2"):
        Wishart(2.0, covariance_matrix=v)
    with pytest.raises(AssertionError, match="Exactly one"):
        Wishart(5.0, covariance_matrix=v, scale_tril=v)
    with pytest.raises(ValueError, match="at least two-dimensional"):
        Wishart(5.0, covariance_matrix=mg.ones(3))
    with pytest.warns(UserWarning, match="Low df"):
        Wishart(2.5, covariance_matrix=v)
