"""The margin losses, the Poisson and Gaussian negative log-likelihoods and CTC.

The references are each loss per sample as its docstring writes it (a hinge per wrong class,
a log-sigmoid per label, a p-norm distance per triplet ...), and CTC by brute force: the sum
over every path of labels and blanks that collapses to the target.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .core import T
from .db_nn import LOOSE
from .simple import S, op


def _f(x):
    return np.asarray(x, np.float64)


# --------------------------------------------------------------------------------- losses
def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    return np.asarray(loss.sum() if reduction == "sum" else loss.mean())


def _multi_margin(x, y, p=1, margin=1.0, weight=None, reduction="mean"):
    x = _f(x)
    out = []
    for row, t in zip(x, np.asarray(y)):
        w = 1.0 if weight is None else _f(weight)[t]
        out.append(sum(w * max(0.0, margin - row[t] + row[i]) ** p
                       for i in range(len(row)) if i != t) / len(row))  # fmt: skip
    return _reduce(np.array(out), reduction)


def _log_sig(x):
    return -np.logaddexp(0, -x)


def _loss(name, ref, samples, **kw):
    return op(name, ref, samples, method=False, tol=LOOSE, **kw)


def _signs(m, *shape):
    return T(np.where(m.rng.random(shape) < 0.5, -1.0, 1.0), grad=False)


def _triplet_ref(a, p, n, margin=1.0, p_norm=2, eps=1e-6, swap=False, reduction="mean"):
    def dist(u, v):
        return (np.abs(_f(u) - _f(v) + eps) ** p_norm).sum(-1) ** (1 / p_norm)

    d_neg = dist(a, n)
    if swap:
        d_neg = np.minimum(d_neg, dist(p, n))
    return _reduce(np.maximum(0, margin + dist(a, p) - d_neg), reduction)


def _collapse(path, blank=0):
    merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return tuple(k for k in merged if k != blank)


def _ctc(logits, targets, input_lengths, target_lengths, reduction="mean"):
    """CTC of log_softmax(logits) by enumerating every path (small T and C only)."""
    x = _f(logits)
    lp = x - np.log(np.exp(x).sum(-1, keepdims=True))
    out = []
    for i, (t_len, s_len) in enumerate(zip(input_lengths, target_lengths)):
        target = tuple(np.asarray(targets)[i, :s_len])
        total = 0.0
        for path in itertools.product(range(lp.shape[-1]), repeat=t_len):
            if _collapse(path) == target:
                total += math.exp(sum(lp[t, i, k] for t, k in enumerate(path)))
        out.append(-math.log(total))
    out = np.array(out)
    return _reduce(out / np.maximum(target_lengths, 1) if reduction == "mean" else out, reduction)


ENTRIES = [
    _loss(
        "F.soft_margin_loss",
        lambda x, y, reduction="mean": _reduce(np.log1p(np.exp(-_f(y) * _f(x))), reduction),
        lambda m: [S(m(3, 4), _signs(m, 3, 4)), S(m(3, 4), _signs(m, 3, 4), reduction="none")],
    ),
    _loss(
        "F.multilabel_soft_margin_loss",
        lambda x, y, weight=None, reduction="mean": _reduce(
            (
                -(_f(y) * _log_sig(_f(x)) + (1 - _f(y)) * _log_sig(-_f(x)))
                * (1.0 if weight is None else _f(weight))
            ).mean(-1),
            reduction,
        ),  # fmt: skip
        lambda m: [
            S(m(3, 4), m.of((m.rng.random((3, 4)) < 0.5).astype(float), grad=False)),
            S(
                m(3, 4),
                m.of((m.rng.random((3, 4)) < 0.5).astype(float), grad=False),
                weight=m(4, lo=0.5, hi=2, grad=False),
                reduction="sum",
            ),  # fmt: skip
        ],
    ),
    _loss(
        "F.multi_margin_loss",
        _multi_margin,
        lambda m: [
            S(m(4, 3), m.ints(0, 3, 4)),
            S(
                m(4, 3),
                m.ints(0, 3, 4),
                p=2,
                margin=0.5,
                weight=m(3, lo=0.5, hi=2, grad=False),
                reduction="none",
            ),  # fmt: skip
        ],
        gradgrad=False,
    ),
    _loss(
        "F.multilabel_margin_loss",
        lambda x, y, reduction="mean": _reduce(
            np.array(
                [
                    sum(
                        max(0.0, 1 - (r[j] - r[i]))
                        for j in (t[: list(t).index(-1)] if -1 in t else t)
                        for i in range(len(r))
                        if i not in (t[: list(t).index(-1)] if -1 in t else t)
                    )
                    / len(r)
                    for r, t in zip(_f(x), np.asarray(y))
                ]
            ),
            reduction,
        ),  # fmt: skip
        lambda m: [S(m(2, 4), m.of([[3, 0, -1, 1], [1, 2, 3, 0]], "int64", grad=False))],
        gradgrad=False,
    ),
    _loss(
        "F.hinge_embedding_loss",
        lambda x, y, margin=1.0, reduction="mean": _reduce(
            np.where(_f(y) == 1, _f(x), np.maximum(0, margin - _f(x))), reduction
        ),  # fmt: skip
        lambda m: [S(m(3, 4), _signs(m, 3, 4), margin=0.5)],
        gradgrad=False,
    ),
    _loss(
        "F.margin_ranking_loss",
        lambda a, b, y, margin=0.0, reduction="mean": _reduce(
            np.maximum(0, -_f(y) * (_f(a) - _f(b)) + margin), reduction
        ),  # fmt: skip
        lambda m: [S(m(5), m(5), _signs(m, 5), margin=0.3)],
        gradgrad=False,
    ),
    _loss(
        "F.cosine_embedding_loss",
        lambda a, b, y, margin=0.0, reduction="mean": _reduce(
            np.where(_f(y) == 1, 1 - _cos(a, b), np.maximum(0, _cos(a, b) - margin)), reduction
        ),  # fmt: skip
        lambda m: [S(m(3, 4), m(3, 4), _signs(m, 3), margin=-0.9)],
    ),
    _loss(
        "F.triplet_margin_loss",
        lambda a, p, n, margin=1.0, p_norm=2, swap=False, reduction="mean": _triplet_ref(
            a, p, n, margin, p_norm, swap=swap, reduction=reduction
        ),  # fmt: skip
        lambda m: [
            S(m(3, 4), m(3, 4), m(3, 4), margin=3.0),
            S(m(3, 4), m(3, 4), m(3, 4), margin=3.0, swap=True),
        ],  # fmt: skip
    ),
    _loss(
        "F.triplet_margin_with_distance_loss",
        lambda a, p, n, margin=1.0, reduction="mean": _triplet_ref(
            a, p, n, margin, reduction=reduction
        ),  # fmt: skip
        lambda m: [S(m(3, 4), m(3, 4), m(3, 4), margin=3.0)],
    ),
    _loss(
        "F.poisson_nll_loss",
        lambda x, k, log_input=True, reduction="mean": _reduce(
            np.exp(_f(x)) - _f(k) * _f(x) if log_input else _f(x) - _f(k) * np.log(_f(x) + 1e-8),
            reduction,
        ),  # fmt: skip
        lambda m: [
            S(m(3, 4), m.of(m.rng.poisson(2.0, (3, 4)).astype(float), grad=False)),
            S(
                m(3, 4, lo=0.2, hi=3),
                m.of(m.rng.poisson(1.0, (3, 4)).astype(float), grad=False),
                log_input=False,
                reduction="sum",
            ),  # fmt: skip
        ],
    ),
    _loss(
        "F.gaussian_nll_loss",
        lambda x, y, var, reduction="mean": _reduce(
            0.5 * (np.log(_f(var)) + (_f(x) - _f(y)) ** 2 / _f(var)), reduction
        ),  # fmt: skip
        lambda m: [
            S(m(3, 4), m(3, 4, grad=False), m(3, 4, lo=0.2, hi=2)),
            S(m(3, 4), m(3, 4, grad=False), m(3, 1, lo=0.2, hi=2), reduction="none"),
        ],
    ),
    op(
        "F.ctc_loss",
        _ctc,
        lambda m: [
            S(m(4, 2, 3), m.of([[1, 2], [2, 2]], "int64", grad=False), [4, 4], [2, 2]),
            S(
                m(5, 2, 3),
                m.of([[1, 1], [2, 0]], "int64", grad=False),
                [5, 3],
                [2, 1],
                reduction="none",
            ),  # fmt: skip
        ],
        # on logits through log_softmax, as programs call it (PyTorch's gradient with respect to
        # log_probs itself adds exp(log_probs), which cancels only there)
        call=lambda lib, x, *a, **k: lib.L.nn.functional.ctc_loss(x.log_softmax(-1), *a, **k),
        method=False,
        tol=LOOSE,
    ),
]


def _cos(a, b):
    a, b = _f(a), _f(b)
    return (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))
