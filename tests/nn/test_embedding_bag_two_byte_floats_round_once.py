"""embedding_bag (sum and mean) of a float16/bfloat16 table computes the weighted rows, the bag
sums and the means in float32 and rounds once, as PyTorch's CPU kernel does: output, the
table's gradient (rows picked many times add up) and the per-sample weights' gradient within
half an ulp (plus float32's own rounding) of the float64 result of the same values. In the low
dtype each product, add and division rounded: up to 12 ulps in per_sample_weights' gradient
and 43 in the table's."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import assert_rounds_once, rounded

HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel
IDX = np.array([1, 4, 1, 1, 0, 3, 4, 4, 2, 1, 0, 4])
OFFSETS = np.array([0, 3, 5, 9])


def _check(fn, arrays, dtype):
    assert_rounds_once(fn, arrays, dtype, HALF_ULP)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_weighted_bag_sums_are_rounded_once(dtype):
    rng = np.random.default_rng(0)
    table, psw = rounded(rng.standard_normal((5, 6)), dtype), rounded(rng.random(12) + 0.5, dtype)

    def fn(w, p):
        return mg.nn.functional.embedding_bag(
            mg.tensor(IDX), w, mg.tensor(OFFSETS), mode="sum", per_sample_weights=p
        )

    _check(fn, [table, psw], dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_bag_means_with_padding_are_rounded_once(dtype):
    table = rounded(np.random.default_rng(1).standard_normal((5, 6)), dtype)

    def fn(w):
        return mg.nn.functional.embedding_bag(mg.tensor(IDX.reshape(3, 4)), w, padding_idx=0)

    _check(fn, [table], dtype)
