"""A mask or a condition must hold bools: masked_fill(_), masked_select and where refuse a float or
integer mask with PyTorch's RuntimeError and words, instead of reading "nonzero means True" (a
mask of probabilities or of indices is a mistake, not another mask). uint8, which PyTorch's where
still takes with a deprecation warning, is refused too."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

MASKED_OPS = {
    "Tensor.masked_fill": (
        lambda x, m: x.masked_fill(m, 1.0),
        "masked_fill_ only supports boolean masks, but got mask with dtype",
    ),
    "Tensor.masked_fill_": (
        lambda x, m: x.masked_fill_(m, 1.0),
        "masked_fill_ only supports boolean masks, but got mask with dtype",
    ),
    "mg.masked_fill": (
        lambda x, m: mg.masked_fill(x, m, 1.0),
        "masked_fill_ only supports boolean masks, but got mask with dtype",
    ),
    "Tensor.masked_select": (
        lambda x, m: x.masked_select(m),
        "masked_select: expected BoolTensor for mask",
    ),
    "mg.masked_select": (
        lambda x, m: mg.masked_select(x, m),
        "masked_select: expected BoolTensor for mask",
    ),
    "mg.where": (
        lambda x, m: mg.where(m, x, 2.0),
        "where expected condition to be a boolean tensor, but got a tensor with dtype",
    ),
    "Tensor.where": (
        lambda x, m: x.where(m, 2.0),
        "where expected condition to be a boolean tensor, but got a tensor with dtype",
    ),
}
MASK = [True, False, True, False]


@pytest.mark.parametrize("op", MASKED_OPS)
@pytest.mark.parametrize("dtype", [mg.float32, mg.int64, mg.uint8])
def test_a_non_boolean_mask_is_refused_and_nothing_is_written(op, dtype):
    run, words = MASKED_OPS[op]
    x = mg.zeros(4)
    mask = mg.tensor(MASK, dtype=dtype)
    with pytest.raises(RuntimeError, match=f"{words}.*{dtype.name}"):
        run(x, mask)
    assert x.tolist() == [0.0] * 4


@pytest.mark.parametrize("op", MASKED_OPS)
def test_a_boolean_mask_still_selects_against_numpy(op):
    run, _ = MASKED_OPS[op]
    x = mg.tensor([5.0, 6.0, 7.0, 8.0])
    ref, mask = x.numpy().copy(), np.array(MASK)
    out = run(x, mg.tensor(MASK))
    expected = {
        "masked_fill": np.where(mask, 1.0, ref),
        "masked_select": ref[mask],
        "where": np.where(mask, ref, 2.0),
    }[op.split(".")[1].rstrip("_")]
    np.testing.assert_array_equal(out.numpy(), expected)
