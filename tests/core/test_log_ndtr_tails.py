"""special.log_ndtr keeps both tails (log(ndtr(x)) rounds to 0 for large x and to -inf below
x = -38) and multigammaln is +inf at +-inf. References: Python's math.erfc where Phi does not
underflow, and Laplace's continued fraction for Mills' ratio below (independent of the
asymptotic series the implementation uses there)."""

import math

import numpy as np
import pytest

import minigenesis as mg


def _mills_ratio(t: float, depth: int = 400) -> float:
    """R(t) = Phi(-t) / phi(t) = 1 / (t + 1 / (t + 2 / (t + 3 / (t + ...)))) for t > 0."""
    r = t
    for k in range(depth, 0, -1):
        r = t + k / r
    return 1 / r


def _log_ndtr(x: float) -> float:
    if x >= 0:
        return math.log1p(-0.5 * math.erfc(x / math.sqrt(2)))
    if x > -30:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2)))
    return -x * x / 2 - 0.5 * math.log(2 * math.pi) + math.log(_mills_ratio(-x))


def _slope(v: float) -> float:
    """d/dx log Phi(x) = phi(x) / Phi(x): 1 / R(-x) in the lower tail."""
    if v < -30:
        return 1 / _mills_ratio(-v)
    return math.exp(-v * v / 2 - 0.5 * math.log(2 * math.pi) - _log_ndtr(v))


XS = [-1000.0, -40.0, -25.0, -20.0, -19.5, -10.0, -5.0, -1.0, -0.5, 0.0, 3.0, 6.0, 10.0, 30.0]


def test_log_ndtr_is_accurate_in_both_tails_in_float64():
    got = mg.special.log_ndtr(mg.tensor(XS, dtype=mg.float64)).numpy()
    ref = np.array([_log_ndtr(x) for x in XS])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=0)
    assert got[-2] < 0  # -9.87e-10 at x = 6, where log(ndtr(6)) is 0


def test_log_ndtr_of_float32_is_float32_and_keeps_the_upper_tail():
    got = mg.special.log_ndtr(mg.tensor([4.0, 6.0, -20.0, -50.0]))
    assert got.dtype == mg.float32
    ref = [_log_ndtr(x) for x in (4.0, 6.0, -20.0, -50.0)]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6)


def test_log_ndtr_gradient_is_the_inverse_mills_ratio_everywhere():
    x = mg.tensor(XS, dtype=mg.float64, requires_grad=True)
    mg.special.log_ndtr(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [_slope(v) for v in XS], rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("x0", [-30.0, -20.0, -5.0, -1.0, 0.3, 4.0])
def test_log_ndtr_second_derivative_matches_central_differences(x0):
    x = mg.tensor(x0, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.special.log_ndtr(x), x, create_graph=True)
    (h,) = mg.autograd.grad(g, x)

    step = 1e-5 * max(1.0, abs(x0))
    ref = (_slope(x0 + step) - _slope(x0 - step)) / (2 * step)
    np.testing.assert_allclose(h.item(), ref, rtol=1e-6)


def test_log_ndtr_special_values():
    got = mg.special.log_ndtr(mg.tensor([math.inf, -math.inf, math.nan], dtype=mg.float64))
    assert got[0].item() == 0 and got[1].item() == -math.inf and math.isnan(got[2].item())


def test_multigammaln_is_infinite_at_both_infinities():
    got = mg.special.multigammaln(mg.tensor([math.inf, -math.inf, 3.0], dtype=mg.float64), 2)
    ref = math.log(math.pi) / 2 + math.lgamma(3.0) + math.lgamma(2.5)
    np.testing.assert_allclose(got.numpy(), [math.inf, math.inf, ref])
