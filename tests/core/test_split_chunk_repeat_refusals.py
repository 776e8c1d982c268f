"""split / chunk / repeat / tile refuse bad sizes with PyTorch's RuntimeError: a split size of 0
(of a non-empty dim) or below, section sizes that do not add up to the dim, negative section
sizes even when they add up ([4, -1] of 3 used to give a piece of 3 and a piece of 0), zero or
negative chunk counts, and negative repeat counts."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.split(0, 1),
        lambda x: x.split(-1, 1),
        lambda x: x.split([1, 1], 1),
        lambda x: x.split([4, -1], 1),
        lambda x: x.chunk(0, 1),
        lambda x: x.chunk(-2, 1),
        lambda x: x.repeat(1, -1, 1),
        lambda x: x.tile((-1,)),
    ],
)
def test_bad_split_chunk_repeat_sizes_raise_runtime_error(call) -> None:
    x = mg.zeros(2, 3, 4)
    with pytest.raises(RuntimeError):
        call(x)


def test_good_sections_still_split() -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    pieces = mg.tensor(a).split([2, 0, 1], 1)
    expected = np.split(a, [2, 2], axis=1)
    assert [tuple(p.shape) for p in pieces] == [e.shape for e in expected]
    for p, e in zip(pieces, expected, strict=True):
        np.testing.assert_array_equal(p.numpy(), e)


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_chunk_of_an_empty_dim_gives_that_many_empty_pieces(chunks) -> None:
    # PyTorch's rule (np.array_split agrees): n chunks of a dim of size 0 are n empty pieces
    pieces = mg.zeros(0, 3).chunk(chunks)
    expected = np.array_split(np.zeros((0, 3)), chunks)
    assert [tuple(p.shape) for p in pieces] == [e.shape for e in expected]


@pytest.mark.parametrize(
    "spec",
    [
        mg.tensor([1.0]),
        mg.tensor([1], dtype=mg.int32),
        mg.tensor(True),
        mg.tensor([[1]]),
    ],
)
def test_tensor_split_refuses_a_tensor_that_is_not_0d_or_1d_int64(spec) -> None:
    # a float tensor of positions must not be read as int positions (PyTorch refuses it)
    with pytest.raises(RuntimeError, match="tensor_split"):
        mg.zeros(2, 3).tensor_split(spec, 1)


def test_tensor_split_takes_int64_tensor_indices_and_sections() -> None:
    a = np.arange(12.0).reshape(2, 6)
    x = mg.tensor(a)
    got = [p.numpy() for p in x.tensor_split(mg.tensor([1, 4]), 1)]
    for g, e in zip(got, np.split(a, [1, 4], axis=1), strict=True):
        np.testing.assert_array_equal(g, e)
    shapes = [tuple(p.shape) for p in x.tensor_split(mg.tensor(4), 1)]
    assert shapes == [e.shape for e in np.array_split(a, 4, axis=1)]
