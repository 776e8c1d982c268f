"""Sequential.insert accepts -len <= index <= len (as PyTorch's) and raises IndexError beyond."""

import pytest

from minigenesis import nn


def test_sequential_insert_accepts_both_ends_and_negative_positions() -> None:
    relu, tanh, elu, gelu = nn.ReLU(), nn.Tanh(), nn.ELU(), nn.GELU()
    seq = nn.Sequential(relu, tanh)
    seq.insert(2, elu)  # index == len: append
    seq.insert(-3, gelu)  # index == -len: first
    assert list(seq) == [gelu, relu, tanh, elu]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2", "3"]


@pytest.mark.parametrize("index", [3, -3])
def test_sequential_insert_out_of_range_raises_index_error(index: int) -> None:
    seq = nn.Sequential(nn.ReLU(), nn.Tanh())
    with pytest.raises(IndexError, match="Index out of range"):
        seq.insert(index, nn.ELU())
    assert len(seq) == 2
