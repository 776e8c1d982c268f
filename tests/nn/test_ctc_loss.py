"""F.ctc_loss / nn.CTCLoss against the definition: the probability of a target is the sum, over
every path of labels and blanks that collapses to it (repeats merged, then blanks removed), of
the product of the path's per-step probabilities, enumerated by brute force at small sizes.
Gradients against float64 central differences."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck

rng = np.random.default_rng(0)


def _collapse(path, blank=0):
    merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
    return tuple(k for k in merged if k != blank)


def _brute_force_nll(log_probs, target, length, blank=0):
    """-log sum over paths of length ``length`` collapsing to ``target``."""
    c = log_probs.shape[-1]
    total = 0.0
    for path in itertools.product(range(c), repeat=length):
        if _collapse(path, blank) == tuple(target):
            total += math.exp(sum(log_probs[t, k] for t, k in enumerate(path)))
    return -math.log(total) if total > 0 else math.inf


def _log_softmax(x):
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_is_minus_log_the_sum_over_collapsing_paths(blank):
    t_max, n, c = 5, 3, 3
    lp = _log_softmax(rng.standard_normal((t_max, n, c)))
    labels = [k for k in range(c) if k != blank]
    targets = np.array([[labels[0], labels[1]], [labels[1], labels[1]], [labels[0], 0]])
    in_len, tg_len = [5, 4, 3], [2, 2, 1]
    got = F.ctc_loss(mg.tensor(lp), mg.tensor(targets), in_len, tg_len, blank, reduction="none")
    want = [
        _brute_force_nll(lp[: in_len[i], i], targets[i, : tg_len[i]], in_len[i], blank)
        for i in range(n)
    ]
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    mean = nn.CTCLoss(blank=blank)(mg.tensor(lp), mg.tensor(targets), in_len, tg_len)
    np.testing.assert_allclose(mean.item(), np.mean(np.array(want) / tg_len), rtol=1e-12)


def test_concatenated_targets_and_an_impossible_alignment():
    lp = _log_softmax(rng.standard_normal((4, 2, 4)))
    flat = mg.tensor([1, 2, 3, 3, 3])  # targets (1, 2) and (3, 3, 3)
    got = F.ctc_loss(mg.tensor(lp), flat, [4, 4], [2, 3], reduction="none")
    # (3, 3, 3) needs a blank between repeats: 5 steps, more than the 4 there are
    assert math.isinf(got[1].item())
    np.testing.assert_allclose(got[0].item(), _brute_force_nll(lp[:, 0], (1, 2), 4), rtol=1e-12)
    zeroed = F.ctc_loss(mg.tensor(lp), flat, [4, 4], [2, 3], reduction="none", zero_infinity=True)
    assert zeroed[1].item() == 0.0


def test_ctc_loss_gradient_matches_central_differences():
    lp = mg.tensor(_log_softmax(rng.standard_normal((5, 2, 3))), requires_grad=True)
    targets = mg.tensor([[1, 2], [2, 2]])

    def loss(lp):
        return F.ctc_loss(lp, targets, [5, 5], [2, 2], reduction="none")

    assert gradcheck(loss, (lp,), eps=1e-6, atol=1e-7)
