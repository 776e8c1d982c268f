"""The Bessel functions of mg.special on arrays (float64 in, float64 out; NumPy or CuPy alike):
J0, J1, Y0, Y1, K0, K1 (and e^x K0, e^x K1), spherical j0, and the Airy function Ai.

PyTorch gives none of these a gradient, so they are array functions, not ops. Each is written
from a representation whose float64 accuracy can be argued, not from fitted coefficients:

- J_n for |x| < 25: Miller's backward recurrence J_{n-1} = (2n/x) J_n - J_{n+1}, started at
  zero far above n = |x|, normalised by J0 + 2 (J2 + J4 + ...) = 1. Backward the recurrence is
  stable (the wanted solution grows), so every J_n has a relative error near 1e-16 * (terms).
- Y0, Y1 for 0 < x < 25: Neumann's series Y0 = (2/pi)(log(x/2) + gamma) J0
  - (4/pi) sum_k (-1)^k J_2k / k over the same J_n, and Y1 = -Y0'.
- J, Y for |x| >= 25: Hankel's asymptotic expansion; its k-th term is about k! / (2x)^k of the
  first, so 24 terms reach 1e-17 at x = 25.
- K_nu for x > 0: e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal
  rule with step 0.1: the integrand is entire and decays doubly exponentially, so the error
  falls like exp(-pi^2 / h), far below float64's precision. This also gives Ai on x > 1:
  Ai(x) = sqrt(x / 3) / pi * K_{1/3}(2/3 x^{3/2}).
- Ai on x <= 1: its Maclaurin series for |x| <= 7 and the oscillating asymptotic form beyond.
  The series' terms reach e^z (z = 2/3 |x|^{3/2}) of a sum of size 1 and the asymptotic form
  stops at a term near e^-2z, so both are worst at x = -7: about 2e-11 absolute there, 1e-14
  for |x| < 3 and for x < -12.
"""

from __future__ import annotations

import math

from ..backend import get_array_module, quiet_fp

EULER_GAMMA = 0.57721566490153286061
_HANKEL_FROM = 25.0


def _hankel(x, nu: int):
    """(P, Q) of Hankel's expansion of order nu at x >= 25:
    J = sqrt(2/(pi x)) (P cos chi - Q sin chi), Y = sqrt(2/(pi x)) (P sin chi + Q cos chi),
    chi = x - (nu/2 + 1/4) pi, the k-th coefficient prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k)."""
    mu = 4.0 * nu * nu
    p, q = 1.0 + 0 * x, 0 * x
    term = 1.0 + 0 * x
    for k in range(1, 25):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        sign = -1.0 if (k // 2) % 2 else 1.0  # P gets the even k, Q the odd, alternating
        if k % 2 == 0:
            p = p + sign * term
        else:
            q = q + sign * term
    return p, q


def _miller(x, orders: int):
    """J_0 .. J_{orders-1} at 0 < |x| < 25 (a list of arrays), by the backward recurrence."""
    xp = get_array_module(x)
    start = 2 * ((int(_HANKEL_FROM) + 40 + orders) // 2)
    j_next, j = 0 * x, 1e-300 + 0 * x
    kept = [None] * orders
    norm = 0 * x
    for n in range(start, 0, -1):  # j = J_n (unnormalised), j_next = J_{n+1}
        if n < orders:
            kept[n] = j
        if n % 2 == 0:
            norm = norm + 2 * j
        j_next, j = j, (2 * n / x) * j - j_next
        big = xp.abs(j) > 1e250  # rescale all kept values together: no overflow
        if bool(big.any()):
            scale = xp.where(big, 1e-250, 1.0)
            j, j_next, norm = j * scale, j_next * scale, norm * scale
            kept = [k if k is None else k * scale for k in kept]
    kept[0] = j
    norm = norm + j
    return [k / norm for k in kept]


def _j_small_and_y(x, need_y: bool):
    """(J0, J1, Y0, Y1) at 0 < |x| < 25 (Y only meaningful for x > 0, when need_y)."""
    xp = get_array_module(x)
    orders = 2 * (int(_HANKEL_FROM) + 20)
    js = _miller(x, orders)
    if not need_y:
        return js[0], js[1], None, None
    ax = xp.abs(x)
    log_term = xp.log(ax / 2) + EULER_GAMMA
    s0, s1 = 0 * x, 0 * x
    for k in range(1, orders // 2 - 1):
        sign = -1.0 if k % 2 else 1.0
        s0 = s0 + sign * js[2 * k] / k
        s1 = s1 + sign * (js[2 * k - 1] - js[2 * k + 1]) / (2 * k)
    y0 = (2 / math.pi) * log_term * js[0] - (4 / math.pi) * s0
    y1 = -((2 / math.pi) * (js[0] / x - log_term * js[1]) - (4 / math.pi) * s1)
    return js[0], js[1], y0, y1


@quiet_fp
def bessel_jy(x, order: int, kind: str):
    """J_order (kind "j") or Y_order (kind "y") of a float64 array, order 0 or 1, with
    PyTorch's edges: NaN at +-inf, Y(0) = -inf, Y(x < 0) = NaN."""
    xp = get_array_module(x)
    ax = xp.abs(x)
    small = (ax < _HANKEL_FROM) & (ax >= 1e-5)
    xs = xp.where(small, x, 1.0)
    j0, j1, y0, y1 = _j_small_and_y(xs if kind == "j" else xp.abs(xs), kind == "y")
    xl = xp.where((ax < _HANKEL_FROM) | ~xp.isfinite(ax), _HANKEL_FROM, ax)
    p, q = _hankel(xl, order)
    chi = xl - (order / 2 + 0.25) * math.pi
    amp = xp.sqrt(2 / (math.pi * xl))
    # |x| < 1e-5 (where 2n/x would overflow the recurrence): the series' first terms
    tiny = ax < 1e-5
    xt = xp.where(tiny & (ax > 0), ax, 1e-5)
    log_term = xp.log(xt / 2) + EULER_GAMMA
    if kind == "j":
        near = j0 if order == 0 else j1
        series = 1 - x * x / 4 if order == 0 else x / 2 - x**3 / 16
        far = amp * (p * xp.cos(chi) - q * xp.sin(chi))
        if order == 1:
            far = xp.where(x < 0, -far, far)  # J1 is odd
        out = xp.where(small & ~tiny, near, xp.where(tiny, series, far))
    else:
        near = y0 if order == 0 else y1
        series = (
            2 / math.pi * (log_term * (1 - xt * xt / 4) + xt * xt / 4)
            if order == 0
            else -2 / (math.pi * xt) + xt / math.pi * (log_term - 0.5)
        )
        far = amp * (p * xp.sin(chi) + q * xp.cos(chi))
        out = xp.where(small & ~tiny, near, xp.where(tiny, series, far))
        out = xp.where(x == 0, -math.inf, out)
        out = xp.where(x < 0, math.nan, out)
    out = xp.where(xp.isinf(x), math.nan, out)  # PyTorch's J and Y at +-inf are NaN
    return xp.where(xp.isnan(x), x, out)


def scaled_k(x, nu: float):
    """e^x K_nu(x) for x > 0 (other entries: garbage, the caller masks them) by the trapezoidal
    rule on int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt. Each element has its own step,
    h = min(0.1, 0.3 / sqrt(x)) (near t = 0 the integrand is a Gaussian of width 1/sqrt(x)), and
    its own end, where x (cosh t - 1) = 60; the rows of the grid are summed in chunks."""
    xp = get_array_module(x)
    xx = xp.where((x > 0) & xp.isfinite(x), x, 1.0)
    h = xp.minimum(0.1, 0.3 / xp.sqrt(xx))
    t_end = xp.arccosh(1 + 60 / xx)
    n = int(float((t_end / h).max())) + 2 if xx.size else 1
    total = 0.5 + 0 * xx  # the t = 0 point, whose trapezoid weight is 1/2
    for first in range(1, n + 1, 256):
        k = xp.arange(first, min(first + 256, n + 1), dtype=xp.float64).reshape(
            (-1,) + (1,) * xx.ndim
        )
        t = k * h[None]
        total = total + (xp.exp(-xx[None] * (xp.cosh(t) - 1)) * xp.cosh(nu * t)).sum(0)
    return h * total


@quiet_fp
def bessel_k(x, order: int, scaled: bool):
    """K_order(x) (or e^x K_order(x)) with PyTorch's edges: inf at 0, NaN below, 0 at inf."""
    xp = get_array_module(x)
    # Below 1e-150 the quadrature's end, arccosh(1 + 60 / x), overflows for subnormal x, while
    # the small-x forms are exact in float64: K0 = -log(x / 2) - gamma (the next term is
    # x^2 log x / 4), K1 = 1 / x (next: x log(x) / 2), and e^x = 1.
    tiny = (x > 0) & (x < 1e-150)
    value = scaled_k(xp.where(tiny, 1.0, x), float(order))
    if not scaled:
        value = value * xp.exp(-xp.where(x > 0, x, 0.0))
    xt = xp.where(tiny, x, 1.0)
    small = -(xp.log(xt) - math.log(2.0)) - EULER_GAMMA if order == 0 else 1 / xt
    value = xp.where(tiny, small, value)
    out = xp.where(x == 0, math.inf, value)
    out = xp.where(x < 0, math.nan, out)
    out = xp.where(xp.isinf(x) & (x > 0), 0.0, out)
    return xp.where(xp.isnan(x), x, out)


@quiet_fp
def spherical_j0(x):
    """j0(x) = sin(x) / x, 1 at 0 (a Taylor form near 0, where sin x / x loses nothing but
    needs 0/0 avoided), 0 at +-inf."""
    xp = get_array_module(x)
    tiny = xp.abs(x) < 0.5
    xs = xp.where(tiny, 1.0, x)
    x2 = x * x
    taylor = 1 - x2 / 6 * (1 - x2 / 20 * (1 - x2 / 42 * (1 - x2 / 72 * (1 - x2 / 110))))
    out = xp.where(tiny, taylor, xp.sin(xs) / xs)
    out = xp.where(xp.isinf(x), 0.0, out)
    return xp.where(xp.isnan(x), x, out)


_AI0 = 0.355028053887817239260  # Ai(0) = 1 / (3^(2/3) Gamma(2/3))
_AIP0 = 0.258819403792806798405  # -Ai'(0) = 1 / (3^(1/3) Gamma(1/3))


@quiet_fp
def airy_ai(x):
    """Ai(x): the decaying solution of y'' = x y. x > 1: through K_{1/3}; -7 <= x <= 1: the
    Maclaurin series Ai(0) f(x) - (-Ai'(0)) g(x); x < -7: the asymptotic form
    pi^-1/2 |x|^-1/4 [sin(z + pi/4) P - cos(z + pi/4) Q], z = 2/3 |x|^{3/2}, summed while
    its terms decrease."""
    xp = get_array_module(x)
    pos = (x > 1) & xp.isfinite(x)
    xpos = xp.where(pos, x, 2.0)
    zeta = 2 / 3 * xpos**1.5
    right = xp.sqrt(xpos / 3) / math.pi * scaled_k(zeta, 1 / 3) * xp.exp(-zeta)
    mid = (x <= 1) & (x >= -7)
    xm = xp.where(mid, x, 0.0)
    f, g = 1.0 + 0 * x, xm.copy()
    tf, tg = 1.0 + 0 * x, xm.copy()
    x3 = xm**3
    for k in range(1, 60):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f, g = f + tf, g + tg
    middle = _AI0 * f - _AIP0 * g
    far = x < -7
    ax = xp.where(far & xp.isfinite(x), -x, 8.0)
    z = 2 / 3 * ax**1.5
    p, q = _airy_pq(z, xp)
    theta = z + math.pi / 4
    left = (xp.sin(theta) * p - xp.cos(theta) * q) / (math.sqrt(math.pi) * ax**0.25)
    out = xp.where(pos, right, xp.where(mid, middle, left))
    out = xp.where(xp.isinf(x), math.nan, out)  # PyTorch's Ai(+-inf) is NaN
    return xp.where(xp.isnan(x), x, out)


def _airy_pq(z, xp):
    """The asymptotic sums of Ai(-x): u_k = Gamma(3k + 1/2) / (54^k k! Gamma(k + 1/2)),
    P = sum_k (-1)^k u_2k z^-2k, Q = sum_k (-1)^k u_{2k+1} z^-(2k+1), each term added only
    while the terms still decrease (past the smallest one the series diverges)."""
    p, q = 1.0 + 0 * z, 0 * z
    u = 1.0
    term_prev = 1.0 + 0 * z
    live = z > 0
    power = 1.0 + 0 * z
    for k in range(1, 40):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / (216 * k * (2 * k - 1))
        power = power / z
        term = u * power
        live = live & (term < term_prev)
        term_prev = term
        sign = -1.0 if (k // 2) % 2 else 1.0
        contrib = xp.where(live, sign * term, 0.0)
        if k % 2 == 0:
            p = p + contrib
        else:
            q = q + contrib
    return p, q
