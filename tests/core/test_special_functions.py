"""The special functions (erfc, lgamma, digamma, trigamma, i0, i1, sinc, ndtr, ndtri, entr ...) and
the log-domain helpers (logaddexp, logaddexp2, xlogy, logit, logcumsumexp): values against the
math module, NumPy and closed forms, gradients against float64 central finite differences."""

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(5)
EULER = 0.5772156649015329


def _t(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_erfc_keeps_relative_accuracy_in_the_tail():
    x = np.array([-3.0, -0.5, 0.0, 0.7, 2.0, 5.0, 10.0, 26.0])
    want = [math.erfc(v) for v in x]
    np.testing.assert_allclose(mg.erfc(_t(x)).numpy(), want, rtol=1e-13)
    assert np.isnan(mg.erfc(_t([np.nan])).numpy()).all()


def test_lgamma_matches_math_and_is_inf_at_the_poles():
    x = np.array([-2.5, -0.5, 0.1, 1.0, 2.5, 10.0, 150.0])
    np.testing.assert_allclose(
        mg.lgamma(_t(x)).numpy(), [math.lgamma(v) for v in x], rtol=1e-13, atol=1e-14
    )
    np.testing.assert_array_equal(mg.lgamma(_t([0.0, -1.0, -3.0])).numpy(), np.inf)


def test_digamma_closed_forms_and_derivative_of_lgamma():
    np.testing.assert_allclose(
        mg.digamma(_t([1.0, 0.5])).numpy(), [-EULER, -EULER - 2 * math.log(2)], rtol=1e-13
    )
    x = np.array([-2.3, -0.7, 0.3, 1.7, 4.0, 12.5])
    h = 1e-6
    fd = [(math.lgamma(v + h) - math.lgamma(v - h)) / (2 * h) for v in x]
    np.testing.assert_allclose(mg.digamma(_t(x)).numpy(), fd, rtol=1e-7)
    got = mg.digamma(_t([0.0, -2.0])).numpy()
    assert got[0] == -np.inf and np.isnan(got[1])


def test_trigamma_closed_form():
    got = mg.special.polygamma(1, _t([1.0, 0.5])).numpy()
    np.testing.assert_allclose(got, [math.pi**2 / 6, math.pi**2 / 2], rtol=1e-13)


def test_bessel_i0_and_i1():
    x = np.array([-4.0, -0.3, 0.0, 0.5, 2.0, 9.0, 40.0])
    np.testing.assert_allclose(mg.i0(_t(x)).numpy(), np.i0(x), rtol=1e-12)
    h = 1e-6
    fd = (np.i0(x + h) - np.i0(x - h)) / (2 * h)  # I0' = I1
    np.testing.assert_allclose(mg.special.i1(_t(x)).numpy(), fd, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(
        mg.special.i0e(_t(x)).numpy(), np.i0(x) * np.exp(-np.abs(x)), rtol=1e-12
    )


def test_sinc_ndtr_ndtri_entr():
    x = np.array([-2.5, -1.0, 0.0, 0.3, 1.0, 4.25])
    np.testing.assert_allclose(mg.sinc(_t(x)).numpy(), np.sinc(x), atol=1e-15)
    phi = [0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x]
    np.testing.assert_allclose(mg.special.ndtr(_t(x)).numpy(), phi, rtol=1e-13)
    p = np.array([0.01, 0.3, 0.5, 0.975])
    np.testing.assert_allclose(mg.special.ndtr(mg.special.ndtri(_t(p))).numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(
        mg.special.entr(_t([0.0, 0.5, 2.0])).numpy(), [0, 0.5 * math.log(2), -2 * math.log(2)]
    )
    assert mg.special.entr(_t([-1.0])).item() == -np.inf


@pytest.mark.parametrize(
    "fn, x",
    [
        (mg.erfc, RNG.normal(size=6) * 2),
        (mg.lgamma, RNG.uniform(0.2, 6, size=6)),
        (mg.digamma, RNG.uniform(-3.9, 6, size=6) + 0.05),
        (mg.i0, RNG.normal(size=6) * 3),
        (mg.special.i1, np.array([-2.0, 0.0, 0.4, 3.0])),
        (mg.sinc, np.array([-1.3, 0.0, 0.2, 2.7])),
        (mg.special.ndtri, RNG.uniform(0.05, 0.95, size=5)),
        (mg.special.entr, RNG.uniform(0.1, 3, size=5)),
        (mg.exp2, RNG.normal(size=5)),
        (lambda x: mg.logit(x, eps=0.2), np.array([0.1, 0.3, 0.5, 0.85])),
        (lambda x: mg.logcumsumexp(x.reshape(2, 3), 1), RNG.normal(size=6) * 5),
        (lambda x: mg.special.multigammaln(x, 3), RNG.uniform(1.5, 4, size=4)),
    ],
)
def test_unary_gradients_match_finite_differences(fn, x):
    gradcheck(fn, (_t(x, True),))


@pytest.mark.parametrize(
    "fn", [mg.logaddexp, mg.logaddexp2, mg.hypot, mg.xlogy, mg.ldexp, mg.special.xlog1py]
)
def test_binary_gradients_match_finite_differences(fn):
    a, b = _t(RNG.normal(size=5), True), _t(RNG.uniform(0.2, 3, size=5), True)
    gradcheck(fn, (a, b))


def test_xlogy_is_zero_at_x_zero_but_keeps_its_slope_log_y():
    x, y = _t([0.0, 0.0, 2.0, 0.0], True), _t([0.0, 3.0, 0.5, np.inf], True)
    out = mg.xlogy(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [0.0, 0.0, 2 * math.log(0.5), 0.0])
    out.sum().backward()
    # d/dx = log y (0 where x = 0 and y <= 0); d/dy = x / y (0/0 = NaN at x = y = 0)
    np.testing.assert_allclose(x.grad.numpy(), [0.0, math.log(3), math.log(0.5), np.inf])
    np.testing.assert_allclose(y.grad.numpy(), [np.nan, 0.0, 4.0, 0.0])


def test_logit_gradient_is_zero_outside_the_eps_clamp():
    p = _t([0.05, 0.5, 0.99], True)
    p.logit(eps=0.1).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [0.0, 4.0, 0.0])


def test_logaddexp_and_logcumsumexp_do_not_overflow():
    a, b = _t([1000.0, -1000.0, -np.inf]), _t([1000.0, -1001.0, -np.inf])
    np.testing.assert_allclose(mg.logaddexp(a, b).numpy(), np.logaddexp(a.numpy(), b.numpy()))
    x = _t([-1000.0, 0.0, 0.0, 800.0], True)
    y = x.logcumsumexp(0)
    np.testing.assert_allclose(y.detach().numpy(), np.logaddexp.accumulate(x.detach().numpy()))
    y.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    # dL/dx_j = sum_{i >= j} e^(x_j - y_i) with y = [-1000, 0, log 2, 800]
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.5, 0.5, 1.0])
