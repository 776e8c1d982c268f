"""Distributions at the edges of their parameters and supports, against closed forms and
(optionally) PyTorch: Beta's mode with a concentration below 1, and the gradients of Gamma's and
Beta's log-densities where x log y meets 0 log 0."""

import numpy as np

import minigenesis as mg
from minigenesis import distributions as D


def _t(values, grad=False):
    return mg.tensor(np.asarray(values, np.float64), requires_grad=grad)


def test_beta_mode_lies_at_an_end_when_a_concentration_is_below_one():
    # density x^(a-1) (1-x)^(b-1): a < 1 < b peaks at 0, b < 1 < a at 1; both below 1 it is
    # unbounded at both ends: 1, whichever concentration is larger (PyTorch's Dirichlet rule
    # takes the first corner); a = b = 1 (flat) and a < 1 = b, a = 1 > b are 0 / 0: NaN
    a = _t([0.5, 2.0, 0.7, 0.5, 0.3, 3.0, 1.0, 0.5, 1.0], grad=True)
    b = _t([2.0, 0.5, 0.7, 0.9, 0.6, 2.0, 1.0, 1.0, 0.5], grad=True)
    mode = D.Beta(a, b).mode
    np.testing.assert_array_equal(mode.detach().numpy()[:5], [0.0, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_allclose(mode.detach().numpy()[5], 2.0 / 3.0, rtol=1e-15)
    assert np.isnan(mode.detach().numpy()[6:]).all()
    mode[:6].sum().backward()
    # the ends do not move with the concentrations; (a-1)/(a+b-2) at a=3, b=2: d/da = 1/9
    np.testing.assert_allclose(a.grad.numpy()[:6], [0, 0, 0, 0, 0, 1 / 9], atol=1e-15)
    np.testing.assert_allclose(b.grad.numpy()[:6], [0, 0, 0, 0, 0, -2 / 9], atol=1e-15)


def test_gamma_log_prob_gradient_at_x_zero_with_concentration_one_is_finite():
    # log p = a log r + (a - 1) log x - r x - lgamma(a): at a = 1, x = 0 the middle term is
    # 0 log 0 = 0 and (as PyTorch's xlogy) contributes 0 to d/da, leaving log r - digamma(1)
    a, rate = _t([1.0], grad=True), _t([2.0], grad=True)
    log_p = D.Gamma(a, rate).log_prob(_t([0.0]))
    np.testing.assert_allclose(log_p.detach().numpy(), [np.log(2.0)], rtol=1e-15)
    log_p.sum().backward()
    euler_gamma = 0.5772156649015329  # -digamma(1)
    np.testing.assert_allclose(a.grad.numpy(), [np.log(2.0) + euler_gamma], rtol=1e-12)
    np.testing.assert_allclose(rate.grad.numpy(), [0.5], rtol=1e-15)


def test_beta_log_prob_gradient_at_the_ends_of_the_interval_is_finite():
    # a = 1 at x = 0 and b = 1 at x = 1: the 0 log 0 term adds nothing to the gradient
    a, b = _t([1.0, 2.0], grad=True), _t([3.0, 1.0], grad=True)
    log_p = D.Beta(a, b).log_prob(_t([0.0, 1.0]))
    log_p.sum().backward()
    assert np.all(np.isfinite(a.grad.numpy())) and np.all(np.isfinite(b.grad.numpy()))
    # d/da of -log B(a, b) = digamma(a + b) - digamma(a): at (1, 3) psi(4) - psi(1) = 1 + 1/2 + 1/3
    np.testing.assert_allclose(a.grad.numpy()[0], 1 + 1 / 2 + 1 / 3, rtol=1e-12)
