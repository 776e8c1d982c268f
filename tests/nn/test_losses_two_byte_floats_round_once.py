"""binary_cross_entropy, binary_cross_entropy_with_logits, nll_loss and kl_div of
float16/bfloat16 tensors compute in float32 and round once (the reduced loss, and each input's
gradient), as PyTorch's kernels do: within half an ulp of float64. Composed in the 2-byte dtype
they rounded after every step: a gradient (1 - y) - sigmoid(-x) of nearly cancelling terms was
up to ~19 ulps off, a weighted mean sum(w x) / sum(w) ~1.2."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from tests.nn.half_precision_oracle import assert_rounds_once, rounded, ulp_errors

HALF_ULP = 0.5 + 1e-2
DTYPES = ["float16", "bfloat16"]


def _check(fn, arrays, dtype, reduction):
    assert_rounds_once(fn, arrays, dtype, HALF_ULP, 3, reduction=reduction)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_cross_entropy_with_logits_rounds_once(reduction, dtype):
    rng = np.random.default_rng(0)
    x, y = rounded(rng.standard_normal(64) * 4, dtype), rounded(rng.uniform(0, 1, 64), dtype)
    w, pw = rounded(rng.uniform(0.5, 2, 64), dtype), rounded(rng.uniform(0.5, 2, 64), dtype)

    def bce(x, y, w, pw, reduction):
        return F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw)

    _check(bce, [x, y, w, pw], dtype, reduction)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_binary_cross_entropy_rounds_once(reduction, dtype):
    rng = np.random.default_rng(1)
    x, y = rounded(rng.uniform(0.05, 0.95, 64), dtype), rounded(rng.uniform(0, 1, 64), dtype)

    def bce(x, y, reduction):
        return F.binary_cross_entropy(x, y, reduction=reduction)

    _check(bce, [x, y], dtype, reduction)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean"])
def test_kl_div_rounds_once(reduction, dtype):
    rng = np.random.default_rng(2)
    logq, p = (
        rounded(-rng.uniform(0.1, 4, (8, 6)), dtype),
        rounded(rng.uniform(0, 1, (8, 6)), dtype),
    )
    _check(lambda q, p, reduction: F.kl_div(q, p, reduction=reduction), [logq, p], dtype, reduction)


@pytest.mark.parametrize("dtype", DTYPES)
def test_nll_loss_weighted_mean_with_ignored_targets_rounds_once(dtype):
    rng = np.random.default_rng(3)
    x, w = rounded(-rng.uniform(0.1, 4, (16, 5)), dtype), rounded(rng.uniform(0.5, 2, 5), dtype)
    t = rng.integers(0, 5, 16)
    t[::4] = -1
    outs = []
    for dt in (getattr(mg, dtype), mg.float64):
        xt = mg.tensor(x).to(dt).requires_grad_(True)
        loss = F.nll_loss(xt, mg.tensor(t), mg.tensor(w).to(dt), ignore_index=-1)
        outs.append((loss, mg.autograd.grad(loss, [xt])[0]))
    (loss, g), (loss64, g64) = outs
    assert loss.dtype == getattr(mg, dtype)
    assert ulp_errors(loss, loss64.detach().numpy(), dtype).max() <= HALF_ULP
    assert ulp_errors(g, g64.numpy(), dtype).max() <= HALF_ULP


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean"])
def test_triplet_margin_with_default_distance_rounds_once(reduction, dtype):
    rng = np.random.default_rng(4)
    a, p, n = (rounded(rng.standard_normal((6, 5)), dtype) for _ in range(3))

    def triplet(a, p, n, reduction):
        return F.triplet_margin_with_distance_loss(a, p, n, margin=3.0, reduction=reduction)

    _check(triplet, [a, p, n], dtype, reduction)
