"""The special functions' far tails: e^-|x| I0/I1 past I0's overflow, K0/K1 at subnormal x,
and ndtri for p far below 1e-16 (each against a closed form, not a library)."""

import math

import numpy as np
import pytest

import minigenesis as mg


def _hankel(x: np.ndarray, order: int) -> np.ndarray:
    """The first three terms of Hankel's series, good to ~1e-12 relative at x >= 1e4:
    e^-x I_nu(x) ~ (2 pi x)^-1/2 (1 - (mu-1)/(8x) + (mu-1)(mu-9)/(2! (8x)^2)), mu = 4 nu^2."""
    mu = 4 * order * order
    s = 1 - (mu - 1) / (8 * x) + (mu - 1) * (mu - 9) / (2 * (8 * x) ** 2)
    return s / np.sqrt(2 * np.pi * x)


@pytest.mark.parametrize("dtype", [mg.float64, mg.float32])
def test_i0e_and_i1e_stay_finite_past_the_overflow_of_i0(dtype):
    x = np.array([1e4, 1e6, 1e10, 1e30])
    for fn, order in ((mg.special.i0e, 0), (mg.special.i1e, 1)):
        for sign in (1, -1):
            got = fn(mg.tensor(sign * x, dtype=dtype)).double().numpy()
            want = _hankel(x, order) * (sign if order == 1 else 1)
            np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == mg.float32 else 1e-11)


def test_i0e_and_i1e_agree_with_the_scaled_product_where_i0_is_finite():
    x = np.array([20.0, 49.99, 50.0, 50.01, 100.0, 300.0, 700.0])
    np.testing.assert_allclose(
        mg.special.i0e(mg.tensor(x)).numpy(), np.i0(x) * np.exp(-x), rtol=1e-14
    )
    # i1e has no NumPy oracle: it must at least join smoothly at the switch to the series
    below, above = mg.special.i1e(mg.tensor([50 - 1e-9, 50.0], dtype=mg.float64)).numpy()
    assert abs(below - above) < 2e-12  # the slope there is ~6e-4


def test_i0e_gradient_past_the_switch_is_i1e_minus_i0e():
    x = mg.tensor([60.0, 800.0, -900.0, 1e5], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.special.i0e(x).sum(), x)
    xd = x.detach()
    want = mg.special.i1e(xd) - xd.sign() * mg.special.i0e(xd)
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-10)


def test_modified_bessel_k_at_tiny_and_subnormal_arguments():
    x = np.array([5e-324, 1e-320, 1e-300, 1e-200, 1e-151])
    k0 = -(np.log(x) - math.log(2)) - 0.5772156649015329  # K0's first term; the next is x^2 log x
    np.testing.assert_allclose(
        mg.special.modified_bessel_k0(mg.tensor(x, dtype=mg.float64)).numpy(), k0, rtol=1e-15
    )
    np.testing.assert_allclose(
        mg.special.scaled_modified_bessel_k0(mg.tensor(x)).numpy(), k0, rtol=1e-15
    )
    np.testing.assert_allclose(
        mg.special.modified_bessel_k1(mg.tensor(x[2:])).numpy(), 1 / x[2:], rtol=1e-15
    )
    # on both sides of 1e-150 (where the quadrature takes over) the same function
    a, b = mg.special.modified_bessel_k0(
        mg.tensor([0.99e-150, 1.01e-150], dtype=mg.float64)
    ).numpy()
    assert abs((a - b) - math.log(1.01 / 0.99)) < 1e-12


@pytest.mark.parametrize(
    "p", [5e-324, 1e-300, 1e-100, 1e-30, 1e-17, 1e-16, 1e-10, 1e-5, 1e-3, 0.049]
)
def test_ndtri_lower_tail_inverts_ndtr(p):
    x = mg.special.ndtri(mg.tensor([p], dtype=mg.float64))
    assert np.isfinite(x.item())
    # log Phi(x) = log p, the equation ndtri solves (log_ndtr is accurate in this tail)
    assert abs(mg.special.log_ndtr(x).item() - math.log(p)) < 1e-12 * abs(math.log(p))


def test_ndtri_values_and_gradient_in_the_tail():
    # -sqrt(2) erfcinv(2e-16), and d ndtri / dp = 1 / phi(ndtri(p))
    p = mg.tensor([1e-16, 1e-300], dtype=mg.float64, requires_grad=True)
    x = mg.special.ndtri(p)
    assert abs(x[0].item() - -8.222082216130435) < 1e-13
    (g,) = mg.autograd.grad(x.sum(), p)
    xd = x.detach().numpy()
    want = np.sqrt(2 * np.pi) * np.exp(xd * xd / 2)
    np.testing.assert_allclose(g.numpy(), want, rtol=1e-11)
    assert mg.special.ndtri(mg.tensor([0.0, 1.0, -1.0])).tolist()[:2] == [-math.inf, math.inf]


def test_incomplete_gamma_edges_are_decided_in_pytorchs_order():
    nan, inf = math.nan, math.inf
    a = mg.tensor([nan, nan, inf, nan, 0.0, inf, -1.0, 2.0], dtype=mg.float64)
    x = mg.tensor([0.0, inf, nan, 1.0, 0.0, inf, 0.0, 0.0], dtype=mg.float64)
    # x == 0 before a is looked at; x = inf gives 1; a = inf gives 0 unless x is inf too
    np.testing.assert_array_equal(
        mg.special.gammainc(a, x).numpy(), [0.0, 1.0, 0.0, nan, nan, nan, nan, 0.0]
    )
    np.testing.assert_array_equal(
        mg.special.gammaincc(a, x).numpy(), [1.0, 0.0, 1.0, nan, nan, nan, nan, 1.0]
    )


def test_digamma_at_tiny_negative_x_is_minus_one_over_x():
    x = np.array([-1e-20, -1e-300, -1e-10, 1e-20])
    got = mg.digamma(mg.tensor(x)).numpy()
    np.testing.assert_allclose(got, -1 / x - 0.5772156649015329, rtol=1e-15)  # psi ~ -1/x - gamma


def test_lgamma_at_subnormal_and_near_the_poles_matches_math_lgamma():
    x = [5e-324, -5e-324, 1e-310, -1e-300, -6.99966542, -2.0000001, -0.9999999, -100.3]
    got = mg.lgamma(mg.tensor(x, dtype=mg.float64)).numpy()
    np.testing.assert_allclose(got, [math.lgamma(v) for v in x], rtol=1e-13)
