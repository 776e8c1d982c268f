"""Tensor ops at their edges, each against a NumPy / float64 closed form: round with decimals
in every float dtype, integer promotion with alpha and with 0-d operands, 0-d and empty tensors
in the index ops, integer arange and logspace from float arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

HALF_TO_NUMPY = {"float16": np.float16, "float32": np.float32, "float64": np.float64}


def _as_float64(t: mg.Tensor) -> np.ndarray:
    return t.to(mg.float64).numpy()


def _round_reference(x: np.ndarray, decimals: int) -> np.ndarray:
    """round-half-even of x to ``decimals`` places, computed in float64 on the stored values."""
    scale = 10.0 ** abs(decimals)
    return np.round(x * scale) / scale if decimals > 0 else np.round(x / scale) * scale


@pytest.mark.parametrize(
    ("dtype", "values", "decimals"),
    [
        ("float32", [-535.059, 960.323, 1234.5678, -0.0049, 35.0], -3),
        ("float32", [-535.059, 949.5, 1234.5678, 25.0, -14.9], -2),
        ("float32", [-535.059, 945.5, 1234.5678, 25.0, -14.9], -1),
        ("float64", [-535.059, 960.323, 1234.5678, -0.0049, 35.0], -3),
        ("float16", [3.05, 2.675, -0.15, 896.5, -423.75], 1),
        ("float16", [519.5, 986.5, -657.5, 0.125, 1.0], 2),
        ("float16", [949.5, 925.5, -805.5, 626.5], -1),
        ("bfloat16", [792.0, -394.0, 912.0, 1.23, 0.497], 1),
        ("bfloat16", [792.0, -394.0, 748.0, 948.0], -1),
    ],
)
def test_round_with_decimals_is_the_stored_value_rounded_in_float64(dtype, values, decimals):
    """x * 10^d must neither overflow a 2-byte float nor be rounded to its 8 or 11 bits before
    it is rounded to an integer, and x * 0.001 / 0.001 is not x's thousands (0.001 is inexact)."""
    x = mg.tensor(values, dtype=getattr(mg, dtype))
    stored = _as_float64(x)
    want = mg.tensor(_round_reference(stored, decimals)).to(x.dtype)
    got = mg.round(x, decimals=decimals)
    assert got.dtype is x.dtype
    np.testing.assert_array_equal(_as_float64(got), _as_float64(want))
