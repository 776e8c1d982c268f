"""Tensor-level input that used to be accepted silently or to fail with an unrelated error:
each now gets PyTorch's exception type and a message that names what is wrong."""

from __future__ import annotations

import pytest

import minigenesis as mg


@pytest.mark.parametrize("shape", [(-2,), (2, -3), (-5, -1), (-2, 0)])
@pytest.mark.parametrize("method", ["reshape", "view"])
def test_a_size_below_minus_one_is_an_invalid_shape_dimension(method, shape):
    """NumPy reads every negative size as -1 (inferred), so reshape(-2) gave 4 elements."""
    x = mg.ones(0) if 0 in shape else mg.ones(4)
    bad = next(n for n in shape if n < -1)
    with pytest.raises(RuntimeError, match=f"invalid shape dimension {bad} at index "
                       f"{shape.index(bad)}"):  # fmt: skip
        getattr(x, method)(*shape)
    assert x.reshape(-1).shape == (x.numel(),)  # -1 itself still infers


def _nested(depth: int, leaf=1.0):
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def test_lists_nested_deeper_than_64_dims_are_a_value_error_not_a_recursion_error():
    assert mg.tensor(_nested(64)).shape == (1,) * 64  # the limit itself is fine
    for data in (_nested(65), _nested(100_000)):
        with pytest.raises(ValueError, match="too many dimensions 'list'"):
            mg.tensor(data)


def test_a_list_that_contains_itself_is_a_value_error():
    loop: list = [1.0]
    loop.append(loop)
    for data in (loop, [loop, loop]):
        with pytest.raises(ValueError, match="too many dimensions 'list'"):
            mg.as_tensor(data)


def _backward_with_hook(result, on_leaf: bool):
    x = mg.ones(3, requires_grad=True)
    y = x if on_leaf else x * 2
    y.register_hook(lambda g: result)
    y.sum().backward()
    return x


@pytest.mark.parametrize("on_leaf", [True, False], ids=["leaf", "non-leaf"])
@pytest.mark.parametrize("result, error, message", [
    (mg.ones(5), RuntimeError, r"has changed the size of value \(was \(3,\), got \(5,\)\)"),
    (mg.ones(1), RuntimeError, r"has changed the size of value"),
    (mg.ones(3, dtype=mg.int64), RuntimeError, r"has changed the type of value \(was float32, "
                                               r"got int64\)"),
    (mg.ones(3, dtype=mg.float64), RuntimeError, r"has changed the type of value"),
    ("not a tensor", TypeError, r"expected Tensor, but hook returned 'str'"),
])  # fmt: skip
def test_a_hook_that_returns_another_shape_dtype_or_type_is_refused(result, error, message,
                                                                     on_leaf):  # fmt: skip
    """PyTorch refuses these; before, a (5,) gradient landed in the (3,) leaf's .grad."""
    x = mg.ones(3, requires_grad=True)
    y = x if on_leaf else x * 2
    y.register_hook(lambda g: result)
    with pytest.raises(error, match=message):
        y.sum().backward()
    assert x.grad is None


@pytest.mark.parametrize("on_leaf", [True, False], ids=["leaf", "non-leaf"])
def test_a_hook_that_returns_a_same_shaped_tensor_still_replaces_the_gradient(on_leaf):
    x = _backward_with_hook(mg.full((3,), 7.0), on_leaf)
    assert x.grad.tolist() == ([7.0] * 3 if on_leaf else [14.0] * 3)  # d(2x)/dx = 2


@pytest.mark.parametrize("shape, dim", [((0,), -1), ((2, 0), 1), ((0, 2), 0)])
def test_mode_over_an_empty_dim_is_pytorchs_index_error(shape, dim):
    """It failed inside NumPy's reshape ("cannot reshape array of size 0 into shape (0)")."""
    with pytest.raises(IndexError, match=f"mode\\(\\): cannot compute mode over dim {dim} "
                       "of size 0"):  # fmt: skip
        mg.ones(*shape).mode(dim)
    assert mg.ones(0, 2).mode(1).values.shape == (0,)  # an empty batch of rows is fine
