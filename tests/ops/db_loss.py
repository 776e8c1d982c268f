"""nn.functional's losses: regression (mse, l1, smooth_l1, huber), classification (cross_entropy
with class indices or probabilities, weights, ignore_index and label smoothing; nll_loss),
binary (binary_cross_entropy, with logits and pos_weight) and kl_div.

Each loss meets its three reductions, a non-contiguous input, a float32 input and the targets'
own edge cases (an ignored class, a target at 0 or 1, a spatial dim). The references are the
textbook sums written per element.
"""

from __future__ import annotations

import numpy as np

from .simple import S, op


def _reduce(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    return np.asarray(loss.sum() if reduction == "sum" else loss.mean())


def _pointwise_loss(fn):
    def ref(input, target, reduction="mean", **kw):
        return _reduce(fn(np.asarray(input, np.float64), np.asarray(target, np.float64), **kw),
                       reduction)  # fmt: skip

    return ref


def _smooth_l1(x, t, beta=1.0):
    d = np.abs(x - t)
    return d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)


def _huber(x, t, delta=1.0):
    d = np.abs(x - t)
    return np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta))


def _regression_samples(m):
    return [
        S(m(3, 4), m(3, 4)),
        S(m(3, 4), m(3, 4), reduction="sum"),
        S(m(3, 4), m(3, 4), reduction="none"),
        S(m(3, 4, layout="transposed"), m(3, 4, layout="strided"), desc="views"),
        S(m(), m(), desc="0-d"),
        S(m(0, 3), m(0, 3), reduction="sum", desc="size-0"),
        S(m(2, 3, dtype="float32"), m(2, 3, dtype="float32")),
        S(m(2, 3, dtype="bfloat16"), m(2, 3, dtype="bfloat16"), reduction="none"),
    ]


def _regression(name: str, fn, params=({},)):
    def samples(m):
        out = []
        for kw in params:
            out += [S(*s.args, **{**s.kwargs, **kw}, desc=s.desc) for s in _regression_samples(m)]
        return out

    return op(name, _pointwise_loss(fn), samples, method=False, dtype="same")


# -------------------------------------------------------------------------- class targets
def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _nll_ref(logp, target, weight=None, ignore_index=-100, reduction="mean", smoothing=0.0):
    """Class-index targets: logp (C,) / (N, C, d...), target () / (N, d...)."""
    logp = np.moveaxis(logp, 1, -1) if logp.ndim > 1 else logp  # the class dim last
    c = logp.shape[-1]
    w = np.ones(c) if weight is None else np.asarray(weight, np.float64)
    target = np.asarray(target)
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    picked = np.take_along_axis(logp, safe[..., None], -1)[..., 0]
    w_t = np.where(keep, w[safe], 0.0)
    nll = -w_t * picked
    smooth = np.where(keep, -(logp * w).sum(-1), 0.0)
    loss = (1 - smoothing) * nll + smoothing / c * smooth
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.asarray(loss.sum())
    return np.asarray(loss.sum() / w_t.sum())


def _cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                   label_smoothing=0.0):  # fmt: skip
    x = np.asarray(input, np.float64)
    axis = 1 if x.ndim > 1 else 0
    logp = _log_softmax(x, axis)
    if target.dtype.kind == "f":  # class probabilities
        c = x.shape[axis]
        t = target * (1 - label_smoothing) + label_smoothing / c
        w = np.ones(c) if weight is None else weight
        w = w.reshape((c,) + (1,) * (x.ndim - axis - 1))
        loss = -(w * t * logp).sum(axis)
        return _reduce(loss, reduction)
    return _nll_ref(logp, target, weight, ignore_index, reduction, label_smoothing)


def _nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    return _nll_ref(np.asarray(input, np.float64), target, weight, ignore_index, reduction)


def _class_samples(m, probs: bool):
    def t(*shape, c=4):
        return m.ints(0, c, *shape)

    rows = [
        S(m(5, 4), t(5)),
        S(m(5, 4), t(5), reduction="sum"),
        S(m(5, 4), t(5), reduction="none"),
        S(m(5, 4), t(5), weight=m(4, lo=0.2, hi=2.0, grad=False), desc="weight"),
        S(
            m(5, 4),
            m.of([0, -100, 3, 2, -100], "int64", grad=False),
            weight=m(4, lo=0.2, hi=2.0, grad=False),
            desc="ignore_index",
        ),
        S(m(5, 4), m.of([1, 2, 1, 0, 2], "int64", grad=False), ignore_index=1, reduction="sum"),
        S(m(2, 3, 4), t(2, 4, c=3), desc="spatial"),
        S(m(4, layout="strided"), m.of(2, "int64", grad=False), desc="unbatched"),
        S(m(4, 5, layout="transposed"), t(4), desc="transposed"),
        S(m(3, 4, dtype="float32"), t(3)),
        S(m(0, 4), t(0), reduction="sum", desc="size-0"),
    ]
    if probs:
        p = np.random.default_rng(0).dirichlet(np.ones(4), 5)
        rows += [
            S(m(5, 4), m.of(p), desc="probabilities"),
            S(m(5, 4), m.of(p), reduction="none", label_smoothing=0.2, desc="probs smoothed"),
            S(m(5, 4), m.of(p), weight=m(4, lo=0.2, hi=2.0, grad=False), desc="probs weighted"),
            S(m(5, 4), t(5), label_smoothing=0.1, desc="smoothed"),
            S(
                m(5, 4),
                m.of([0, -100, 3, 2, 1], "int64", grad=False),
                weight=m(4, lo=0.2, hi=2.0, grad=False),
                label_smoothing=0.3,
                desc="smoothed, weighted, ignored",
            ),
        ]
    return rows


def _class_errors(m):
    return [
        (S(m(3, 4), m.of([0, 4, 1], "int64", grad=False)), (IndexError, RuntimeError)),
        (S(m(3, 4), m.ints(0, 4, 2)), (ValueError, RuntimeError)),
        (
            S(m(3, 4, dtype="float32"), m.ints(0, 4, 3), weight=m(4, grad=False)),
            RuntimeError,
        ),  # the weight in another dtype
    ]


# ------------------------------------------------------------------------------- binary
def _bce(input, target, weight=None, reduction="mean"):
    x, t = np.asarray(input, np.float64), np.asarray(target, np.float64)
    with np.errstate(divide="ignore"):
        loss = -(t * np.maximum(np.log(x), -100) + (1 - t) * np.maximum(np.log1p(-x), -100))
    return _reduce(loss if weight is None else weight * loss, reduction)


def _bce_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    x, t = np.asarray(input, np.float64), np.asarray(target, np.float64)
    log_p, log_q = -np.logaddexp(0, -x), -np.logaddexp(0, x)
    pw = 1.0 if pos_weight is None else pos_weight
    loss = -(pw * t * log_p + (1 - t) * log_q)
    return _reduce(loss if weight is None else weight * loss, reduction)


def _binary_samples(m, logits: bool):
    lo, hi = (-3.0, 3.0) if logits else (0.05, 0.95)
    rows = [
        S(m(3, 4, lo=lo, hi=hi), m(3, 4, lo=0, hi=1)),
        S(m(3, 4, lo=lo, hi=hi), m(3, 4, lo=0, hi=1), reduction="sum"),
        S(m(3, 4, lo=lo, hi=hi, layout="transposed"), m(3, 4, lo=0, hi=1), reduction="none"),
        S(m(3, 4, lo=lo, hi=hi), m(3, 4, lo=0, hi=1), weight=m(4, lo=0.2, hi=2.0), desc="weight"),
        S(m(2, 3, lo=lo, hi=hi, dtype="float32"), m(2, 3, lo=0, hi=1, dtype="float32")),
        S(m(0, 3, lo=lo, hi=hi), m(0, 3, lo=0, hi=1), reduction="sum", desc="size-0"),
        S(m(lo=lo, hi=hi), m(lo=0, hi=1), desc="0-d"),
    ]
    if logits:
        rows.append(S(m(3, 4), m(3, 4, lo=0, hi=1), pos_weight=m(4, lo=0.5, hi=3.0)))
        edge = m.of([-800.0, 800.0, 0.0, -30.0])
        rows.append(S(edge, m.of([1.0, 0.0, 0.5, 1.0]), reduction="none", desc="far logits"))
    else:
        edge = m.of([0.0, 1.0, 0.0, 1.0], grad=False)
        rows.append(
            S(edge, m.of([0.0, 1.0, 1.0, 0.0]), reduction="none", desc="log clamped", grad=False)
        )
    return rows


def _binary_errors(m, logits: bool):
    lo, hi = (-3.0, 3.0) if logits else (0.05, 0.95)
    rows = [(S(m(3, 4, lo=lo, hi=hi), m(3, 5, lo=0, hi=1)), (ValueError, RuntimeError))]
    if not logits:  # a target in another dtype (logits: PyTorch promotes); input outside [0, 1]
        rows.append((S(m(3, lo=lo, hi=hi, dtype="float32"), m(3, lo=0, hi=1)), RuntimeError))
        rows.append((S(m.of([0.5, 1.5]), m.of([0.0, 1.0])), RuntimeError))
    return rows


# -------------------------------------------------------------------------------- kl_div
def _kl_div(input, target, reduction="mean", log_target=False):
    x, t = np.asarray(input, np.float64), np.asarray(target, np.float64)
    if log_target:
        loss = np.exp(t) * (t - x)
    else:
        with np.errstate(all="ignore"):
            loss = np.where(t == 0, 0.0, t * np.log(t)) - t * x
            loss = np.where(np.isnan(t), np.nan, loss)
    if reduction == "batchmean":
        return np.asarray(loss.sum() / (x.shape[0] if x.ndim else 1))
    return _reduce(loss, reduction)


def _kl_samples(m):
    return [
        S(m(3, 4, lo=-3, hi=0), m(3, 4, lo=0.01, hi=1)),
        S(m(3, 4, lo=-3, hi=0), m(3, 4, lo=0.01, hi=1), reduction="batchmean"),
        S(m(3, 4, lo=-3, hi=0), m(3, 4, lo=0.01, hi=1), reduction="sum"),
        S(m(3, 4, layout="transposed"), m(3, 4, lo=-2, hi=0), log_target=True, reduction="none"),
        S(m(2, 3, dtype="float32"), m(2, 3, lo=0.1, hi=1, dtype="float32"), reduction="none"),
        S(
            m.of([0.5, 0.5, -0.2]),
            m.of([0.0, -0.5, 0.3]),
            reduction="none",
            desc="target 0 and negative",
            grad=False,
        ),
    ]


ENTRIES = [
    _regression("F.mse_loss", lambda x, t: (x - t) ** 2),
    _regression("F.l1_loss", lambda x, t: np.abs(x - t)),
    _regression("F.smooth_l1_loss", _smooth_l1, ({}, {"beta": 0.5}, {"beta": 0.0})),
    _regression("F.huber_loss", _huber, ({}, {"delta": 0.5})),
    op(
        "F.cross_entropy",
        _cross_entropy,
        lambda m: _class_samples(m, True),
        method=False,
        errors=_class_errors,
    ),
    op(
        "F.nll_loss",
        _nll_loss,
        lambda m: _class_samples(m, False),
        method=False,
        errors=_class_errors,
    ),
    op(
        "F.binary_cross_entropy",
        _bce,
        lambda m: _binary_samples(m, False),
        method=False,
        errors=lambda m: _binary_errors(m, False),
    ),
    op(
        "F.binary_cross_entropy_with_logits",
        _bce_logits,
        lambda m: _binary_samples(m, True),
        method=False,
        errors=lambda m: _binary_errors(m, True),
    ),
    op("F.kl_div", _kl_div, _kl_samples, method=False),
]
