"""vmap and jacrev refuse malformed arguments as torch.func does, instead of running anyway."""

from __future__ import annotations

import pytest

import minigenesis as mg
from minigenesis.func import jacrev, vmap


@pytest.mark.parametrize("in_dims", [[0], None, True])
def test_vmap_in_dims_must_be_an_int_or_a_tuple(in_dims) -> None:
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(lambda x: x, in_dims=in_dims)(mg.ones(2, 3))


def test_vmap_in_dims_may_hold_a_list_for_a_list_argument() -> None:
    out = vmap(lambda xs: xs[0] * xs[1], in_dims=([0, None],))([mg.ones(2, 3), mg.full((3,), 2.0)])
    assert out.tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("chunk_size", [0, -1])
def test_vmap_and_jacrev_refuse_a_chunk_size_below_one(chunk_size) -> None:
    with pytest.raises(ValueError, match="chunk_size should be"):
        vmap(lambda x: x, chunk_size=chunk_size)(mg.ones(2))
    with pytest.raises(ValueError, match="chunk_size` should be greater than 0"):
        jacrev(lambda x: x, chunk_size=chunk_size)(mg.ones(2))


def test_an_unbatched_output_holding_nan_is_returned_once_with_out_dims_none() -> None:
    nan_and_one = mg.tensor([float("nan"), 1.0])
    doubled, same = vmap(lambda x: (x * 2, nan_and_one * 1), out_dims=(0, None))(mg.ones(3, 2))
    assert doubled.shape == (3, 2) and same.shape == (2,)
    assert same.isnan().tolist() == [True, False]
    with pytest.raises(ValueError, match="can not return a batched Tensor"):
        vmap(lambda x: x * 2, out_dims=None)(mg.arange(3.0))
