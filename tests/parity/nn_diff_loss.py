"""Random configurations of every loss module for the nn differential test (``nn_diff``): each
reduction, class weights, ignore_index, label smoothing, pos_weight, beta/delta/margin/p, and
edge inputs (a batch of one, targets all ignored, probabilities at 0 and 1)."""

from __future__ import annotations

import numpy as np

from .nn_diff import Case, T
from .nn_diff_conv import dtype


def _n(rng, lo, hi):
    return int(rng.integers(lo, hi + 1))


def _big(rng) -> float:
    """The logits' scale: now and then large enough that a naive log-sum-exp overflows."""
    return float(rng.choice([2.0, 2.0, 3.0, 200.0]))


def _red(rng) -> dict:
    return {"reduction": str(rng.choice(["none", "mean", "sum"]))}


def _shape(rng, lo=0, hi=3):
    return tuple(_n(rng, 1, 4) for _ in range(_n(rng, lo, hi)))


def regression(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "SoftMarginLoss"]))
    kw = _red(rng)
    if name == "SmoothL1Loss":
        kw["beta"] = float(rng.choice([1.0, 0.5, 0.0, 2.0]))
    if name == "HuberLoss":
        kw["delta"] = float(rng.choice([1.0, 0.5, 2.0]))
    shape = _shape(rng)
    y = rng.standard_normal(shape)
    if name == "SoftMarginLoss":
        y = np.sign(y) + (y == 0)
    x = rng.standard_normal(shape) * 2
    return Case(f"nn.{name}", (), kw, [T(x), T(y, grad=name != "SoftMarginLoss")], dtype=dtype(rng))


def bce(rng: np.random.Generator) -> Case:
    logits = rng.random() < 0.6
    shape = _shape(rng, 1)
    kw = _red(rng)
    if rng.random() < 0.4:
        kw["weight"] = T(rng.uniform(0.2, 2, shape[-1:]), grad=False)
    if logits and rng.random() < 0.4:
        kw["pos_weight"] = T(rng.uniform(0.2, 3, shape[-1:]), grad=False)
    y = rng.random(shape)
    if rng.random() < 0.5:
        y = (y < 0.5) * 1.0
    if logits:
        return Case(
            "nn.BCEWithLogitsLoss",
            (),
            kw,
            [T(rng.standard_normal(shape) * _big(rng)), T(y)],
            dtype=dtype(rng),
        )
    p = rng.uniform(0.02, 0.98, shape)
    if rng.random() < 0.1:
        p.flat[0], y.flat[0] = 1.0, 1.0  # log(0) clamped to -100 in both
    return Case("nn.BCELoss", (), kw, [T(p), T(y)], dtype=dtype(rng))


def _classes(rng, c, shape, ignore=None, all_ignored=False):
    t = rng.integers(0, c, shape)
    if ignore is not None:
        t = np.where(rng.random(shape) < (1.0 if all_ignored else 0.3), ignore, t)
    return T(t, "long", False)


def cross_entropy(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["CrossEntropyLoss", "NLLLoss"]))
    c = _n(rng, 2, 5)
    spatial = tuple(_n(rng, 1, 3) for _ in range(_n(rng, 0, 2)))
    unbatched = rng.random() < 0.15
    shape = (c, *spatial) if unbatched else (_n(rng, 1, 4), c, *spatial)
    tshape = spatial if unbatched else (shape[0], *spatial)
    kw = _red(rng)
    if rng.random() < 0.4:
        kw["weight"] = T(rng.uniform(0.2, 2, c), grad=False)
    probs = name == "CrossEntropyLoss" and rng.random() < 0.25
    if rng.random() < 0.4 and not probs:
        kw["ignore_index"] = int(rng.choice([-100, 0, c - 1]))
    if name == "CrossEntropyLoss" and rng.random() < 0.4:
        kw["label_smoothing"] = float(rng.choice([0.1, 0.5, 1.0]))
    x = rng.standard_normal(shape) * _big(rng)
    if name == "NLLLoss":
        x = x - np.log(np.exp(x).sum(axis=0 if unbatched else 1, keepdims=True))
    if probs:
        p = rng.random(shape)
        target = T(p / p.sum(axis=0 if unbatched else 1, keepdims=True))
    else:
        ig = kw.get("ignore_index")
        target = _classes(rng, c, tshape, ig, all_ignored=rng.random() < 0.1)
    return Case(f"nn.{name}", (), kw, [T(x), target], dtype=dtype(rng))


def kl_poisson_gaussian(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss"]))
    shape = _shape(rng, 1)
    kw = _red(rng)
    if name == "KLDivLoss":
        kw["reduction"] = str(rng.choice(["none", "mean", "sum", "batchmean"]))
        kw["log_target"] = bool(rng.random() < 0.5)
        x = np.log(rng.uniform(0.05, 1, shape))
        y = rng.uniform(0.0, 1, shape)
        if rng.random() < 0.3:
            y.flat[0] = 0.0  # 0 log 0 = 0
        y = np.log(y + 1e-3) if kw["log_target"] else y
        return Case("nn.KLDivLoss", (), kw, [T(x), T(y)], dtype=dtype(rng))
    if name == "PoissonNLLLoss":
        kw["log_input"] = bool(rng.random() < 0.5)
        kw["full"] = bool(rng.random() < 0.5)
        kw["eps"] = float(rng.choice([1e-8, 0.1]))
        x = rng.standard_normal(shape) if kw["log_input"] else rng.uniform(0.1, 3, shape)
        y = rng.integers(0, 5, shape).astype(float)
        return Case("nn.PoissonNLLLoss", (), kw, [T(x), T(y)], dtype=dtype(rng))
    kw["full"] = bool(rng.random() < 0.5)
    kw["eps"] = float(rng.choice([1e-6, 0.5]))
    vshape = shape if rng.random() < 0.6 else (*shape[:-1], 1)
    var = rng.uniform(0.01, 2, vshape)
    return Case(
        "nn.GaussianNLLLoss",
        (),
        kw,
        [T(rng.standard_normal(shape)), T(rng.standard_normal(shape)), T(var)],
        dtype=dtype(rng),
    )


def margin(rng: np.random.Generator) -> Case:
    name = str(
        rng.choice(
            [
                "HingeEmbeddingLoss",
                "CosineEmbeddingLoss",
                "MarginRankingLoss",
                "MultiMarginLoss",
                "MultiLabelMarginLoss",
                "MultiLabelSoftMarginLoss",
            ]
        )
    )
    kw = _red(rng)
    n, c = _n(rng, 1, 4), _n(rng, 2, 5)
    sign = lambda shape: np.where(rng.random(shape) < 0.5, -1.0, 1.0)  # noqa: E731
    if name == "HingeEmbeddingLoss":
        kw["margin"] = float(rng.choice([1.0, 0.5, 2.0]))
        shape = _shape(rng)
        return Case(
            f"nn.{name}",
            (),
            kw,
            [T(rng.standard_normal(shape) * 2), T(sign(shape), grad=False)],
            dtype=dtype(rng),
        )
    if name == "CosineEmbeddingLoss":
        kw["margin"] = float(rng.choice([0.0, 0.3, -0.5]))
        shape = (n, c) if rng.random() < 0.8 else (c,)
        y = sign(shape[:1]) if len(shape) == 2 else sign(())
        return Case(
            f"nn.{name}",
            (),
            kw,
            [T(rng.standard_normal(shape)), T(rng.standard_normal(shape)), T(y, grad=False)],
            dtype=dtype(rng),
        )
    if name == "MarginRankingLoss":
        kw["margin"] = float(rng.choice([0.0, 0.5]))
        shape = _shape(rng)
        return Case(
            f"nn.{name}",
            (),
            kw,
            [
                T(rng.standard_normal(shape)),
                T(rng.standard_normal(shape)),
                T(sign(shape), grad=False),
            ],
            dtype=dtype(rng),
        )
    if name == "MultiMarginLoss":
        kw["p"] = int(rng.choice([1, 2]))
        kw["margin"] = float(rng.choice([1.0, 0.5]))
        if rng.random() < 0.4:
            kw["weight"] = T(rng.uniform(0.2, 2, c), grad=False)
        shape = (n, c) if rng.random() < 0.8 else (c,)
        return Case(
            f"nn.{name}",
            (),
            kw,
            [T(rng.standard_normal(shape)), T(rng.integers(0, c, shape[:-1]), "long", False)],
            dtype=dtype(rng),
        )
    if name == "MultiLabelMarginLoss":
        shape = (n, c) if rng.random() < 0.8 else (c,)
        y = rng.integers(-1, c, shape)
        return Case(
            f"nn.{name}",
            (),
            kw,
            [T(rng.standard_normal(shape)), T(y, "long", False)],
            dtype=dtype(rng),
        )
    if rng.random() < 0.4:
        kw["weight"] = T(rng.uniform(0.2, 2, c), grad=False)
    y = (rng.random((n, c)) < 0.5) * 1.0
    return Case(f"nn.{name}", (), kw, [T(rng.standard_normal((n, c))), T(y)], dtype=dtype(rng))


def triplet(rng: np.random.Generator) -> Case:
    name = str(rng.choice(["TripletMarginLoss", "TripletMarginWithDistanceLoss"]))
    kw = _red(rng)
    kw["margin"] = float(rng.choice([1.0, 0.3]))
    kw["swap"] = bool(rng.random() < 0.4)
    if name == "TripletMarginLoss":
        kw["p"] = float(rng.choice([1.0, 2.0, 3.0]))
    shape = (_n(rng, 1, 4), _n(rng, 1, 4)) if rng.random() < 0.8 else (_n(rng, 1, 4),)
    xs = [T(rng.standard_normal(shape)) for _ in range(3)]
    return Case(f"nn.{name}", (), kw, xs, dtype=dtype(rng))


def ctc(rng: np.random.Generator) -> Case:
    c, n = _n(rng, 2, 5), _n(rng, 1, 3)
    t_len = _n(rng, 1, 6)
    kw = {**_red(rng), "blank": int(rng.integers(0, c)), "zero_infinity": bool(rng.random() < 0.5)}
    x = rng.standard_normal((t_len, n, c))
    in_lens = rng.integers(1, t_len + 1, n)
    tgt_lens = rng.integers(0, t_len + 1, n)  # may be too long for the input: loss inf
    labels = [k for k in range(c) if k != kw["blank"]]
    s = int(tgt_lens.max())
    targets = rng.choice(labels, (n, max(s, 1)))
    return Case(
        "X.ctc",
        (),
        kw,
        [T(x), T(targets, "long", False), T(in_lens, "long", False), T(tgt_lens, "long", False)],
        dtype=dtype(rng),
    )


def adaptive_log_softmax(rng: np.random.Generator) -> Case:
    """Cutoffs, div_value and head bias drawn; batched or an unbatched row; now and then a
    target out of range or bad cutoffs (both raise)."""
    n_classes = _n(rng, 3, 12)
    k = _n(rng, 1, min(3, n_classes - 1))
    cutoffs = sorted(int(c) for c in rng.choice(np.arange(1, n_classes), k, replace=False))
    if rng.random() < 0.04:
        cutoffs = cutoffs[::-1] if k > 1 else [n_classes]  # unsorted or too large
    features = _n(rng, 2, 9)
    kw = {"div_value": float(rng.choice([1.5, 2.0, 4.0])), "head_bias": bool(rng.random() < 0.5)}
    high = n_classes + (1 if rng.random() < 0.04 else 0)  # one past the last class now and then
    if rng.random() < 0.15:
        x, target = rng.standard_normal(features), T(np.array(rng.integers(0, high)), "long", False)
    else:
        n = _n(rng, 1, 6)
        x, target = rng.standard_normal((n, features)), T(rng.integers(0, high, n), "long", False)
    return Case(
        "nn.AdaptiveLogSoftmaxWithLoss",
        (features, n_classes, cutoffs),
        kw,
        [T(x), target],
        dtype=dtype(rng),
    )


GENERATORS = {
    "regression": regression,
    "bce": bce,
    "cross_entropy": cross_entropy,
    "kl_poisson_gaussian": kl_poisson_gaussian,
    "margin": margin,
    "triplet": triplet,
    "ctc": ctc,
    "adaptive_log_softmax": adaptive_log_softmax,
}
