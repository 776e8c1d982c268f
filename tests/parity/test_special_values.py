"""PyTorch parity of activations and elementwise functions at special float values.

Every function runs on one input made of the values where implementations tend to part ways:
+-0, +-inf, NaN, the smallest subnormal, the largest finite number, and the edges where float32's
e^x overflows (88.72) or underflows to subnormals (-88.72) and to 0 (-103.9).

The first oracle is the float64 truth: PyTorch's formula for the function evaluated in float64 on
the same input and rounded to the dtype (so PyTorch's conventions hold: gelu(-inf) = -inf * 0 is
NaN). The forward values must match it: NaN where it is NaN, infinities and zeros bit for bit (the
sign of a zero included), other values to a few ulps. PyTorch itself is the second oracle, and is
accepted only where its answer is the same on every CPU: its float32 kernels at these inputs are
vectorized (Sleef, oneDNN) and what they return at +-inf, near the overflow limit and in the
subnormal range depends on the instruction set they run with. Measured with
``ATEN_CPU_CAPABILITY`` = default / avx2 / avx512 and ``ONEDNN_MAX_CPU_ISA`` = SSE41 / AVX2 / ALL:
gelu(inf) is inf or NaN and gelu(3.4e38) 3.4e38 or inf (float32 and bfloat16), softplus(-103.9)
and mish(-103.9) are the true subnormal or 0, log1p(1.4e-45) is the subnormal or 0, gelu's
negative tail is -0 or +0. So where torch's value is off the float64 truth and ours is on it, the
difference is torch's kernel, not ours, and is not held against us; the differences listed below
are the ones every CPU gives. Gradients are compared with torch where its gradient is finite (the
same runs found no gradient that changes the verdict with the CPU).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

TINY = float(np.finfo(np.float32).smallest_subnormal)
MAX = float(np.finfo(np.float32).max)
NAN = float("nan")
SPECIAL = [
    0.0,
    -0.0,
    np.inf,
    -np.inf,
    NAN,
    TINY,
    -TINY,
    MAX,
    -MAX,
    -88.73,
    -88.72,
    -103.9,
    88.72,
    1.0,
    -1.0,
    3.0,
    -3.0,
    6.0,
]

# name -> (minigenesis function, torch function); both take and return a tensor of their library.
FUNCTIONS = {
    "relu": (F.relu, TF.relu),
    "relu6": (F.relu6, TF.relu6),
    "leaky_relu": (F.leaky_relu, TF.leaky_relu),
    "hardtanh": (F.hardtanh, TF.hardtanh),
    "elu": (F.elu, TF.elu),
    "selu": (F.selu, TF.selu),
    "celu": (F.celu, TF.celu),
    "gelu": (F.gelu, TF.gelu),
    "gelu_tanh": (
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: TF.gelu(x, approximate="tanh"),
    ),
    "silu": (F.silu, TF.silu),
    "mish": (F.mish, TF.mish),
    "softplus": (F.softplus, TF.softplus),
    "sigmoid": (F.sigmoid, torch.sigmoid),
    "tanh": (F.tanh, torch.tanh),
    "hardsigmoid": (F.hardsigmoid, TF.hardsigmoid),
    "hardswish": (F.hardswish, TF.hardswish),
    "logsigmoid": (F.logsigmoid, TF.logsigmoid),
    "softsign": (F.softsign, TF.softsign),
    "tanhshrink": (F.tanhshrink, TF.tanhshrink),
    "abs": (mg.abs, torch.abs),
    "neg": (mg.neg, torch.neg),
    "sign": (mg.sign, torch.sign),
    "clamp": (lambda x: mg.clamp(x, -2.0, 2.0), lambda x: torch.clamp(x, -2.0, 2.0)),
    "exp": (mg.exp, torch.exp),
    "log": (mg.log, torch.log),
    "sqrt": (mg.sqrt, torch.sqrt),
    "reciprocal": (mg.reciprocal, torch.reciprocal),
    "rsqrt": (mg.rsqrt, torch.rsqrt),
    "expm1": (mg.expm1, torch.expm1),
    "log1p": (mg.log1p, torch.log1p),
    "square": (mg.square, torch.square),
    "erf": (mg.erf, torch.erf),
    "floor": (mg.floor, torch.floor),
    "ceil": (mg.ceil, torch.ceil),
    "trunc": (mg.trunc, torch.trunc),
    "round": (mg.round, torch.round),
    "softshrink": (F.softshrink, TF.softshrink),
    "hardshrink": (F.hardshrink, TF.hardshrink),
    "threshold": (lambda x: F.threshold(x, 1.0, -5.0), lambda x: TF.threshold(x, 1.0, -5.0)),
}


# The float64 truth of the functions whose float32 kernels are transcendental (PyTorch's formula
# for each, on float64 values; NumPy float64 is correctly rounded or within an ulp of it, far
# below a float32 ulp). The others are exact in every library (comparisons, +-, rounding).
_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _softplus64(x: np.ndarray) -> np.ndarray:
    return np.where(x > 20, x, np.log1p(np.exp(x)))  # torch's threshold: x above 20


TRUTH = {
    "gelu": lambda x: x * 0.5 * _erfc(-x / math.sqrt(2)),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "softplus": _softplus64,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "tanh": np.tanh,
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "logsigmoid": lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanhshrink": lambda x: x - np.tanh(x),
    "exp": np.exp,
    "expm1": np.expm1,
    "log": np.log,
    "log1p": np.log1p,
    "sqrt": np.sqrt,
    "erf": _erf,
}

# Where ours is off the float64 truth, as the float32 formula is in torch too: (function, dtype)
# -> the inputs. The truth test fails if one goes away, so that its entry is removed here.
OFF_TRUTH = {
    # the tanh form's cancellation at -3: 1 + tanh(...) in float32 keeps 4 digits
    ("gelu_tanh", "float32"): [-3.0],
    # e^-x overflows float32 below -88.72: 1 / (1 + inf) = 0 where the true value is subnormal
    ("sigmoid", "float32"): [-88.73, -103.9],
    ("silu", "float32"): [-88.73, -103.9],  # x sigmoid(x)
    # x tanh(softplus(x)): softplus(-103.9) rounds to the smallest subnormal first (twice the
    # true value), then times x
    ("mish", "float32"): [-103.9],
}

# Measured differences from torch left as they are, the same on every CPU: (function, dtype) ->
# the inputs x where the forward value differs from torch's. The test fails if one goes away too,
# so that its entry is removed here.
EXPECTED_FORWARD = {
    # At -3 torch's float32 erf has lost digits (1 + erf cancels) where ours is within a few ulps
    # of the true value.
    ("gelu", "float32"): [-3.0],
    # The tanh form's cancellation at -3: the libraries round 1 + tanh(...) differently.
    ("gelu_tanh", "float32"): [-3.0],
    # sign of -0 in bfloat16: NumPy's sign keeps -0, torch's bfloat16 kernel gives +0 (its float32
    # kernel gives -0, as ours).
    ("sign", "bfloat16"): [-0.0, -TINY],
    # softshrink's dead zone is +0 (as torch's float32 kernel gives); torch's bfloat16 kernel
    # computes x * 0 there, which keeps -0.
    ("softshrink", "bfloat16"): [-0.0, -TINY],
}

# The same for gradients, at the inputs where torch's gradient is finite.
EXPECTED_GRADIENT = {
    # abs's gradient g sign(x) at -0: NumPy's bfloat16 sign(-0) is -0, torch's +0 (see sign).
    ("abs", "bfloat16"): [-0.0, -TINY],
    # softshrink/hardshrink/hardtanh/relu6 pass the gradient at NaN (NaN is neither in the dead
    # zone nor at or beyond a bound), as torch's scalar and bfloat16 kernels do; its vectorized
    # float32 backwards (taken here, at 18 elements) give 0 there.
    **{(n, "float32"): [NAN] for n in ("softshrink", "hardshrink", "hardtanh", "relu6")},
    # the tanh form's cancellation at -3 (see EXPECTED_FORWARD)
    ("gelu_tanh", "float32"): [-3.0],
    # mish' = tanh(sp) + x sigmoid(x) (1 - tanh(sp)^2), sp = softplus(x), is about (1 + x) e^x
    # far below 0 (-2.6e-37 at -88.73): ours; torch's sigmoid underflows there to 0, leaving
    # tanh(sp) = e^x (2.9e-39).
    ("mish", "float32"): [-88.73, -103.9],
    # 1 / (1 + |x|)^2 at +-max: torch's (1 + |x|)^2 overflows to inf and gives 0; ours does not
    # (2.7e-39, the true value).
    ("softsign", "float32"): [MAX, -MAX],
    # softsign is x / (1 + |x|) in both libraries; in bfloat16 its gradient at -104 is
    # 1/105 - 104/105^2, two terms that cancel to 1e-4 of values near 0.0095: ours, with div's
    # y-gradient in float32, 1.22e-4; torch's, rounded at each step, 6.1e-5; the truth 1.04e-4.
    ("softsign", "bfloat16"): [-103.9],
}


def _x_values(dtype: str):
    """SPECIAL as a float32 NumPy array and the input tensors of both libraries in ``dtype``."""
    x = np.array(SPECIAL, np.float32)
    ours = mg.tensor(x).to(getattr(mg, dtype)).requires_grad_()
    theirs = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    return ours, theirs


def _as_float32(t) -> np.ndarray:
    return t.detach().float().numpy()


def _differing_inputs(ours: np.ndarray, theirs: np.ndarray, rtol: float, where=None) -> list:
    """The inputs x (reprs) at which ``ours`` is not ``theirs``: NaN must match NaN, infinities
    and zeros must match exactly (the sign of a zero too), other values within ``rtol``.
    ``where``: a mask of the elements to compare (all by default)."""
    ours, theirs = ours.astype(np.float64), theirs.astype(np.float64)
    nan = np.isnan(theirs)
    exact = np.isinf(theirs) | (theirs == 0)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(ours - theirs) <= rtol * np.abs(theirs)
    same = np.where(nan, np.isnan(ours), np.where(exact, ours == theirs, close))
    same &= nan | (np.signbit(ours) == np.signbit(theirs))
    if where is not None:
        same |= ~where
    return sorted(repr(x) for x, ok in zip(SPECIAL, same) if not ok)


def _expected(table: dict, name: str, dtype: str) -> list:
    return sorted(repr(float(x)) for x in table.get((name, dtype), []))


DTYPES = ["float32", "bfloat16"]
VALUE_RTOL = {"float32": 1e-6, "bfloat16": 1.6e-2}
# 1 - tanh(x)^2 and the like cancel near their tails: a few ulps of y are more of the gradient.
GRAD_RTOL = {"float32": 1e-5, "bfloat16": 1.6e-2}


def _truth(name: str, x: np.ndarray, dtype: str) -> np.ndarray:
    """TRUTH[name] at the float32 values ``x`` (the input as the library holds it in ``dtype``),
    rounded once from float64 to ``dtype``, as float32."""
    with np.errstate(all="ignore"):
        y = np.asarray(TRUTH[name](x.astype(np.float64)), np.float64)
    low = np.float32 if dtype == "float32" else ml_dtypes.bfloat16
    return y.astype(low).astype(np.float32)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(TRUTH))
def test_values_at_special_inputs_match_the_float64_truth_with_the_sign_of_zero(name, dtype):
    ours_fn = FUNCTIONS[name][0]
    x, _ = _x_values(dtype)
    with np.errstate(all="ignore"):
        y = _as_float32(ours_fn(x))
    differing = _differing_inputs(y, _truth(name, _as_float32(x), dtype), VALUE_RTOL[dtype])
    assert differing == _expected(OFF_TRUTH, name, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_values_at_special_inputs_match_torch_with_the_sign_of_zero(name, dtype):
    ours_fn, torch_fn = FUNCTIONS[name]
    x, tx = _x_values(dtype)
    with np.errstate(all="ignore"):
        y = ours_fn(x)
    ty = torch_fn(tx)
    assert y.dtype == getattr(mg, dtype)
    ours, theirs = _as_float32(y), _as_float32(ty)
    differing = _differing_inputs(ours, theirs, VALUE_RTOL[dtype])
    if name in TRUTH:
        # where torch's value is off the float64 truth, it may be the value of torch's kernel on
        # this CPU (module docstring): ours is held to the truth there (the test above), not to it
        off = set(_differing_inputs(theirs, _truth(name, _as_float32(x), dtype), VALUE_RTOL[dtype]))
        expected = set(_expected(EXPECTED_FORWARD, name, dtype))
        differing = [x for x in differing if x in expected or x not in off]
    assert differing == _expected(EXPECTED_FORWARD, name, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_gradients_at_special_inputs_match_torch_where_finite(name, dtype):
    ours_fn, torch_fn = FUNCTIONS[name]
    x, tx = _x_values(dtype)
    upstream = np.linspace(0.5, 1.5, len(SPECIAL), dtype=np.float32)
    with np.errstate(all="ignore"):
        ours_fn(x).backward(mg.tensor(upstream).to(x.dtype))
    torch_fn(tx).backward(torch.tensor(upstream).to(tx.dtype))
    theirs = _as_float32(tx.grad)
    differing = _differing_inputs(
        _as_float32(x.grad), theirs, GRAD_RTOL[dtype], where=np.isfinite(theirs)
    )
    assert differing == _expected(EXPECTED_GRADIENT, name, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_relu_keeps_negative_zero_and_nan_at_every_length_and_alignment(dtype):
    # NumPy's loops run a SIMD body and a scalar tail, chosen by length and alignment: both must
    # keep -0 (and NaN) where torch.relu keeps them.
    for n in [*range(1, 70), 127, 128, 129, 255, 256, 257, 1023, 1025, 4097]:
        for offset in (0, 1):
            x = np.full(n + offset, -0.0, np.float32)[offset:]
            x[::3] = 0.0
            x[1::5] = np.nan
            x[2::7] = -1.5
            ours = _as_float32(mg.tensor(x).to(getattr(mg, dtype)).relu())
            theirs = _as_float32(torch.tensor(x).to(getattr(torch, dtype)).relu())
            assert np.array_equal(ours, theirs, equal_nan=True), (n, offset)
            # (a NaN's sign bit is not compared: torch's bfloat16 conversion sets it)
            number = ~np.isnan(theirs)
            assert np.array_equal(np.signbit(ours[number]), np.signbit(theirs[number])), (n, offset)
