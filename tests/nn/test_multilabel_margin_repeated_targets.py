"""multilabel_margin_loss sums over the entries of the target list (up to the first -1), so a
class listed twice counts twice; the non-targets are the classes not listed at all."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _reference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sum_{j in list} sum_{i not listed} max(0, 1 - x[j] + x[i]) / C, per row."""
    out = []
    for row, labels in zip(x, y):
        listed = []
        for k in labels:
            if k < 0:
                break
            listed.append(int(k))
        others = [i for i in range(len(row)) if i not in listed]
        total = sum(max(0.0, 1 - row[j] + row[i]) for j in listed for i in others)
        out.append(total / len(row))
    return np.array(out)


@pytest.mark.parametrize("target", [[0, 0, -1, 2], [3, 3, 3, 1], [1, -1, 1, 1], [2, 0, 2, -1]])
def test_a_class_listed_twice_counts_twice(target: list) -> None:
    x = np.array([[0.1, 0.2, 0.4, 0.8]])
    got = F.multilabel_margin_loss(mg.tensor(x), mg.tensor([target]), reduction="none")
    np.testing.assert_allclose(got.numpy(), _reference(x, np.array([target])), rtol=1e-12)


def test_gradient_of_repeated_targets_matches_central_differences() -> None:
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal((3, 5)) * 0.3
    y = np.array([[1, 1, 4, -1, 0], [0, 2, 2, 2, 3], [4, -1, 4, 4, 4]])
    x = mg.tensor(x0, requires_grad=True)
    F.multilabel_margin_loss(x, mg.tensor(y), reduction="sum").backward()
    num = np.zeros_like(x0)
    h = 1e-6
    for k in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[k] += h
        down[k] -= h
        num[k] = (_reference(up, y).sum() - _reference(down, y).sum()) / (2 * h)
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)
