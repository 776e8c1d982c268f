"""``diag_embed`` with the diagonal placed on any pair of dims returns a row-major (contiguous)
tensor, as PyTorch's, so ``.view(-1)`` on it works; values match a NumPy loop."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _numpy_diag_embed(a: np.ndarray, offset: int, d1: int, d2: int) -> np.ndarray:
    n = a.shape[-1] + abs(offset)
    out = np.zeros(a.shape[:-1] + (n, n))
    for k in range(a.shape[-1]):
        i, j = (k, k + offset) if offset >= 0 else (k - offset, k)
        out[..., i, j] = a[..., k]
    return np.moveaxis(out, (-2, -1), (d1, d2))


@pytest.mark.parametrize(("offset", "d1", "d2"), [(0, 0, 2), (1, 2, 0), (-1, -1, -3), (0, -2, -1)])
def test_diag_embed_is_contiguous_and_views_flat(offset, d1, d2) -> None:
    a = np.arange(6.0).reshape(2, 3) + 1
    out = mg.diag_embed(mg.tensor(a), offset, d1, d2)
    expected = _numpy_diag_embed(a, offset, d1, d2)
    assert out.is_contiguous()
    np.testing.assert_array_equal(out.view(-1).numpy(), expected.reshape(-1))
