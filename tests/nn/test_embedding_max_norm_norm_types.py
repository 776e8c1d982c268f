"""Embedding's max_norm renormalises each looked-up row whose norm_type-norm exceeds max_norm to
max_norm / (norm + 1e-7) times itself, with torch.norm's p-norms: max |w| for p = inf, min |w|
for p = -inf, the count of nonzeros for p = 0, (sum |w|^p)^(1/p) otherwise (NumPy oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _renormed(w: np.ndarray, rows: list, max_norm: float, p: float) -> np.ndarray:
    out = w.copy()
    for r in set(rows):
        norm = np.linalg.norm(w[r], ord=p) if p != 0 else np.count_nonzero(w[r])
        if norm > max_norm:
            out[r] = w[r] * (max_norm / (norm + 1e-7))
    return out


@pytest.mark.parametrize("p", [math.inf, -math.inf, 0.0, 1.0, 3.5, 0.5])
def test_max_norm_renormalises_rows_by_the_norm_type(p: float) -> None:
    w0 = np.random.default_rng(0).standard_normal((5, 3))
    w0[3, 1] = 0.0  # a zero entry: counts for p = 0, is the minimum for p = -inf
    idx = [0, 2, 2, 3, 4]
    weight = mg.tensor(w0.copy())
    out = F.embedding(mg.tensor(idx), weight, max_norm=0.4, norm_type=p)
    expected = _renormed(w0, idx, 0.4, p)
    np.testing.assert_allclose(weight.numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(out.numpy(), expected[idx], rtol=1e-12)
    np.testing.assert_array_equal(weight.numpy()[1], w0[1])  # a row not looked up stays


def test_embedding_module_with_infinity_norm_caps_the_largest_entry() -> None:
    emb = mg.nn.Embedding(4, 3, max_norm=1.0, norm_type=math.inf)
    with mg.no_grad():
        emb.weight.copy_(mg.tensor([[3.0, -0.5, 0.2], [0.1, 0.2, 0.3], [0, 0, 0], [-2, 4, 1]]))
    out = emb(mg.tensor([0, 1, 3])).detach().numpy()
    np.testing.assert_allclose(np.abs(out).max(axis=1), [1.0, 0.3, 1.0], rtol=1e-6)
