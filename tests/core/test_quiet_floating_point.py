"""Ops whose inputs leave their domain (log 0, x / 0, sqrt(-1), tan(inf), the mean of nothing, a
softmax row of all -inf) return PyTorch's inf and NaN without a NumPy RuntimeWarning, forward and
backward, and with the values NumPy computes (taken with its warnings off) or the closed form."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigenesis as mg

INF, NAN = math.inf, math.nan


def _np(fn):
    """A NumPy reference evaluated with NumPy's warnings off (the value, not the warning)."""

    def ref(*arrays):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*arrays)

    return ref


# (name, minigenesis function, NumPy reference, inputs)
FORWARD_CASES = [
    ("log", mg.log, _np(np.log), [[0.0, -1.0, 1.0]]),
    ("log2", mg.log2, _np(np.log2), [[0.0, -1.0, 4.0]]),
    ("log10", mg.log10, _np(np.log10), [[0.0, -1.0, 100.0]]),
    ("log1p", mg.log1p, _np(np.log1p), [[-1.0, -2.0, 0.0]]),
    ("sqrt", mg.sqrt, _np(np.sqrt), [[-1.0, 0.0, 4.0]]),
    ("rsqrt", mg.rsqrt, _np(lambda x: 1 / np.sqrt(x)), [[0.0, -1.0, 4.0]]),
    ("reciprocal", mg.reciprocal, _np(np.reciprocal), [[0.0, -0.0, 2.0]]),
    ("tan", mg.tan, _np(np.tan), [[INF, -INF, 0.5]]),
    ("sin", mg.sin, _np(np.sin), [[INF, 1.0]]),
    ("cos", mg.cos, _np(np.cos), [[-INF, 1.0]]),
    ("asin", mg.asin, _np(np.arcsin), [[2.0, -2.0, 0.5]]),
    ("acos", mg.acos, _np(np.arccos), [[2.0, 0.5]]),
    ("acosh", mg.acosh, _np(np.arccosh), [[0.0, 2.0]]),
    ("atanh", mg.atanh, _np(np.arctanh), [[1.0, -1.0, 2.0, 0.5]]),
    ("exp", mg.exp, _np(np.exp), [[100.0, -200.0, 1.0]]),
    ("exp2", mg.exp2, _np(np.exp2), [[200.0, 1.0]]),
    ("expm1", mg.expm1, _np(np.expm1), [[100.0, 1.0]]),
    ("sinh", mg.sinh, _np(np.sinh), [[100.0, -100.0]]),
    ("cosh", mg.cosh, _np(np.cosh), [[100.0]]),
    ("div", lambda a, b: a / b, _np(np.divide), [[1.0, 0.0, -1.0], [0.0, 0.0, -0.0]]),
    ("div_by_number", lambda a: a / 0, _np(lambda a: a / np.float32(0)), [[1.0, 0.0]]),
    ("number_div", lambda a: 1 / a, _np(lambda a: 1 / a), [[0.0, -0.0]]),
    ("div_overflow", lambda a: a / 1e-30, _np(lambda a: a / np.float32(1e-30)), [[1e30]]),
    ("pow", lambda a: a**-0.5, _np(lambda a: a ** np.float32(-0.5)), [[0.0, -1.0, 4.0]]),
    ("pow_overflow", lambda a: a**2, _np(np.square), [[1e30]]),
    ("number_pow", lambda a: 0.0**a, _np(lambda a: np.float32(0) ** a), [[-1.0, 2.0]]),
    ("fmod_by_zero", mg.fmod, _np(np.fmod), [[1.0, -1.0], [0.0, 0.0]]),
    ("remainder_by_zero", mg.remainder, _np(np.remainder), [[1.0, -1.0], [0.0, 0.0]]),
    ("floor_divide_by_zero", lambda a, b: a // b, _np(np.floor_divide), [[1.0, -1.0], [0.0, 0.0]]),
    ("amax_of_nan", lambda a: mg.amax(a, dim=0), _np(lambda a: a.max(0)), [[NAN, 1.0]]),
    ("prod_overflow", lambda a: a.prod(), _np(np.prod), [[1e30, 1e30]]),
    ("mean_empty", lambda a: a.mean(), lambda a: np.float32(NAN), [[]]),
    (
        "logsumexp_all_minus_inf",
        lambda a: mg.logsumexp(a, dim=1),
        lambda a: np.array([-INF], np.float32),
        [[[-INF, -INF]]],
    ),
    (
        "softmax_all_minus_inf",  # -inf - -inf = NaN: PyTorch's NaN row
        lambda a: mg.softmax(a, dim=1),
        lambda a: np.full((1, 2), NAN, np.float32),
        [[[-INF, -INF]]],
    ),
    (
        "log_softmax_all_minus_inf",
        lambda a: mg.log_softmax(a, dim=1),
        lambda a: np.full((1, 2), NAN, np.float32),
        [[[-INF, -INF]]],
    ),
]


@pytest.mark.parametrize(
    "fn, ref, inputs", [c[1:] for c in FORWARD_CASES], ids=[c[0] for c in FORWARD_CASES]
)
def test_out_of_domain_forward_is_silent_and_matches_numpy(fn, ref, inputs):
    arrays = [np.array(v, np.float32) for v in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = fn(*[mg.tensor(a) for a in arrays])
    np.testing.assert_array_equal(out.numpy(), np.asarray(ref(*arrays), np.float32))


def test_mean_over_an_empty_dim_is_nan_per_column_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = mg.zeros(0, 3).mean(0)
    assert out.shape == (3,) and np.isnan(out.numpy()).all()


def test_two_byte_float_log_of_zero_is_silent():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = mg.log(mg.tensor([0.0, -1.0], dtype=mg.float16))
    assert out.dtype == mg.float16
    np.testing.assert_array_equal(out.float().numpy(), [-INF, NAN])


def _grads(fn, *inputs):
    leaves = [mg.tensor(v, requires_grad=True) for v in inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn(*leaves).sum().backward()
    return [leaf.grad.numpy() for leaf in leaves]


# (name, function, inputs, expected gradients in closed form)
BACKWARD_CASES = [
    ("log_at_zero", mg.log, [[0.0]], [[INF]]),  # 1 / x
    ("sqrt_at_zero", mg.sqrt, [[0.0]], [[INF]]),  # 1 / (2 sqrt x)
    ("rsqrt_at_zero", mg.rsqrt, [[0.0]], [[-INF]]),  # -1 / (2 x^1.5)
    ("reciprocal_at_zero", mg.reciprocal, [[0.0]], [[-INF]]),  # -1 / x^2
    ("pow_half_at_zero", lambda a: a**0.5, [[0.0]], [[INF]]),  # 0.5 x^-0.5
    ("asin_at_one", mg.asin, [[1.0]], [[INF]]),  # 1 / sqrt(1 - x^2)
    ("acos_at_one", mg.acos, [[1.0]], [[-INF]]),
    ("tan_at_inf", mg.tan, [[INF]], [[NAN]]),  # 1 + tan^2
    ("div_by_zero", lambda a, b: a / b, [[1.0], [0.0]], [[INF], [-INF]]),  # 1/y, -x/y^2
    ("mean_of_nothing", lambda a: a.mean(), [[]], [[]]),
    ("remainder_by_zero", mg.remainder, [[1.0], [0.0]], [[1.0], [-INF]]),  # 1, -floor(x / y)
]


@pytest.mark.parametrize(
    "fn, inputs, expected", [c[1:] for c in BACKWARD_CASES], ids=[c[0] for c in BACKWARD_CASES]
)
def test_out_of_domain_backward_is_silent_and_matches_closed_form(fn, inputs, expected):
    for grad, want in zip(_grads(fn, *inputs), expected):
        np.testing.assert_array_equal(grad, np.array(want, np.float32))


# sum (x - mean)^2 / max(N - c, 0): 0 / 0 = NaN, s / 0 = inf, as in PyTorch
VAR_CASES = [
    ("var_of_one", lambda a: a.var(), [1.0], NAN),
    ("std_of_one", lambda a: a.std(), [1.0], NAN),
    ("var_of_nothing", lambda a: a.var(), [], NAN),
    ("var_correction_over_n", lambda a: mg.var(a, correction=3), [1.0, 2.0], INF),
]


@pytest.mark.parametrize(
    "fn, values, expected", [c[1:] for c in VAR_CASES], ids=[c[0] for c in VAR_CASES]
)
def test_variance_without_degrees_of_freedom_warns_as_pytorch_not_numpy(fn, values, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            out = fn(mg.tensor(values))
    np.testing.assert_array_equal(out.numpy(), np.float32(expected))


def test_variance_gradient_without_degrees_of_freedom_is_nan_silently():
    x = mg.tensor([1.0], requires_grad=True)  # 2 (x - mean) / 0 with x = mean: NaN
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match="degrees of freedom"):
            x.var().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [NAN])
