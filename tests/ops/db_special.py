"""mg.special's functions past the ones with a top-level twin (ndtr, log_ndtr, ndtri, the
Bessel i1 and the scaled i0e / i1e, entr, multigammaln, polygamma, round), and the remaining
pointwise ops: polygamma, frexp, ldexp, logical_not, and the comparisons of whole tensors
(equal, allclose).

The references are textbook forms in float64: Phi(x) = erfc(-x / sqrt 2) / 2, the power series
of I1, sum_j lgamma(x + (1 - j) / 2) for the multivariate gamma, the Euler-Maclaurin tail for
polygamma (references.py).
"""

from __future__ import annotations

import math

import numpy as np

from . import samples as SA
from .core import T
from .db_unary import _vec, pointwise
from .references import erfinv, lgamma, polygamma
from .simple import S, op


def _i1_one(x: float) -> float:
    if math.isnan(x):
        return x
    if math.isinf(x):
        return x
    term, total, k = x / 2, x / 2, 0
    while abs(term) > 1e-17 * abs(total):
        k += 1
        term *= (x / 2) ** 2 / (k * (k + 1))
        total += term
    return total


def _scaled(fn):
    def one(x: float) -> float:
        if math.isnan(x):
            return x
        if math.isinf(x):
            return 0.0
        return fn(x) * math.exp(-abs(x))

    return one


_i1 = _vec(_i1_one)


def _ndtr(x):
    return _vec(lambda v: math.erfc(-v / math.sqrt(2)) / 2)(x)


def _log_ndtr(x):
    def one(v: float) -> float:
        if v > 0:  # log1p keeps the upper tail, where Phi rounds to 1
            return math.log1p(-math.erfc(v / math.sqrt(2)) / 2)
        p = math.erfc(-v / math.sqrt(2)) / 2
        return math.log(p) if p > 0 or math.isnan(p) else -math.inf

    return _vec(one)(x)


def _entr(x):
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        out = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)), 0.0)
    return np.where(np.isnan(x), np.nan, np.where(x < 0, -np.inf, out))


def _multigammaln(x, p):
    x = np.asarray(x, np.float64)
    total = p * (p - 1) / 4 * math.log(math.pi)
    return total + sum(lgamma(x + (1 - j) / 2) for j in range(1, p + 1))


ENTRIES = [
    pointwise("special.ndtr", _ndtr, lo=-4.0, hi=4.0, out=False),
    pointwise(
        "special.log_ndtr",
        _log_ndtr,
        lo=-8.0,
        hi=3.0,
        out=False,
        refused=("float16", "bfloat16"),  # PyTorch's CPU kernel has neither
    ),
    pointwise(
        "special.ndtri",
        lambda p: math.sqrt(2) * erfinv(2 * np.asarray(p, np.float64) - 1),
        lo=0.05,
        hi=0.95,
        edges=(*SA.EDGES, 0.5, 2.0),
        out=False,
        refused=("float16", "bfloat16"),
    ),
    pointwise("special.i1", _i1, lo=-3.0, hi=3.0, out=False),
    pointwise("special.i0e", _vec(_scaled(lambda v: float(np.i0(v)))), lo=-4, hi=4, out=False),
    pointwise("special.i1e", _vec(_scaled(_i1_one)), lo=-4.0, hi=4.0, out=False),
    pointwise("special.entr", _entr, lo=0.1, hi=3.0, out=False),
    pointwise(
        "special.round",
        np.round,
        ints="same",
        lo=-3,
        hi=3,
        out=False,
        refused=("int64", "int32", "uint8", "bool"),  # PyTorch's special.round: floats only
    ),
    op(
        "special.multigammaln",
        _multigammaln,
        lambda m: [
            S(m(3, 4, lo=2.0, hi=5.0), 3),
            S(m(2, 3, lo=1.0, hi=4.0, layout="transposed"), 1),
            S(m(2, 3, lo=3.0, hi=5.0, dtype="float32"), 4),
        ],
        method=False,
    ),
]


def _polygamma_samples(m):
    return [
        S(n, m(3, 4, lo=0.3, hi=4.0), desc=f"n = {n}")
        for n in (0, 1, 2, 3)
    ] + [
        S(1, m(2, 3, lo=0.3, hi=4.0, layout="transposed")),
        S(2, m(2, 3, lo=0.5, hi=3.0, dtype="float32")),
        S(1, m.of([-1.903, -0.5, -2.5, 1e-3]), desc="negative", gradgrad=False),
        S(2, m.of([0.0, -1.0, math.nan, math.inf]), desc="poles", grad=False, ref=False),
    ]  # fmt: skip


def _frexp(x):
    m, e = np.frexp(np.asarray(x, np.float64))
    return m, e.astype(np.int64)


def _ldexp(x, other):
    return np.asarray(x, np.float64) * np.exp2(np.asarray(other, np.float64))


def _allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=False):
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


ENTRIES += [
    op(
        "polygamma",
        lambda n, x: polygamma(n, x),
        _polygamma_samples,
        method=False,
        aliases=("special.polygamma",),
        dtype=lambda s: s.args[1].dtype,
        out=True,
        tol={"float64": (1e-9, 1e-11)},
    ),  # fmt: skip
    op(
        "Tensor.polygamma",
        lambda x, n: polygamma(n, x),
        lambda m: [S(m(3, 4, lo=0.3, hi=4.0), 1), S(m(2, 3, lo=0.5, hi=3.0), 2)],
        method=False,
    ),
    op(
        "frexp",
        _frexp,
        lambda m: [
            S(m(3, 4, lo=-40, hi=40)),
            S(m(2, 3, layout="transposed")),
            S(m.of([0.0, -0.0, 1.0, 0.5, 1e-310, -3.0]), desc="zeros, subnormal", grad=False),
            S(m(2, 3, dtype="float32")),
            S(m.of([6e-8, -3e-5, 1e-7, 65504.0], dtype="float16"), desc="subnormal", grad=False),
        ],
        out=True,
    ),
    op(
        "ldexp",
        _ldexp,
        lambda m: [
            S(m(3, 4), m.ints(-3, 4, 3, 4)),
            S(m(3, 4, layout="transposed"), m.ints(-3, 4, 4), desc="broadcast"),
            S(m(2, 3, dtype="float32"), m.ints(-3, 4, 2, 3)),
        ],
        inplace="ldexp_",
        dtype="float",
        out=True,
    ),
    op(
        "logical_not",
        np.logical_not,
        lambda m: [
            S(m(3, 4)),
            S(m.mask(2, 3)),
            S(m(2, 3, dtype="int64", layout="transposed")),
            S(m.of([0.0, -0.0, math.nan, math.inf]), desc="edges"),
            S(m(0, 3), desc="size-0"),
        ],
        inplace="logical_not_",
        dtype="bool",
        differentiable=False,
        out=True,
    ),
    op(
        "equal",
        lambda a, b: bool(a.shape == b.shape and np.array_equal(a, b)),
        lambda m: [
            S(T(np.arange(6.0).reshape(2, 3)), T(np.arange(6.0).reshape(2, 3))),
            S(m(2, 3), m(2, 3), desc="different values"),
            S(m(2, 3), m(3, 2), desc="different shapes"),
            S(m.of([math.nan]), m.of([math.nan]), desc="nan is not equal"),
        ],
        differentiable=False,
        dtype=None,
    ),
    op(
        "allclose",
        _allclose,
        lambda m: [
            S(T(np.array([1.0, 2.0])), T(np.array([1.0 + 1e-9, 2.0]))),
            S(m(2, 3), m(2, 3), desc="far apart"),
            S(m.of([1.0, math.nan]), m.of([1.0, math.nan]), equal_nan=True, desc="equal_nan"),
            S(m.of([1.0, 2.0]), m.of([1.1, 2.0]), rtol=0.2, desc="rtol"),
            S(m.of([math.inf]), m.of([math.inf]), desc="inf"),
        ],
        method=True,
        differentiable=False,
        dtype=None,
    ),
]
