"""mg.special's Bessel, Airy, incomplete gamma, zeta and orthogonal-polynomial functions.

The references are independent of the implementations: the Bessel and Airy functions by
Gauss-Legendre quadrature of their integral representations (Bessel's, Schlaefli's, the
e^-x cosh t integral of K; 400 nodes, exact to float64 for these analytic integrands); the
incomplete gamma function by its closed forms at a = 1/2, 1, 3/2, 2, 3, 5 (erf, exp and a
finite sum); zeta by its direct sum and integral tail; the polynomials by NumPy's own
Chebyshev, Hermite, Laguerre and Legendre series (numpy.polynomial) and the identities
U_n = 2 (T_n + T_{n-2} + ...) - [n even], V_n = U_n - U_{n-1}, W_n = U_n + U_{n-1}.

PyTorch gives the Bessel, Airy and polynomial functions no gradient and no 2-byte float
kernels; it differentiates gammainc / gammaincc in x only and zeta in q only.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.polynomial import chebyshev, hermite, hermite_e, laguerre, legendre

from .core import T
from .simple import S, op

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(400)


def _gauss(f, lo: float, hi: float) -> float:
    t = (hi - lo) / 2 * _NODES + (hi + lo) / 2
    return float((hi - lo) / 2 * np.sum(_WEIGHTS * f(t)))


def _elementwise(fn):
    def ref(*arrays):
        arrays = np.broadcast_arrays(*(np.asarray(a, np.float64) for a in arrays))
        out = np.empty(arrays[0].shape)
        for i in np.ndindex(out.shape):
            out[i] = fn(*(float(a[i]) for a in arrays))
        return out

    return ref


def _jn(n: int, x: float) -> float:
    """J_n(x) = (1/pi) int_0^pi cos(n t - x sin t) dt."""
    return _gauss(lambda t: np.cos(n * t - x * np.sin(t)), 0.0, math.pi) / math.pi


def _yn(n: int, x: float) -> float:
    """Y_n(x) = (1/pi) int_0^pi sin(x sin t - n t) dt
    - (1/pi) int_0^inf (e^(n t) + (-1)^n e^(-n t)) e^(-x sinh t) dt  (x > 0)."""
    if x == 0:
        return -math.inf
    if x < 0:
        return math.nan
    first = _gauss(lambda t: np.sin(x * np.sin(t) - n * t), 0.0, math.pi)
    end = math.asinh(60 / x) + 1
    second = _gauss(
        lambda t: (np.exp(n * t) + (-1) ** n * np.exp(-n * t)) * np.exp(-x * np.sinh(t)), 0.0, end
    )
    return (first - second) / math.pi


def _kn(nu: float, x: float, scaled: bool = False) -> float:
    """K_nu(x) = int_0^inf e^(-x cosh t) cosh(nu t) dt (x > 0), split at t = 1 for small x."""
    if x == 0:
        return math.inf
    if x < 0:
        return math.nan
    end = math.acosh(1 + 60 / x) + 1
    shift = x if scaled else 0.0

    def f(t):
        return np.exp(-x * np.cosh(t) + shift) * np.cosh(nu * t)

    return _gauss(f, 0.0, min(1.0, end)) + (_gauss(f, 1.0, end) if end > 1 else 0.0)


def _jnu(nu: float, z: float) -> float:
    """Schlaefli: J_nu(z) = (1/pi) int_0^pi cos(nu t - z sin t) dt
    - sin(nu pi)/pi int_0^inf e^(-z sinh t - nu t) dt."""
    first = _gauss(lambda t: np.cos(nu * t - z * np.sin(t)), 0.0, math.pi)
    end = math.asinh(60 / z) + 1
    second = _gauss(lambda t: np.exp(-z * np.sinh(t) - nu * t), 0.0, end)
    return first / math.pi - math.sin(nu * math.pi) / math.pi * second


def _airy(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return math.nan
    if abs(x) < 1e-8:  # Ai(0) + Ai'(0) x
        return 1 / (3 ** (2 / 3) * math.gamma(2 / 3)) - x / (3 ** (1 / 3) * math.gamma(1 / 3))
    z = 2 / 3 * abs(x) ** 1.5
    if x > 0:  # Ai(x) = sqrt(x / 3) K_{1/3}(z) / pi
        return math.sqrt(x / 3) * _kn(1 / 3, z) / math.pi
    return math.sqrt(-x) / 3 * (_jnu(1 / 3, z) + _jnu(-1 / 3, z))


def _bessel_ref(fn, edges: dict):
    def one(x: float) -> float:
        if math.isnan(x):
            return x
        if x in edges:
            return edges[x]
        return fn(x)

    return _elementwise(one)


_INF = {math.inf: math.nan, -math.inf: math.nan}  # PyTorch's J, Y, I at +-inf: NaN
_J_EDGES = [0.0, math.inf, -math.inf, math.nan, 25.0, -30.5, 1e-8, 2e-5, -1e-300]
_Y_EDGES = [0.0, math.inf, -1.0, math.nan, 25.0, 30.5, 1e-8, 2e-5, 1e-300]
_I_EDGES = [0.0, -3.0, math.inf, math.nan]
_SINC_EDGES = {math.inf: 0.0, -math.inf: 0.0, 0.0: 1.0}
_K_EDGES = [0.0, math.inf, -1.0, math.nan, 1e-8, 50.0]


def _unary(name: str, ref, lo: float, hi: float, edges: list, extra=()) -> object:
    return op(
        f"special.{name}",
        ref,
        lambda m: [
            S(m(4, 5, lo=lo, hi=hi)),
            S(m(3, 4, lo=lo, hi=hi, layout="transposed"), desc="transposed"),
            S(m(3, 4, lo=lo, hi=hi, dtype="float32")),
            S(m.of(edges), desc="edges"),
            S(m(3, lo=0, hi=5, dtype="int64"), desc="integers compute in float32"),
            *extra,
        ],
        method=False,
        dtype="float",
        differentiable=False,
        out=True,
        errors=lambda m: [(S(m(3, dtype="float16")), NotImplementedError)],
    )


def _i_series(order: int):
    def one(x: float) -> float:
        term = (x / 2) ** order / math.factorial(order)
        total, k = term, 0
        while abs(term) > 1e-18 * abs(total):
            k += 1
            term *= (x / 2) ** 2 / (k * (k + order))
            total += term
        return total

    return one


ENTRIES = [
    _unary("bessel_j0", _bessel_ref(lambda x: _jn(0, x), {**_INF, 0.0: 1.0}), -30, 30, _J_EDGES),
    _unary("bessel_j1", _bessel_ref(lambda x: _jn(1, x), {**_INF, 0.0: 0.0}), -30, 30, _J_EDGES),
    _unary("bessel_y0", _bessel_ref(lambda x: _yn(0, x), _INF), 0.1, 30, _Y_EDGES),
    _unary("bessel_y1", _bessel_ref(lambda x: _yn(1, x), _INF), 0.1, 30, _Y_EDGES),
    _unary("modified_bessel_i0", _bessel_ref(_i_series(0), _INF), -10, 10, _I_EDGES),
    _unary("modified_bessel_i1", _bessel_ref(_i_series(1), _INF), -10, 10, _I_EDGES),
    _unary("modified_bessel_k0", _bessel_ref(lambda x: _kn(0, x), {math.inf: 0.0}), 0.01, 20,
           _K_EDGES),
    _unary("modified_bessel_k1", _bessel_ref(lambda x: _kn(1, x), {math.inf: 0.0}), 0.01, 20,
           _K_EDGES),
    _unary("scaled_modified_bessel_k0", _bessel_ref(lambda x: _kn(0, x, True), {math.inf: 0.0}),
           0.01, 600, _K_EDGES),
    _unary("scaled_modified_bessel_k1", _bessel_ref(lambda x: _kn(1, x, True), {math.inf: 0.0}),
           0.01, 600, _K_EDGES),
    _unary("spherical_bessel_j0", _bessel_ref(lambda x: math.sin(x) / x, _SINC_EDGES), -20, 20,
           [0.0, 1e-9, -0.3, math.inf, math.nan]),
    _unary("airy_ai", _bessel_ref(_airy, {}), -6, 6, [0.0, 1e-300, -7.0, -7.01, -12.0, 3.0,
                                                     math.inf, -math.inf, math.nan]),
]  # fmt: skip


# ---------------------------------------------------------------------- incomplete gamma, zeta
def _lower_gamma_closed(a: float, x: float) -> float:
    """P(a, x) at a = 1/2, 1, 3/2 and integers: erf, exp and a finite sum (NaN off the domain)."""
    if math.isnan(a) or math.isnan(x) or a < 0 or x < 0:
        return math.nan
    if x == math.inf:
        return 1.0
    if a == 0.5:
        return math.erf(math.sqrt(x))
    if a == 1.5:
        return math.erf(math.sqrt(x)) - 2 * math.sqrt(x / math.pi) * math.exp(-x)
    n = int(a)  # Q(n, x) = e^-x sum_{k < n} x^k / k!
    return 1 - math.exp(-x) * sum(x**k / math.factorial(k) for k in range(n))


def _upper_gamma_closed(a: float, x: float) -> float:
    if x == math.inf and not math.isnan(a) and a >= 0:
        return 0.0
    if a == 0.5 and x >= 0:
        return math.erfc(math.sqrt(x))
    if a >= 1 and a == int(a) and x >= 0:
        return math.exp(-x) * sum(x**k / math.factorial(k) for k in range(int(a)))
    return 1 - _lower_gamma_closed(a, x)


def _gamma_samples(m):
    a = T(np.array([0.5, 1.0, 1.5, 2.0, 3.0, 5.0]).reshape(6, 1), grad=False)
    return [
        S(a, m(1, 5, lo=0.01, hi=12.0)),
        S(a, m(1, 5, lo=0.01, hi=6.0, dtype="float32")),
        S(T(np.array([0.5, 2.0, 5.0]), grad=False), m.of([0.0, 40.0, 1e-3]), grad=False),
        S(T(np.array([-1.0, 2.0, math.nan, 3.0]), grad=False), m.of([1.0, -1.0, 1.0, math.inf]),
          desc="off the domain", grad=False),
    ]  # fmt: skip


def _zeta_ref(x: float, q: float) -> float:
    """sum_{k < 2000} (k + q)^-x + the Euler-Maclaurin tail from w = q + 2000 (two terms)."""
    if x < 1:
        return math.nan
    if x == 1 or (q <= 0 and q == int(q)):
        return math.inf
    w = q + 2000
    head = math.fsum((k + q) ** -x for k in range(2000))
    return head + w ** (1 - x) / (x - 1) + 0.5 * w**-x + x / 12 * w ** (-x - 1)


def _zeta_samples(m):
    return [
        S(T(np.array([2.0, 3.0, 4.5, 10.0]).reshape(4, 1), grad=False), m(1, 3, lo=0.2, hi=5.0)),
        S(T(np.array([2.0, 1.5]), grad=False), m(3, 2, lo=0.5, hi=3.0, dtype="float32")),
        S(2.0, m(4, lo=0.5, hi=4.0), desc="a number x"),
        S(T(np.array([1.0, 0.5, 2.0]), grad=False), m.of([1.0, 1.0, -2.0]),
          desc="pole, x < 1, q a pole", grad=False),
    ]  # fmt: skip


ENTRIES += [
    op("special.gammainc", _elementwise(_lower_gamma_closed), _gamma_samples, method=False,
       dtype="promote", gradgrad=False, out=True,
       errors=lambda m: [(S(m(3, dtype="int64"), m(3, dtype="int64")), NotImplementedError),
                         (S(m(3), 2.5), TypeError)]),
    op("special.gammaincc", _elementwise(_upper_gamma_closed), _gamma_samples, method=False,
       dtype="promote", gradgrad=False, out=True,
       errors=lambda m: [(S(m(3, dtype="int64"), m(3, dtype="int64")), NotImplementedError),
                         (S(m(3), 2.5), TypeError)]),
    op("special.zeta", _elementwise(_zeta_ref), _zeta_samples, method=False, dtype="float",
       gradgrad=False, out=True,
       errors=lambda m: [(S(m(3, dtype="float16"), 2.0), NotImplementedError)]),
]  # fmt: skip


# ------------------------------------------------------------------------ orthogonal polynomials
def _series_ref(evaluate, shift: bool = False):
    def one(x: float, n: float) -> float:
        if math.isnan(n) or n < 0:
            return 0.0
        xs = 2 * x - 1 if shift else x
        return float(evaluate(xs, int(n)))

    return _elementwise(one)


def _basis(values, k):
    c = np.zeros(k + 1)
    c[k] = 1.0
    return values(c)


def _cheb_t(x, n):
    return chebyshev.chebval(x, _basis(lambda c: c, n))


def _cheb_u(x, n):
    if n < 0:
        return 0.0
    total = sum(_cheb_t(x, j) for j in range(n, -1, -2))
    return 2 * total - (1.0 if n % 2 == 0 else 0.0)


_POLYNOMIALS = {
    "chebyshev_polynomial_t": _cheb_t,
    "chebyshev_polynomial_u": _cheb_u,
    "chebyshev_polynomial_v": lambda x, n: _cheb_u(x, n) - _cheb_u(x, n - 1),
    "chebyshev_polynomial_w": lambda x, n: _cheb_u(x, n) + _cheb_u(x, n - 1),
    "hermite_polynomial_h": lambda x, n: hermite.hermval(x, _basis(lambda c: c, n)),
    "hermite_polynomial_he": lambda x, n: hermite_e.hermeval(x, _basis(lambda c: c, n)),
    "laguerre_polynomial_l": lambda x, n: laguerre.lagval(x, _basis(lambda c: c, n)),
    "legendre_polynomial_p": lambda x, n: legendre.legval(x, _basis(lambda c: c, n)),
}


def _polynomial_samples(m, lo: float, hi: float):
    n = T(np.arange(0.0, 9.0).reshape(9, 1), grad=False)
    return [
        S(m(1, 6, lo=lo, hi=hi), n),
        S(m(1, 4, lo=lo, hi=hi, dtype="float32"), n),
        S(m(5, lo=lo, hi=hi), 3, desc="a number n"),
        S(m.of([lo, hi, 0.5, 1.0, -1.0]), T(np.array([2.7, 4.0, -1.0, 12.0, 13.0]), grad=False),
          desc="n truncated, n < 0, |x| = 1"),
        S(0.5, T(np.array([2.0, 3.0]), grad=False), desc="a number x"),
    ]  # fmt: skip


def _polynomial_entry(name: str, evaluate, shift: bool = False):
    lo, hi = (0.0, 1.0) if shift else (-1.2, 1.2)
    return op(
        f"special.{name}",
        _series_ref(evaluate, shift),
        lambda m: _polynomial_samples(m, lo, hi),
        method=False,
        dtype="float",
        differentiable=False,
        out=True,
        tol={"float64": (1e-10, 1e-10)},
        errors=lambda m: [(S(m(3, dtype="bfloat16"), 2), NotImplementedError)],
    )


ENTRIES += [_polynomial_entry(name, fn) for name, fn in _POLYNOMIALS.items()]
ENTRIES += [
    _polynomial_entry(f"shifted_{name}", _POLYNOMIALS[name], shift=True)
    for name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                 "chebyshev_polynomial_w")
]  # fmt: skip
