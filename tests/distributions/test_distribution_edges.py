"""Distributions at the edges of their parameters and supports, against closed forms and
(optionally) PyTorch: Beta's mode with a concentration below 1, and the gradients of Gamma's and
Beta's log-densities where x log y meets 0 log 0."""

import numpy as np

import minigenesis as mg
from minigenesis import distributions as D


def _t(values, grad=False):
    return mg.tensor(np.asarray(values, np.float64), requires_grad=grad)


def test_beta_mode_lies_at_an_end_when_a_concentration_is_below_one():
    # density x^(a-1) (1-x)^(b-1): a < 1 <= b peaks at 0, b < 1 <= a at 1; both below 1: the
    # end of the larger concentration (1 on a tie, PyTorch's rule); a = b = 1 is flat: NaN
    a = _t([0.5, 2.0, 0.7, 0.5, 0.3, 3.0, 1.0], grad=True)
    b = _t([2.0, 0.5, 0.7, 0.9, 0.6, 2.0, 1.0], grad=True)
    mode = D.Beta(a, b).mode
    np.testing.assert_array_equal(mode.detach().numpy()[:5], [0.0, 1.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(mode.detach().numpy()[5], 2.0 / 3.0, rtol=1e-15)
    assert np.isnan(mode.detach().numpy()[6])
    mode[:6].sum().backward()
    # the ends do not move with the concentrations; (a-1)/(a+b-2) at a=3, b=2: d/da = 1/9
    np.testing.assert_allclose(a.grad.numpy()[:6], [0, 0, 0, 0, 0, 1 / 9], atol=1e-15)
    np.testing.assert_allclose(b.grad.numpy()[:6], [0, 0, 0, 0, 0, -2 / 9], atol=1e-15)
