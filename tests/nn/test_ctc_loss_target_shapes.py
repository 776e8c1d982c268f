"""ctc_loss of an unbatched (T, C) input takes its lengths as 0-d tensors (or numbers), and the
targets' shape is checked as PyTorch checks it: 1-d targets hold exactly sum(target_lengths)
labels, 2-d ones one row per sequence at least as long as the longest target (RuntimeError)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _ctc_nll(lp: np.ndarray, target: list, blank: int) -> float:
    """-log p(target) by summing over every alignment of length T (brute force, T small)."""
    import itertools

    t_len, c = lp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_len):
        collapsed = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
        if [k for k in collapsed if k != blank] == target:
            total += np.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -np.log(total)


def _log_probs(shape: tuple, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(shape)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


def test_unbatched_input_takes_zero_dim_lengths() -> None:
    lp = _log_probs((4, 3), 0)
    expected = _ctc_nll(lp, [1, 2], blank=0)
    for lengths in [(mg.tensor(4), mg.tensor(2)), (4, 2), (mg.tensor([4]), mg.tensor([2]))]:
        loss = F.ctc_loss(mg.tensor(lp), mg.tensor([1, 2]), *lengths, reduction="sum")
        np.testing.assert_allclose(float(loss), expected, rtol=1e-10)


def test_unbatched_input_gradient_with_zero_dim_lengths_matches_central_differences() -> None:
    lp0 = _log_probs((3, 3), 1)
    x = mg.tensor(lp0, requires_grad=True)
    F.ctc_loss(x, mg.tensor([2]), mg.tensor(3), mg.tensor(1), reduction="sum").backward()
    num = np.zeros_like(lp0)
    for i in np.ndindex(lp0.shape):
        e = np.zeros_like(lp0)
        e[i] = 1e-6
        num[i] = (_ctc_nll(lp0 + e, [2], 0) - _ctc_nll(lp0 - e, [2], 0)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize(
    ("shape_in", "targets", "lengths"),
    [
        ((5, 3), [1, 2, 1], (5, 2)),  # unbatched: 3 labels for a target of 2
        ((5, 3), [1], (5, 0)),  # unbatched: 1 label for an empty target
        ((5, 2, 3), [1, 2, 1], ([5, 5], [1, 1])),  # concatenated: 3 labels for 2
        ((5, 2, 3), [[1, 2, 1]], ([5, 5], [1, 1])),  # padded: 1 row for 2 sequences
        ((5, 2, 3), [[1, 2], [1, 1]], ([5, 5], [2, 3])),  # padded: rows shorter than 3
        ((5, 2, 3), [[[1, 2], [1, 1]]], ([5, 5], [2, 2])),  # 3-d targets
    ],
)
def test_misshapen_targets_raise_runtime_error(shape_in, targets, lengths) -> None:
    lp = mg.tensor(_log_probs(shape_in, 2))
    with pytest.raises(RuntimeError, match="targets"):
        F.ctc_loss(lp, mg.tensor(targets), *lengths)
