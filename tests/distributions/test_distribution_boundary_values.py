"""Distribution answers at the edges that once differed from PyTorch's, against closed forms and
float64 central differences: Gamma's (and Chi2's, InverseGamma's) cdf, ContinuousBernoulli's cdf
at NaN, Multinomial's log_prob of counts adding up to less than total_count, the half
distributions' log_prob at NaN, and Dirichlet's mode when no concentration exceeds 1."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import distributions as D


def _t(values, grad=False):
    return mg.tensor(np.asarray(values, np.float64), requires_grad=grad)


def test_gamma_cdf_matches_its_closed_forms():
    # P(1, y) = 1 - e^-y, P(2, y) = 1 - e^-y (1 + y), P(1/2, y) = erf(sqrt y), y = rate x
    x = np.array([0.0, 0.1, 0.7, 2.5, 9.0])
    rate = 1.7
    y = rate * x
    erf = np.vectorize(math.erf)
    expected = {
        1.0: 1 - np.exp(-y),
        2.0: 1 - np.exp(-y) * (1 + y),
        0.5: erf(np.sqrt(y)),
    }
    for a, want in expected.items():
        got = D.Gamma(_t(a), _t(rate)).cdf(_t(x)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_chi2_and_inverse_gamma_cdfs_follow_from_gamma():
    x = np.array([0.2, 1.0, 3.0, 8.0])
    # Chi2(2) is Exponential(1/2); InverseGamma(1, b) has cdf exp(-b / x)
    np.testing.assert_allclose(D.Chi2(_t(2.0)).cdf(_t(x)).numpy(), 1 - np.exp(-x / 2), rtol=1e-12)
    np.testing.assert_allclose(
        D.InverseGamma(_t(1.0), _t(1.5)).cdf(_t(x)).numpy(), np.exp(-1.5 / x), rtol=1e-12
    )


def test_gamma_cdf_gradients_match_central_differences():
    a, x0, r0 = 2.3, np.array([0.4, 1.1, 3.0]), 0.8
    x, rate = _t(x0, grad=True), _t(r0, grad=True)
    D.Gamma(_t(a), rate).cdf(x).sum().backward()

    def f(xv, rv):
        return D.Gamma(_t(a), _t(rv)).cdf(_t(xv)).numpy()

    h = 1e-6
    dx = (f(x0 + h, r0) - f(x0 - h, r0)) / (2 * h)
    dr = (f(x0, r0 + h) - f(x0, r0 - h)).sum() / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), dx, rtol=1e-6)
    np.testing.assert_allclose(rate.grad.numpy(), dr, rtol=1e-6)


def test_gamma_cdf_validates_its_value():
    with pytest.raises(ValueError):
        D.Gamma(_t(2.0), _t(1.0)).cdf(_t([-1.0]))


def test_continuous_bernoulli_cdf_is_nan_at_nan_and_clipped_outside_the_unit_interval():
    d = D.ContinuousBernoulli(_t([0.2, 0.5, 0.8]), validate_args=False)
    got = d.cdf(_t([float("nan"), float("nan"), float("nan")])).numpy()
    assert np.isnan(got).all()
    np.testing.assert_array_equal(d.cdf(_t([-0.5, 0.0, -3.0])).numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(d.cdf(_t([1.0, 1.5, 4.0])).numpy(), [1.0, 1.0, 1.0])


def test_multinomial_log_prob_of_counts_below_total_count_uses_their_own_sum():
    # the support admits sum_i x_i <= n (as PyTorch): counts adding up to m get
    # log m! - sum_i log x_i! + sum_i x_i log p_i, the probability of m draws
    p = np.array([0.2, 0.5, 0.3])
    counts = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [2.0, 3.0, 2.0]])
    d = D.Multinomial(7, probs=_t(p))
    got = d.log_prob(_t(counts)).numpy()
    want = [
        math.lgamma(c.sum() + 1)
        - sum(math.lgamma(ci + 1) for ci in c)
        + float((c * np.log(p)).sum())
        for c in counts
    ]
    np.testing.assert_allclose(got, want, rtol=1e-13)


@pytest.mark.parametrize("family", [D.HalfNormal, D.HalfCauchy])
def test_half_distributions_log_prob_is_minus_inf_at_nan_and_below_zero(family):
    d = family(_t([1.3, 1.3, 1.3]), validate_args=False)
    got = d.log_prob(_t([float("nan"), -0.5, 0.7])).numpy()
    assert got[0] == -np.inf and got[1] == -np.inf
    assert np.isfinite(got[2])


def test_dirichlet_mode_when_no_concentration_exceeds_one():
    concentration = _t(
        [
            [0.2, 0.9, 0.1],  # all below 1: PyTorch's first corner, not the largest's
            [0.5, 1.0, 0.3],  # none above 1 but one equal: 0 / 0
            [1.0, 1.0, 1.0],  # flat: 0 / 0
            [2.0, 3.0, 0.5],  # (a - 1)+ / sum (a - 1)+
        ]
    )
    mode = D.Dirichlet(concentration).mode.numpy()
    np.testing.assert_array_equal(mode[0], [1.0, 0.0, 0.0])
    assert np.isnan(mode[1:3]).all()
    np.testing.assert_allclose(mode[3], [1 / 3, 2 / 3, 0.0], rtol=1e-15)


def _geometric_entropy(p):
    # (-p log p - (1 - p) log(1 - p)) / p, with 0 log 0 = 0 at p = 1
    q = 1 - p
    return (-p * np.log(p) - q * np.log1p(-np.where(q > 0, p, 0.0))) / p


def test_geometric_entropy_matches_its_closed_form_from_tiny_to_certain_probs():
    p = np.array([1e-12, 1e-6, 0.01, 0.3, 0.9, 1.0])
    got = D.Geometric(_t(p)).entropy().numpy()
    np.testing.assert_allclose(got, _geometric_entropy(p), rtol=1e-12, atol=1e-15)
    # float32 with p far below float32's eps: about 1 - log p (was eps / p = 1.2e5)
    tiny = D.Geometric(mg.tensor(np.array([1e-12], np.float32))).entropy().numpy()
    np.testing.assert_allclose(tiny, [1 - np.log(1e-12)], rtol=1e-5)


def test_geometric_entropy_gradient_matches_central_differences():
    p0 = np.array([1e-3, 0.2, 0.7, 0.999])
    p = _t(p0, grad=True)
    D.Geometric(p).entropy().sum().backward()
    h = 1e-7
    want = (_geometric_entropy(p0 + h) - _geometric_entropy(p0 - h)) / (2 * h)
    np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-5)
    certain = _t([1.0], grad=True)
    D.Geometric(certain).entropy().sum().backward()
    assert np.isfinite(certain.grad.numpy()).all()


def test_uniform_arg_constraints_bound_each_other_and_answer_check():
    low, high = _t([0.0, 1.0, -2.0]), _t([1.0, 3.0, -1.5])
    d = D.Uniform(low, high)
    assert d.arg_constraints["low"].check(low).numpy().all()
    assert d.arg_constraints["high"].check(high).numpy().all()
    np.testing.assert_array_equal(
        d.arg_constraints["low"].check(_t([0.5, 3.0, -1.0])).numpy(), [True, False, False]
    )
    with pytest.raises(ValueError, match="low"):
        D.Uniform(_t([0.0, 1.0]), _t([1.0, 1.0]))  # low == high: an empty interval
    D.Uniform(_t([0.0, 1.0]), _t([1.0, 1.0]), validate_args=False)  # unchecked when asked


def test_less_than_and_positive_integer_constraints():
    c = D.constraints
    np.testing.assert_array_equal(
        c.less_than(1.0).check(_t([0.0, 1.0, 2.0])).numpy(), [True, False, False]
    )
    np.testing.assert_array_equal(
        c.positive_integer.check(_t([0.0, 1.0, 2.5, 3.0])).numpy(), [False, True, False, True]
    )
    assert c.positive_integer.is_discrete
