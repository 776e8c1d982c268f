"""masked_scatter / masked_scatter_ take a bool mask and a source of self's dtype, as PyTorch: a
float or uint8 mask (whose 0.5s or 2s would read as True) and a source of another dtype are
refused with a RuntimeError; a bool mask fills the True places in order (NumPy oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize(
    ("mask", "source", "match"),
    [
        (mg.full((2, 3), 0.5), mg.ones(6), "boolean masks"),
        (mg.ones(2, 3, dtype=mg.uint8), mg.ones(6), "boolean masks"),
        (mg.ones(2, 3, dtype=mg.bool), mg.ones(6, dtype=mg.float64), "same dtypes"),
    ],
)
def test_masked_scatter_refuses_bad_mask_or_source_dtype(inplace, mask, source, match) -> None:
    x = mg.zeros(2, 3)
    with pytest.raises(RuntimeError, match=match):
        (x.masked_scatter_ if inplace else x.masked_scatter)(mask, source)
    np.testing.assert_array_equal(x.numpy(), np.zeros((2, 3)))


def test_masked_scatter_fills_true_places_in_order() -> None:
    m = np.array([[True, False, True], [False, True, False]])
    src = np.arange(1.0, 7.0, dtype=np.float32)
    out = mg.zeros(2, 3).masked_scatter(mg.tensor(m), mg.tensor(src))
    expected = np.zeros((2, 3), dtype=np.float32)
    expected[m] = src[: m.sum()]
    np.testing.assert_array_equal(out.numpy(), expected)
