"""mg.special's incomplete gamma, zeta, Bessel, Airy and polynomial functions: which inputs
have a gradient (as in PyTorch), the gradients against central differences, and values at
points known in closed form (the op database checks the rest)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.special as S


def test_gammainc_gradient_in_x_is_the_gamma_density() -> None:
    """dP(a, x)/dx = x^(a-1) e^-x / Gamma(a); dQ/dx is its negative."""
    a = mg.tensor([0.5, 2.0, 4.5], dtype=mg.float64)
    x = mg.tensor([0.3, 1.7, 6.0], dtype=mg.float64, requires_grad=True)
    S.gammainc(a, x).sum().backward()
    want = [
        xi ** (ai - 1) * math.exp(-xi) / math.gamma(ai) for ai, xi in zip(a.tolist(), x.tolist())
    ]
    assert np.allclose(x.grad.numpy(), want, rtol=1e-12)
    x.grad = None
    S.gammaincc(a, x).sum().backward()
    assert np.allclose(x.grad.numpy(), -np.array(want), rtol=1e-12)


@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_gammainc_has_no_gradient_in_a(name: str) -> None:
    a = mg.tensor([1.5], dtype=mg.float64, requires_grad=True)
    y = getattr(S, name)(a, mg.tensor([2.0], dtype=mg.float64))
    assert y.requires_grad
    with pytest.raises(NotImplementedError, match="not implemented"):
        y.sum().backward()


def test_zeta_gradient_in_q_and_none_in_x() -> None:
    """d zeta(x, q)/dq = -x zeta(x + 1, q); zeta(2, 1) = pi^2 / 6, zeta(4, 1) = pi^4 / 90."""
    x = mg.tensor([2.0, 4.0], dtype=mg.float64)
    q = mg.tensor([1.0, 1.0], dtype=mg.float64, requires_grad=True)
    y = S.zeta(x, q)
    assert np.allclose(y.detach().numpy(), [math.pi**2 / 6, math.pi**4 / 90], rtol=1e-14)
    y.sum().backward()
    zeta3, zeta5 = 1.2020569031595942, 1.0369277551433699
    assert np.allclose(q.grad.numpy(), [-2 * zeta3, -4 * zeta5], rtol=1e-13)
    with pytest.raises(NotImplementedError, match="zeta"):
        S.zeta(mg.tensor([2.0], requires_grad=True), mg.tensor([1.0])).sum().backward()


@pytest.mark.parametrize(
    "name",
    ["bessel_j0", "bessel_y1", "modified_bessel_k0", "modified_bessel_i1", "airy_ai",
     "spherical_bessel_j0", "scaled_modified_bessel_k1"],
)  # fmt: skip
def test_bessel_functions_have_no_gradient(name: str) -> None:
    x = mg.tensor([0.5, 1.5], requires_grad=True)
    assert not getattr(S, name)(x).requires_grad


def test_polynomials_have_no_gradient_and_take_numbers() -> None:
    x = mg.tensor([0.3, -0.7], requires_grad=True)
    y = S.legendre_polynomial_p(x, 2)
    assert not y.requires_grad
    assert np.allclose(y.numpy(), (3 * x.detach().numpy() ** 2 - 1) / 2)
    assert np.allclose(S.hermite_polynomial_h(0.5, mg.tensor([3.0])).numpy(), [8 * 0.125 - 6])


def test_airy_and_bessel_values_from_tables() -> None:
    """Ai(+-1), Ai(+-2) (Abramowitz & Stegun 10.4), J0/Y0/K0 at 1 (A&S 9.1, 9.8)."""
    ai = S.airy_ai(mg.tensor([-2.0, -1.0, 1.0, 2.0], dtype=mg.float64)).numpy()
    want = [0.22740742820168557, 0.5355608832923521, 0.1352924163128814, 0.03492413042327235]
    assert np.allclose(ai, want, rtol=1e-13)
    one = mg.tensor([1.0], dtype=mg.float64)
    assert math.isclose(float(S.bessel_j0(one)), 0.7651976865579666, rel_tol=1e-14)
    assert math.isclose(float(S.bessel_y0(one)), 0.08825696421567696, rel_tol=1e-13)
    assert math.isclose(float(S.modified_bessel_k0(one)), 0.42102443824070834, rel_tol=1e-14)


def test_bessel_j_satisfies_the_wronskian_over_the_whole_range() -> None:
    """J1 Y0 - J0 Y1 = 2 / (pi x), across the recurrence / asymptotic boundary at x = 25."""
    x = mg.tensor(np.geomspace(1e-3, 200, 400), dtype=mg.float64)
    j0, j1, y0, y1 = (getattr(S, n)(x).numpy() for n in ("bessel_j0", "bessel_j1", "bessel_y0",
                                                          "bessel_y1"))  # fmt: skip
    xs = x.numpy()
    assert np.allclose((j1 * y0 - j0 * y1) * np.pi * xs / 2, 1.0, rtol=0, atol=1e-13)


@pytest.mark.parametrize("degree", [3e38, float("inf"), 2e6])
def test_a_polynomial_of_an_enormous_degree_is_refused_at_once_instead_of_running_forever(degree):
    """The orthogonal polynomials run their recurrence n steps: n = 3e38 would never end, so a
    degree above a million is refused with the reason."""
    x = mg.tensor([0.5, 2.0], dtype=mg.float64)
    for fn in (mg.special.chebyshev_polynomial_t, mg.special.legendre_polynomial_p):
        with pytest.raises(ValueError, match="degree n"):
            fn(x, mg.tensor([3.0, degree], dtype=mg.float64))
    np.testing.assert_allclose(
        mg.special.legendre_polynomial_p(x, mg.tensor(3.0, dtype=mg.float64)).numpy(),
        [(5 * 0.5**3 - 3 * 0.5) / 2, (5 * 8.0 - 6.0) / 2],
    )
