"""nn.functional's activations (pointwise, with their parameters) and the softmax family.

The pointwise activations reuse the pointwise samples (layouts, size-0, every float dtype and
the edge values NaN, +-inf, +-0, +-1, where gradients are compared with PyTorch only); each
kink (relu6 at 0 and 6, hardtanh at its bounds, the shrinks at +-lambda) gets a sample of its
own among the edges. The softmax family meets each dim, a 0-d input, size-0, ``dtype=`` and
rows holding -inf, +inf and NaN.
"""

from __future__ import annotations

import math

import numpy as np

from . import samples as S
from .core import FLOATS, OpEntry, Sample, T
from .db_unary import _vec, pointwise
from .simple import S as call
from .simple import op

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _f(x):
    return np.asarray(x, np.float64)


def _sigmoid(x):
    with np.errstate(all="ignore"):
        return 1 / (1 + np.exp(-_f(x)))


def _softplus(x, beta=1.0, threshold=20.0):
    x = _f(x)
    with np.errstate(all="ignore"):
        soft = np.logaddexp(0.0, beta * x) / beta
    return np.where(x * beta > threshold, x, soft)


def _elu(x, alpha=1.0):
    x = _f(x)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _gelu(x, approximate="none"):
    x = _f(x)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    return x * (1 + _vec(math.erf)(x / math.sqrt(2))) / 2


def _mish(x):
    return _f(x) * np.tanh(_softplus(x))


def _relu6(x):
    x = _f(x)
    return np.where(np.isnan(x), x, np.clip(x, 0, 6))


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    x = _f(x)
    return np.where(np.isnan(x), x, np.clip(x, min_val, max_val))


def _shrink(soft):
    def ref(x, lambd=0.5):
        x = _f(x)
        keep = np.abs(x) > lambd
        moved = x - np.sign(x) * lambd if soft else x
        return np.where(np.isnan(x), x, np.where(keep, moved, 0.0))

    return ref


def _threshold(x, threshold, value):
    x = _f(x)
    return np.where(np.isnan(x), x, np.where(x > threshold, x, value))


def _leaky(x, negative_slope=0.01):
    x = _f(x)
    return np.where(x > 0, x, negative_slope * x)


def _celu(x, alpha=1.0):
    x = _f(x)
    return np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha))


KINKS = (*S.EDGES, 0.5, -0.5, 3.0, -3.0, 6.0)  # shrinks' lambda, hardswish's +-3, relu6's 6


def act(
    name: str, ref, params=({},), inf32: bool = True, nan_grad: bool = True, **extra
) -> OpEntry:
    """A float-only pointwise activation, sampled at each parameter set and at the kinks.

    inf32=False: +-inf only in float64 (PyTorch's float32 GELU of +inf is NaN in a short
    tensor's vector tail, inf in a long one); nan_grad=False: the gradient at NaN is not
    compared (PyTorch's clamp-like backwards give 1 there in scalar code, 0 in vector code)."""

    def samples():
        rng = entry.rng()
        for kw in params:
            yield from S.unary(rng, -4.0, 4.0, FLOATS, (), kw)
            for dtype in ("float64", "float32"):
                edges = [e for e in KINKS if inf32 or dtype == "float64" or not math.isinf(e)]
                if not nan_grad:
                    edges = [e for e in edges if not math.isnan(e)]
                    x = T(np.array([math.nan, 1.0]), dtype, grad=False)
                    yield Sample((x,), dict(kw), f"nan {dtype}", grad=False, gradgrad=False)
                x = T(np.array(edges), dtype)
                yield Sample((x,), dict(kw), f"edges {dtype}", grad=False, gradgrad=False)

    entry = pointwise(name, ref, ints=None, out=False, **extra)
    entry.samples = samples
    return entry


ENTRIES = [
    act(
        "F.gelu",
        _gelu,
        ({}, {"approximate": "tanh"}),
        inf32=False,
        aliases=("Tensor.gelu",),
    ),
    act("F.silu", lambda x: _f(x) * _sigmoid(x), aliases=("Tensor.silu",)),
    act("F.mish", _mish),
    act("F.softplus", _softplus, ({}, {"beta": 2.0, "threshold": 3.0})),
    act("F.elu", _elu, ({}, {"alpha": 0.5})),
    act("F.selu", lambda x: SELU_SCALE * _elu(x, SELU_ALPHA)),
    act("F.celu", _celu, ({}, {"alpha": 2.0})),
    act("F.leaky_relu", _leaky, ({}, {"negative_slope": 0.2})),
    act("F.relu6", _relu6, nan_grad=False),
    act("F.hardtanh", _hardtanh, ({}, {"min_val": -0.5, "max_val": 3.0}), nan_grad=False),
    act("F.hardswish", lambda x: _f(x) * _relu6(_f(x) + 3) / 6),
    act("F.hardsigmoid", lambda x: _relu6(_f(x) + 3) / 6),
    act("F.softshrink", _shrink(True), ({}, {"lambd": 1.0}), nan_grad=False),
    act("F.hardshrink", _shrink(False), ({}, {"lambd": 1.0}), nan_grad=False),
    act("F.threshold", _threshold, ({"threshold": 0.5, "value": -2.0},)),
    act("F.logsigmoid", lambda x: -_softplus(-_f(x))),
    act("F.softsign", lambda x: _f(x) / (1 + np.abs(_f(x)))),
    act("F.tanhshrink", lambda x: _f(x) - np.tanh(_f(x))),
]


# ------------------------------------------------------------------------ with a weight or dim
def _prelu(x, w):
    w = w.reshape((1, -1) + (1,) * (x.ndim - 2)) if x.ndim >= 2 and w.size > 1 else w
    return np.where(x > 0, x, w * x)


def _glu(x, dim=-1):
    a, b = np.split(x, 2, axis=dim)
    return a * _sigmoid(b)


ENTRIES += [
    op(
        "F.prelu",
        _prelu,
        lambda m: [
            call(m(3, 4), m(1, lo=0.1, hi=0.5), desc="one weight"),
            call(m(2, 3, 4), m(3, lo=0.1, hi=0.5), desc="per channel"),
            call(m(4, 3, layout="transposed"), m(3), desc="transposed"),
            call(m(2, 3, dtype="float32"), m(3, dtype="float32")),
            call(m(0, 3), m(3), desc="size-0"),
        ],
        errors=lambda m: [(call(m(2, 3), m(2)), RuntimeError)],
    ),
    op(
        "F.glu",
        _glu,
        lambda m: [
            call(m(3, 4)),
            call(m(4, 3), dim=0),
            call(m(2, 4, layout="transposed"), dim=-2),
            call(m(2, 6, dtype="float32"), dim=1),
            call(m(0, 2), desc="size-0"),
        ],
        errors=lambda m: [(call(m(3, 3)), RuntimeError)],
    ),
]


# --------------------------------------------------------------------------- softmax family
def _softmax(x, dim=-1, dtype=None):
    x = _f(x)
    if x.ndim == 0:
        return np.where(np.isnan(x), x, 1.0)
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x, axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x, dim=-1, dtype=None):
    x = _f(x)
    if x.ndim == 0:
        return np.where(np.isnan(x), x, 0.0)
    with np.errstate(all="ignore"):
        m = np.max(x, axis=dim, keepdims=True)
        return x - m - np.log(np.exp(x - m).sum(axis=dim, keepdims=True))


def _softmax_samples(m):
    edge = np.array([[0.0, -np.inf, 1.0], [np.inf, 0.0, 1.0], [np.nan, 0.0, 1.0]])
    return [
        call(m(3, 4), 1),
        call(m(3, 4), 0),
        call(m(3, 4, layout="transposed"), -1, desc="transposed"),
        call(m(2, 3, layout="strided"), 0, desc="strided"),
        call(m(2, 3, 2), 1, desc="middle dim"),
        call(m(), 0, desc="0-d"),
        call(m(0, 3), 1, desc="size-0"),
        call(m(1, 1), 1, desc="size-1"),
        call(m(2, 3, dtype="float32"), 1),
        call(m(2, 3, dtype="float16"), 1),
        call(m(2, 3, dtype="bfloat16"), 1),
        call(m.of(edge), 1, desc="-inf, inf, nan", grad=False, gradgrad=False),
    ]


def _in_float64(name: str):
    """``name(x, dim, dtype=float64)`` in either library (a dtype is not a sample value)."""
    return lambda lib, x, dim: lib.resolve(name)(x, dim, dtype=lib.L.float64)


def _softmin(x, dim=None, dtype=None):
    return _softmax(-_f(x), dim)


ENTRIES += [
    op(
        "softmax",
        _softmax,
        _softmax_samples,
        aliases=("special.softmax", "F.softmax"),
        dtype="same",
    ),
    op(
        "log_softmax",
        _log_softmax,
        _softmax_samples,
        aliases=("special.log_softmax", "F.log_softmax"),
        dtype="same",
    ),
    op(
        "F.softmax",
        _softmax,
        lambda m: [call(m(2, 3, dtype="float32"), 1, desc="float32 in float64")],
        call=_in_float64("F.softmax"),
        dtype="float64",
        variant="dtype",
    ),
    op(
        "F.log_softmax",
        _log_softmax,
        lambda m: [call(m(2, 3, dtype="float32"), 1, desc="float32 in float64")],
        call=_in_float64("F.log_softmax"),
        dtype="float64",
        variant="dtype",
    ),
    op("F.softmin", _softmin, lambda m: _softmax_samples(m)[:-1]),
]
