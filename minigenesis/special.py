"""``mg.special``: PyTorch's torch.special, the special functions under their SciPy names.

Each is a Tensor method or a short composition of them, so each is differentiable:
``expit`` is the sigmoid, ``gammaln`` is lgamma, ``ndtr`` the standard normal CDF
Phi(x) = erfc(-x / sqrt 2) / 2 and ``ndtri`` its inverse sqrt(2) erfinv(2p - 1).
"""

from __future__ import annotations

import math
from typing import Any

from . import dtypes as _dt
from ._tensor import Tensor
from .backend import get_array_module
from .ops import bessel as _B
from .ops import orthogonal_polynomials as _OP
from .ops import special_functions as _SF
from .ops.erfcx import Erfcx as _Erfcx
from .ops.incomplete_gamma import HurwitzZeta as _Zeta
from .ops.incomplete_gamma import IncompleteGamma as _IncompleteGamma
from .ops.round_once import in_float32 as _in_float32
from .out_arg import with_out as _with_out
from .promotion import float_in as _float_in
from .promotion import result_type as _result_type
from .tensor_pointwise import _float_pair


def erf(input: Tensor) -> Tensor:  # noqa: A002
    return input.erf()


def erfc(input: Tensor) -> Tensor:  # noqa: A002
    return input.erfc()


def erfcx(input: Tensor) -> Tensor:  # noqa: A002
    """exp(x^2) erfc(x), the scaled complementary error function: finite where erfc underflows
    (about 1 / (sqrt(pi) x) for large x); d/dx = 2 x erfcx(x) - 2/sqrt(pi). See ops/erfcx.py."""
    return _Erfcx.apply(_float_in(input))


def erfinv(input: Tensor) -> Tensor:  # noqa: A002
    return input.erfinv()


def expit(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + e^-x), the logistic sigmoid."""
    return input.sigmoid()


def logit(input: Tensor, eps: float | None = None) -> Tensor:  # noqa: A002
    return input.logit(eps)


@_with_out
def xlogy(input: Any, other: Any) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):  # a number times the log of a tensor
        return _scalar_first(input, other, "xlogy")
    return input.xlogy(other)


@_with_out
def xlog1py(input: Any, other: Any) -> Tensor:  # noqa: A002
    if not isinstance(input, Tensor):
        return _scalar_first(input, other, "xlog1py")
    return input.xlog1py(other)


def _scalar_first(x: Any, other: Tensor, name: str) -> Tensor:
    """xlogy(number, tensor): the number as a 0-d tensor of the tensor's float dtype."""
    y = _float_in(other)
    xs = Tensor._make(get_array_module(y._data).asarray(x, dtype=y._data.dtype), False)
    return getattr(xs, name)(y)


def gammaln(input: Tensor) -> Tensor:  # noqa: A002
    """log |Gamma(x)|."""
    return input.lgamma()


def digamma(input: Tensor) -> Tensor:  # noqa: A002
    """psi(x) = d/dx log Gamma(x)."""
    return input.digamma()


psi = digamma


@_with_out
def polygamma(n: int, input: Tensor) -> Tensor:  # noqa: A002
    """The n-th derivative of digamma."""
    return input.polygamma(n)


def multigammaln(input: Tensor, p: int) -> Tensor:  # noqa: A002
    """log of the multivariate gamma function:
    p (p - 1) / 4 log(pi) + sum_{j=0}^{p-1} lgamma(x - j/2)."""
    if p < 1:
        raise ValueError(f"multigammaln(): p has to be greater than or equal to 1, got {p}")
    out = input.lgamma()  # the j = 0 term first: a start of 0 * x would be NaN at x = +-inf
    for j in range(1, p):
        out = out + (input - j / 2).lgamma()
    return out + p * (p - 1) / 4 * math.log(math.pi)


def sinc(input: Tensor) -> Tensor:  # noqa: A002
    return input.sinc()


def ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """Phi(x) = erfc(-x / sqrt 2) / 2, the standard normal CDF."""
    return _in_float32(lambda x: (x * (-1 / math.sqrt(2))).erfc() * 0.5, _float_in(input))


def log_ndtr(input: Tensor) -> Tensor:  # noqa: A002
    """log Phi(x), accurate in both tails (computed in float64, rounded to the input's dtype).

    log(ndtr(x)) loses both tails: for large x, Phi(x) rounds to 1 and the log to 0 (the true
    value is -Phi(-x), e.g. -1e-9 at x = 6); for x < -38, Phi(x) underflows and the log is -inf
    (the true value is about -x^2 / 2). So three forms, each fed only its own range (a ``where``
    on the input, so no branch sees values whose gradient would be inf or NaN):
    - x >= -1: log1p(-Phi(-x)) = log1p(-erfc(x / sqrt 2) / 2);
    - -20 <= x < -1: log(erfc(-x / sqrt 2) / 2), Phi(x) >= 2.8e-89 here;
    - x < -20: the asymptotic series of Mills' ratio,
      log Phi(x) = -x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 + 3/x^4 - 15/x^6 + ...),
      whose terms at |x| >= 20 fall below float64's precision by the 9th."""
    _refuse_two_byte_floats(input, "log_ndtr_cpu")
    x = _float_in(input)
    x64 = x.double()
    r2 = 1 / math.sqrt(2)
    upper = x64.where(x64 >= -1, -1.0)
    middle = x64.clamp(min=-20.0).where(x64 < -1, -2.0)
    lower = x64.where(~(x64 >= -20), -21.0)  # NaN goes here and stays NaN
    upper_value = ((upper * r2).erfc() * -0.5).log1p()
    middle_value = ((middle * -r2).erfc() * 0.5).log()
    inv_x2 = 1 / (lower * lower)
    series, term = 1 + 0 * inv_x2, 1 + 0 * inv_x2
    for k in range(1, 10):  # term_k = (-1)^k (2k - 1)!! / x^(2k)
        term = term * (-(2 * k - 1)) * inv_x2
        series = series + term
    lower_value = lower * lower * -0.5 - (-lower).log() - 0.5 * math.log(2 * math.pi) + series.log()
    out = upper_value.where(x64 >= -1, middle_value.where(x64 >= -20, lower_value))
    return out.to(x.dtype)


def ndtri(input: Tensor) -> Tensor:  # noqa: A002
    """Phi^-1(p) = sqrt(2) erfinv(2p - 1), the standard normal quantile function.

    Below p = 0.05 that form loses the lower tail: 2p - 1 keeps only p's digits above 1e-16
    (a relative error of 1e-3 at p = 1e-16, and -inf below). There x solves
    log Phi(x) = log p by Newton's method in log space, x <- x - (log Phi(x) - log p) / r(x),
    r = phi / Phi = exp(log phi - log Phi), from the guess of Abramowitz & Stegun 26.2.23
    (error < 4.5e-4; four steps reach float64's precision). The gradient flows through the
    last steps, whose derivative in p is 1 / (p r) = 1 / phi(x), the inverse's (computed in
    float64, rounded to the input's dtype)."""
    _refuse_two_byte_floats(input, "ndtri_cpu")
    p = _float_in(input)
    tail = (p > 0) & (p < 0.05)
    # each branch sees only its own entries, so neither's inf gradient meets where's zeros
    central = (p.where(~tail, 0.5) * 2 - 1).erfinv() * math.sqrt(2)
    p64 = p.double().where(tail, 0.01)
    log_p = p64.log()
    t = (log_p * -2).sqrt().detach()
    x = -(
        t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
        / (1 + t * (1.432788 + t * (0.189269 + 0.001308 * t)))
    )
    for _ in range(4):
        log_phi = x * x * -0.5 - 0.5 * math.log(2 * math.pi)
        lphi = log_ndtr(x)
        x = x - (lphi - log_p) / (log_phi - lphi).exp()
    return x.to(p.dtype).where(tail, central)


def _refuse_two_byte_floats(x: Tensor, kernel: str) -> None:
    """PyTorch's CPU kernel of log_ndtr / ndtri has no float16 or bfloat16 version."""
    if x.dtype in (_dt.float16, _dt.bfloat16):
        name = _dt.scalar_type_name(x.dtype)
        raise NotImplementedError(f'"{kernel}" not implemented for {name!r}')


def i0(input: Tensor) -> Tensor:  # noqa: A002
    """I0(x), the modified Bessel function of the first kind of order 0."""
    return input.i0()


def i1(input: Tensor) -> Tensor:  # noqa: A002
    """I1(x), the modified Bessel function of the first kind of order 1."""
    return _SF.I1.apply(_float_in(input))


def i0e(input: Tensor) -> Tensor:  # noqa: A002
    """e^-|x| I0(x), the exponentially scaled I0 (0 at x = +-inf, its limit, as PyTorch; so is
    its gradient there: the product is taken at a finite stand-in, or inf * 0 makes it NaN).
    From |x| = 50 on it is Hankel's series (_scaled_i_large), as I0(x) overflows past ~713."""
    return _in_float32(_i0e, _float_in(input))


def _i0e(x: Tensor) -> Tensor:
    finite = ~x.isinf()
    large = x.abs() >= _I_ASYMPTOTIC_FROM
    xs = x.where(finite & ~large, 0.0)
    small = xs.i0() * (-xs.abs()).exp()
    big = _scaled_i_large(x.abs().where(finite & large, _I_ASYMPTOTIC_FROM), 0)
    return big.where(large, small).where(finite, 0.0)


def i1e(input: Tensor) -> Tensor:  # noqa: A002
    """e^-|x| I1(x), the exponentially scaled I1 (+-0 at x = +-inf, its limit, as PyTorch; its
    gradient there is 0, the product taken at a finite stand-in as in i0e). From |x| = 50 on
    it is sign(x) times Hankel's series (_scaled_i_large), as I1(x) overflows past ~713."""
    return _in_float32(_i1e, _float_in(input))


def _i1e(x: Tensor) -> Tensor:
    finite = ~x.isinf()
    large = x.abs() >= _I_ASYMPTOTIC_FROM
    xs = x.where(finite & ~large, 0.0)
    small = i1(xs) * (-xs.abs()).exp()
    big = _scaled_i_large(x.abs().where(finite & large, _I_ASYMPTOTIC_FROM), 1) * x.sign().detach()
    return big.where(large, small).where(finite, x.sign().detach() * 0.0)


# Where i0e / i1e switch from e^-|x| I(x) (I0(50) ~ 3e20: no overflow, even in float32) to the
# asymptotic series, whose terms at x >= 50 fall below 1e-17 of the first within 20 terms.
_I_ASYMPTOTIC_FROM = 50.0


def _scaled_i_large(x: Tensor, order: int) -> Tensor:
    """e^-x I_nu(x) for x >= 50 by Hankel's asymptotic series (Abramowitz & Stegun 9.7.1):
    e^-x I_nu(x) ~ (2 pi x)^-1/2 sum_k (-1)^k a_k / x^k,
    a_k = prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! 8^k).
    Term k is term k-1 times -(4 nu^2 - (2k-1)^2) / (8 k x); at x >= 50 that ratio is below
    k / 100, so 30 terms reach float64's precision. Made of ops, so it is differentiable."""
    mu = 4 * order * order
    inv = 1 / x
    term = inv * 0 + 1
    total = term
    for k in range(1, 30):
        term = term * (-(mu - (2 * k - 1) ** 2) / (8 * k)) * inv
        total = total + term
    return total / x.sqrt() * (1 / math.sqrt(2 * math.pi))  # (2 pi x would overflow float32)


def entr(input: Tensor) -> Tensor:  # noqa: A002
    """-x log x for x > 0, 0 at x = 0, -inf for x < 0;   d/dx = -(log x + 1)."""
    return _SF.Entr.apply(_float_in(input))


def exp2(input: Tensor) -> Tensor:  # noqa: A002
    return input.exp2()


def expm1(input: Tensor) -> Tensor:  # noqa: A002
    return input.expm1()


def log1p(input: Tensor) -> Tensor:  # noqa: A002
    return input.log1p()


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001, A002
    """Round half to even (``decimals`` places); floating-point input only, as PyTorch's
    special.round (mg.round / Tensor.round take integers too)."""
    if not input.is_floating_point():
        raise NotImplementedError(
            f'"round_vml_cpu" not implemented for {_dt.scalar_type_name(input.dtype)!r}'
        )
    return input.round(decimals)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    x = input if dtype is None else input.to(dtype)
    return x.softmax(dim)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:  # noqa: A002
    x = input if dtype is None else input.to(dtype)
    return x.log_softmax(dim)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:  # noqa: A002
    return input.logsumexp(dim, keepdim)


# ------------------------------------------------------------------------------------------------
# Incomplete gamma and Hurwitz zeta (ops/incomplete_gamma.py): differentiable in x / q only
# ------------------------------------------------------------------------------------------------
_KERNEL_TYPE_NAMES = {
    "float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int",
    "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
}  # fmt: skip


def _refuse(t: Tensor, kernel: str, kinds: tuple) -> None:
    """PyTorch's CPU kernels of these functions exist for some dtypes only: the others raise
    NotImplementedError naming the kernel and the dtype, as PyTorch's do."""
    if t.dtype.name in kinds:
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{_KERNEL_TYPE_NAMES[t.dtype.name]}'"
        )


_HALF = ("float16", "bfloat16")


def _tensors_only(input: Any, other: Any, name: str) -> None:  # noqa: A002
    """gammainc and gammaincc take two tensors (PyTorch has no overload with a number)."""
    for position, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                f"not {type(value).__name__}"
            )


def _refuse_integral(input: Any, other: Any, kernel: str) -> None:  # noqa: A002
    """igamma has no integer kernel: PyTorch refuses operands whose promoted dtype is integral."""
    dtype = _result_type(input, other)
    if not dtype.is_floating_point:
        raise NotImplementedError(
            f"\"{kernel}_cpu\" not implemented for '{_KERNEL_TYPE_NAMES[dtype.name]}'"
        )


def _float_operands(input: Any, other: Any, name: str) -> tuple[Tensor, Tensor]:  # noqa: A002
    """Two operands (a tensor and a tensor or number, either first) in their promoted float
    dtype, broadcast to one shape."""
    if isinstance(input, Tensor):
        a, b = _float_pair(input, other, name)
    elif isinstance(other, Tensor):
        b, a = _float_pair(other, input, name)
    else:
        raise TypeError(f"{name}(): expected a Tensor argument, got {type(input).__name__}")
    return a, b


@_with_out
def gammainc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """P(a, x) = int_0^x t^(a-1) e^-t dt / Gamma(a), the regularized lower incomplete gamma
    function (a = input, x = other; NaN for a < 0 or x < 0). Differentiable in x only."""
    _tensors_only(input, other, "special_gammainc")
    _refuse_integral(input, other, "igamma")
    a, x = _float_operands(input, other, "gammainc")
    return _IncompleteGamma.apply(a, x, False)


@_with_out
def gammaincc(input: Tensor, other: Tensor) -> Tensor:  # noqa: A002
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    _tensors_only(input, other, "special_gammaincc")
    _refuse_integral(input, other, "igammac")
    a, x = _float_operands(input, other, "gammaincc")
    return _IncompleteGamma.apply(a, x, True)


@_with_out
def zeta(input: Any, other: Any) -> Tensor:  # noqa: A002
    """Hurwitz's zeta(x, q) = sum_{k >= 0} (k + q)^-x (x = input > 1); zeta(x, 1) is Riemann's.
    Differentiable in q only."""
    x, q = _float_operands(input, other, "zeta")
    _refuse(x, "zeta", _HALF)
    return _Zeta.apply(x, q)


# ------------------------------------------------------------------------------------------------
# Bessel, Airy and the orthogonal polynomials (ops/bessel.py, ops/orthogonal_polynomials.py):
# PyTorch gives them no gradient, so the result never requires grad.
# ------------------------------------------------------------------------------------------------
def _no_grad_unary(fn: Any, input: Tensor, name: str) -> Tensor:  # noqa: A002
    """fn (an array function, float64) on the input's values; the input's float dtype (the
    default float dtype for integers), rounded from float64, and no gradient."""
    x = _float_in(input)
    _refuse(x, name, _HALF)
    data = x._data
    xp = get_array_module(data)
    out = fn(xp.asarray(data, dtype=xp.float64)).astype(data.dtype)
    return Tensor._make(out, False)


@_with_out
def bessel_j0(input: Tensor) -> Tensor:  # noqa: A002
    """J0(x), the Bessel function of the first kind of order 0."""
    return _no_grad_unary(lambda a: _B.bessel_jy(a, 0, "j"), input, "bessel_j0")


@_with_out
def bessel_j1(input: Tensor) -> Tensor:  # noqa: A002
    """J1(x), the Bessel function of the first kind of order 1."""
    return _no_grad_unary(lambda a: _B.bessel_jy(a, 1, "j"), input, "bessel_j1")


@_with_out
def bessel_y0(input: Tensor) -> Tensor:  # noqa: A002
    """Y0(x), the Bessel function of the second kind of order 0 (-inf at 0, NaN for x < 0)."""
    return _no_grad_unary(lambda a: _B.bessel_jy(a, 0, "y"), input, "bessel_y0")


@_with_out
def bessel_y1(input: Tensor) -> Tensor:  # noqa: A002
    """Y1(x), the Bessel function of the second kind of order 1 (-inf at 0, NaN for x < 0)."""
    return _no_grad_unary(lambda a: _B.bessel_jy(a, 1, "y"), input, "bessel_y1")


@_with_out
def modified_bessel_i0(input: Tensor) -> Tensor:  # noqa: A002
    """I0(x) (i0's values, NaN at +-inf, without a gradient, as PyTorch)."""
    x = _float_in(input).detach()
    _refuse(x, "modified_bessel_i0", _HALF)
    return Tensor._make(i0(x).where(~x.isinf(), math.nan)._data, False)  # NaN at +-inf


@_with_out
def modified_bessel_i1(input: Tensor) -> Tensor:  # noqa: A002
    """I1(x) (i1's values, NaN at +-inf, without a gradient, as PyTorch)."""
    x = _float_in(input).detach()
    _refuse(x, "modified_bessel_i1", _HALF)
    return Tensor._make(i1(x).where(~x.isinf(), math.nan)._data, False)  # NaN at +-inf


@_with_out
def modified_bessel_k0(input: Tensor) -> Tensor:  # noqa: A002
    """K0(x), the modified Bessel function of the second kind (inf at 0, NaN for x < 0)."""
    return _no_grad_unary(lambda a: _B.bessel_k(a, 0, False), input, "modified_bessel_k0")


@_with_out
def modified_bessel_k1(input: Tensor) -> Tensor:  # noqa: A002
    """K1(x), the modified Bessel function of the second kind of order 1."""
    return _no_grad_unary(lambda a: _B.bessel_k(a, 1, False), input, "modified_bessel_k1")


@_with_out
def scaled_modified_bessel_k0(input: Tensor) -> Tensor:  # noqa: A002
    """e^x K0(x): finite where K0 underflows (about sqrt(pi / (2x)) for large x)."""
    return _no_grad_unary(lambda a: _B.bessel_k(a, 0, True), input, "scaled_modified_bessel_k0")


@_with_out
def scaled_modified_bessel_k1(input: Tensor) -> Tensor:  # noqa: A002
    """e^x K1(x)."""
    return _no_grad_unary(lambda a: _B.bessel_k(a, 1, True), input, "scaled_modified_bessel_k1")


@_with_out
def spherical_bessel_j0(input: Tensor) -> Tensor:  # noqa: A002
    """j0(x) = sin(x) / x (1 at 0)."""
    return _no_grad_unary(_B.spherical_j0, input, "spherical_bessel_j0")


@_with_out
def airy_ai(input: Tensor) -> Tensor:  # noqa: A002
    """Ai(x), the solution of y'' = x y that decays as x -> inf (NaN at +-inf, as PyTorch)."""
    return _no_grad_unary(_B.airy_ai, input, "airy_ai")


def _polynomial(family: str, input: Any, n: Any) -> Tensor:  # noqa: A002
    """p_n(x) of the family, x and n tensors or numbers (broadcast; the promoted float dtype);
    n truncated to an integer, p_n = 0 for n < 0; no gradient."""
    base, letter = family.rsplit("_", 1)
    name = f"{base}_polynomial_{letter}"  # PyTorch's name: chebyshev_polynomial_t ...
    x, nn = _float_operands(input, n, name)
    _refuse(x, name, _HALF)
    xp = get_array_module(x._data)
    x64, n64 = (xp.asarray(t._data, dtype=xp.float64) for t in (x, nn))
    x64, n64 = xp.broadcast_arrays(x64, n64)
    return Tensor._make(_OP.polynomial(family, x64, n64).astype(x._data.dtype), False)


@_with_out
def chebyshev_polynomial_t(input: Any, n: Any) -> Tensor:  # noqa: A002
    """T_n(x): T_n(cos t) = cos(n t)."""
    return _polynomial("chebyshev_t", input, n)


@_with_out
def chebyshev_polynomial_u(input: Any, n: Any) -> Tensor:  # noqa: A002
    """U_n(x): U_n(cos t) = sin((n + 1) t) / sin t."""
    return _polynomial("chebyshev_u", input, n)


@_with_out
def chebyshev_polynomial_v(input: Any, n: Any) -> Tensor:  # noqa: A002
    """V_n(x): V_n(cos t) = cos((n + 1/2) t) / cos(t / 2)."""
    return _polynomial("chebyshev_v", input, n)


@_with_out
def chebyshev_polynomial_w(input: Any, n: Any) -> Tensor:  # noqa: A002
    """W_n(x): W_n(cos t) = sin((n + 1/2) t) / sin(t / 2)."""
    return _polynomial("chebyshev_w", input, n)


@_with_out
def shifted_chebyshev_polynomial_t(input: Any, n: Any) -> Tensor:  # noqa: A002
    """T_n(2x - 1), orthogonal on [0, 1]."""
    return _polynomial("shifted_chebyshev_t", input, n)


@_with_out
def shifted_chebyshev_polynomial_u(input: Any, n: Any) -> Tensor:  # noqa: A002
    """U_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_u", input, n)


@_with_out
def shifted_chebyshev_polynomial_v(input: Any, n: Any) -> Tensor:  # noqa: A002
    """V_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_v", input, n)


@_with_out
def shifted_chebyshev_polynomial_w(input: Any, n: Any) -> Tensor:  # noqa: A002
    """W_n(2x - 1)."""
    return _polynomial("shifted_chebyshev_w", input, n)


@_with_out
def hermite_polynomial_h(input: Any, n: Any) -> Tensor:  # noqa: A002
    """H_n(x), the physicists' Hermite polynomial (weight e^-x^2)."""
    return _polynomial("hermite_h", input, n)


@_with_out
def hermite_polynomial_he(input: Any, n: Any) -> Tensor:  # noqa: A002
    """He_n(x), the probabilists' Hermite polynomial (weight e^-x^2/2)."""
    return _polynomial("hermite_he", input, n)


@_with_out
def laguerre_polynomial_l(input: Any, n: Any) -> Tensor:  # noqa: A002
    """L_n(x), the Laguerre polynomial (weight e^-x on [0, inf))."""
    return _polynomial("laguerre_l", input, n)


@_with_out
def legendre_polynomial_p(input: Any, n: Any) -> Tensor:  # noqa: A002
    """P_n(x), the Legendre polynomial (weight 1 on [-1, 1])."""
    return _polynomial("legendre_p", input, n)
