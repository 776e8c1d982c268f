"""Argument forms PyTorch refuses are refused here with its exception type: a number as the
other operand of maximum/minimum, bool input to median/topk, a positional dim beside ``stable``."""

from __future__ import annotations

import pytest

import minigenesis as mg


@pytest.mark.parametrize("name", ["maximum", "minimum"])
@pytest.mark.parametrize("other", [2.0, 1, [1.0, 2.0, 3.0]])
def test_maximum_minimum_take_a_tensor_not_a_number(name, other):
    x = mg.tensor([1.0, 3.0, 2.0])
    with pytest.raises(TypeError, match="must be Tensor"):
        getattr(mg, name)(x, other)
    with pytest.raises(TypeError, match="must be Tensor"):
        getattr(x, name)(other)
    # a 0-d tensor is fine: maximum of [1, 3, 2] and 2 is [2, 3, 2]
    expected = [2.0, 3.0, 2.0] if name == "maximum" else [1.0, 2.0, 2.0]
    assert getattr(mg, name)(x, mg.tensor(2.0)).tolist() == expected


@pytest.mark.parametrize("dim", [None, 0])
def test_median_of_bool_is_not_implemented(dim):
    b = mg.tensor([True, False, True])
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        b.median() if dim is None else b.median(dim)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        b.nanmedian() if dim is None else b.nanmedian(dim)


def test_topk_of_bool_is_refused():
    with pytest.raises(RuntimeError, match="topk does not support bool"):
        mg.topk(mg.tensor([True, False, True]), 1)


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_with_stable_needs_dim_by_keyword(name):
    x = mg.tensor([[3.0, 1.0], [2.0, 5.0]])
    for call in (
        lambda: getattr(mg, name)(x, 0, stable=True),
        lambda: getattr(x, name)(0, stable=False),
    ):
        with pytest.raises(TypeError, match="by keyword"):
            call()
    idx = lambda r: (r[1] if name == "sort" else r).tolist()  # noqa: E731
    assert idx(getattr(mg, name)(x, dim=0, stable=True)) == [[1, 0], [0, 1]]
    assert idx(getattr(x, name)(0)) == [[1, 0], [0, 1]]
    assert idx(getattr(x, name)(0, True)) == [[0, 1], [1, 0]]  # descending, positionally
    assert idx(getattr(mg, name)(x, descending=True, stable=True)) == [[0, 1], [1, 0]]


@pytest.mark.parametrize(
    "name",
    ["maximum", "minimum", "fmax", "fmin", "fmod", "atan2", "hypot", "copysign", "ldexp",
     "logaddexp", "logaddexp2", "heaviside", "logical_and", "logical_or", "logical_xor"],
)  # fmt: skip
def test_tensor_only_binary_functions_refuse_a_number_as_input(name):
    # PyTorch has no Scalar-Tensor form of these (add, mul, remainder and the shifts have one)
    with pytest.raises(TypeError, match="input"):
        getattr(mg, name)(2, mg.tensor([1.0, 2.0]))
