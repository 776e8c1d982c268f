"""A NumPy integer (``np.int64(2)``, or a 0-d integer array) used as an index is an int, so
``x[np.int64(2)]`` is a view that writes reach, as ``x[2]`` is; ``element in t`` compares
elementwise (``(element == t).any()``), so it works for a 2-d tensor and for a row; iterating a
0-d tensor is refused when ``iter()`` is called; ``"ab" * int_tensor`` repeats the string, as
with an int. Oracle: NumPy's views, ``np.any(a == e)`` and Python's own int results."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("index", [np.int64(2), np.int32(2), np.uint8(2), np.array(2)])
def test_a_numpy_integer_index_is_a_view_like_an_int(index) -> None:
    ref = np.arange(5.0)
    x = mg.tensor(ref.copy())
    x[index].fill_(9.0)
    ref[int(index)] = 9.0
    np.testing.assert_array_equal(x.numpy(), ref)
    rows = mg.tensor(np.arange(12.0).reshape(3, 4))
    rows[index, np.int64(1) :].zero_()
    want = np.arange(12.0).reshape(3, 4)
    want[int(index), 1:] = 0.0
    np.testing.assert_array_equal(rows.numpy(), want)


def test_in_compares_elementwise_over_a_2d_tensor() -> None:
    a = np.array([[1, 2], [3, 4]])
    t = mg.tensor(a)
    for element in (3, 5, 2.0, np.int64(4)):
        assert (element in t) == bool(np.any(a == element))
    assert mg.tensor([1, 2]) in t  # a row of it
    assert mg.tensor([4, 1]) not in t  # broadcast: no position matches
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        _ = "a" in t


def test_iter_of_a_0d_tensor_is_refused_at_once() -> None:
    with pytest.raises(TypeError, match="0-d"):
        iter(mg.tensor(1.0))
    assert [v.item() for v in mg.arange(3)] == [0, 1, 2]


def test_a_string_times_an_integer_tensor_repeats_as_with_an_int() -> None:
    n = mg.tensor(3)
    assert "ab" * n == "ab" * 3
    assert n * b"x" == b"xxx"
    with pytest.raises(TypeError):
        _ = "ab" * mg.tensor(2.0)  # not an index
