"""Gamma.rsample: the draws carry the implicit gradient dz/dalpha = -(dP/dalpha)(z) / f(z) of a
standard Gamma draw z in its concentration, and x = z / rate carries -x / rate in the rate.
The oracles are float64 arithmetic: the regularized incomplete gamma function (P's power series
here; Q from ops/incomplete_gamma.py, whose Lentz evaluation shares no code with gamma_grad.py)
differentiated in alpha by central differences; and the Monte-Carlo identities
d/dalpha E[X] = 1 / rate and d/dalpha E[log X] = trigamma(alpha) checked on many draws."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.distributions import Chi2, Gamma, InverseGamma
from minigenesis.distributions.gamma_grad import standard_gamma_grad
from minigenesis.ops.incomplete_gamma import gamma_pq


def _gamma_cdf(x: float, a: float) -> float:
    """P(a, x) = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1) ... (a + n))."""
    term, total, n = 1.0, 1.0, 0
    while term > 1e-17 * total:
        n += 1
        term *= x / (a + n)
        total += term
    return math.exp(a * math.log(x) - x - math.lgamma(a + 1)) * total


def _implicit_grad(x: float, a: float) -> float:
    """-(dP/da) / f by a central difference of P (below a + 1) or Q (above, where P ~ 1 would
    cancel), with a step small against P's scale of variation in a (~ sqrt(a), 1 / |log x|)."""
    h = 1e-5 * min(max(1.0, math.sqrt(a)), 1.0 / max(1e-300, abs(math.log(x)))) * max(a, 1e-2)
    h = min(h, a / 2)
    if x < a + 1:
        d_cdf = (_gamma_cdf(x, a + h) - _gamma_cdf(x, a - h)) / (2 * h)
    else:
        q = [float(gamma_pq(np.array(s), np.array(x), upper=True)) for s in (a + h, a - h)]
        d_cdf = -(q[0] - q[1]) / (2 * h)
    pdf = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
    return -d_cdf / pdf


# (alpha, x): small x, the bulk, both sides of the switch at x = alpha + 1, far tails, and very
# small and large alpha (a draw of Gamma(1e-3) is below 1e-100 about 80% of the time)
POINTS = [(0.3, 0.05), (2.0, 0.5), (1.5, 2.0), (4.0, 6.0), (12.0, 12.5), (20.0, 12.0),
          (20.0, 30.0), (6.0, 2.5), (1e-3, 1e-200), (1e-3, 1e-5), (1e-3, 2.0), (0.05, 0.8),
          (1.0, 30.0), (3.0, 4.0 - 1e-9), (3.0, 4.0), (1e3, 950.0), (1e3, 1100.0),
          (1e4, 9900.0), (1e4, 10001.0), (1e4, 10300.0)]  # fmt: skip


@pytest.mark.parametrize(("alpha", "x"), POINTS)
def test_standard_gamma_grad_is_the_implicit_derivative(alpha: float, x: float) -> None:
    got = standard_gamma_grad(np.array([alpha]), np.array([x]))[0]
    assert got == pytest.approx(_implicit_grad(x, alpha), rel=1e-5)


def test_standard_gamma_grad_edges() -> None:
    alpha, x = np.array([2.0, 2.0, -1.0, 2.0, 0.0]), np.array([0.0, np.inf, 1.0, -1.0, 1.0])
    got = standard_gamma_grad(alpha, x)
    assert got[0] == 0.0 and got[1] == 0.0 and np.isnan(got[2:]).all()


def test_rsample_gradients_in_concentration_and_rate() -> None:
    mg.manual_seed(0)
    a = mg.tensor([0.7, 3.0, 15.0], dtype=mg.float64, requires_grad=True)
    rate = mg.tensor([2.0, 0.5, 1.5], dtype=mg.float64, requires_grad=True)
    x = Gamma(a, rate).rsample()
    assert Gamma(a, rate).has_rsample and x.requires_grad
    x.sum().backward()
    xs, an, rn = x.detach().numpy(), a.detach().numpy(), rate.detach().numpy()
    z = xs * rn
    want_a = [_implicit_grad(zi, ai) / ri for zi, ai, ri in zip(z, an, rn)]
    np.testing.assert_allclose(a.grad.numpy(), want_a, rtol=1e-5)
    np.testing.assert_allclose(rate.grad.numpy(), -xs / rn, rtol=1e-12)


def test_rsample_mean_gradient_matches_the_closed_form() -> None:
    """E[X] = alpha / rate, so d/dalpha of the sample mean tends to 1 / rate."""
    mg.manual_seed(1)
    a = mg.tensor(2.5, dtype=mg.float64, requires_grad=True)
    Gamma(a, mg.tensor(2.0, dtype=mg.float64)).rsample((20000,)).mean().backward()
    assert a.grad.item() == pytest.approx(0.5, rel=0.03)


@pytest.mark.parametrize("alpha", [0.01, 0.5, 40.0])
def test_rsample_log_mean_gradient_is_trigamma(alpha: float) -> None:
    """E[log X] = digamma(alpha) - log(rate), so d/dalpha of the mean of log X tends to
    trigamma(alpha) (1e4 at alpha = 0.01: the draws there are mostly far below 1e-30)."""
    mg.manual_seed(2)
    a = mg.tensor(alpha, dtype=mg.float64, requires_grad=True)
    Gamma(a, mg.tensor(3.0, dtype=mg.float64)).rsample((20000,)).log().mean().backward()
    trigamma = sum(1.0 / (alpha + k) ** 2 for k in range(100000)) + 1.0 / (alpha + 1e5)
    assert a.grad.item() == pytest.approx(trigamma, rel=0.04)


def test_chi2_and_inverse_gamma_inherit_rsample_and_sample_shapes_hold() -> None:
    df = mg.tensor([3.0, 5.0], requires_grad=True)
    x = Chi2(df).rsample((4,))
    assert Chi2(df).has_rsample and x.shape == (4, 2) and x.dtype is mg.float32
    assert (x > 0).all()
    x.sum().backward()
    assert df.grad is not None and (df.grad > 0).all()  # larger df, larger draws
    conc = mg.tensor([2.0, 4.0], dtype=mg.float64, requires_grad=True)
    y = InverseGamma(conc, mg.tensor(1.0, dtype=mg.float64)).rsample((3,))
    y.sum().backward()
    assert y.shape == (3, 2) and (conc.grad < 0).all()  # 1 / X falls as X grows


def test_rsample_gradient_on_each_device_is_the_float64_one(device: str) -> None:
    mg.manual_seed(3)
    alpha = np.array([0.01, 0.8, 5.0, 2e3])
    a = mg.tensor(alpha, dtype=mg.float64, device=device, requires_grad=True)
    x = Gamma(a, mg.tensor(2.0, dtype=mg.float64, device=device)).rsample((5,))
    x.sum().backward()
    assert x.device.type == device and a.grad.device.type == device
    z = x.detach().cpu().numpy() * 2.0
    want = standard_gamma_grad(np.broadcast_to(alpha, z.shape), z).sum(0) / 2.0
    np.testing.assert_allclose(a.grad.cpu().numpy(), want, rtol=1e-12)
