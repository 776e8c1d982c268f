"""An in-place op whose out-of-place op keeps its own result for backward (exp_, sigmoid_,
tanh_, relu_) still counts as a write into the tensor: a node that saved the tensor's old value
refuses to run, as PyTorch does, instead of taking its gradient at the new value. Oracle: the
closed-form derivative where backward may run."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

RESULT_SAVING = ["exp_", "sigmoid_", "tanh_", "relu_"]


@pytest.mark.parametrize("name", RESULT_SAVING)
def test_a_product_that_saved_the_old_value_refuses_backward(name):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1.5
    y = b * b  # Mul keeps b
    getattr(b, name)()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize("name", RESULT_SAVING)
def test_a_view_or_alias_made_before_the_write_shares_the_version(name):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1.5
    v, d = b[:1], b.detach()
    getattr(b, name)()
    assert b._version == v._version == d._version == 1
    d.mul_(2)  # the op's saved result changed: its backward must refuse
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_the_saved_result_refuses_a_later_write():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    b = x * 1.5
    b.exp_()
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        b.sum().backward()


def test_exp_in_place_gradient_without_later_writes():
    x = mg.tensor([1.0, 2.0], requires_grad=True, dtype=mg.float64)
    b = x * 1.5
    b.exp_()
    (b * b).sum().backward()  # d/dx exp(3x) = 3 exp(3x)
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.exp(3 * np.array([1.0, 2.0])), rtol=1e-14)


@pytest.mark.parametrize(
    "change",
    [
        lambda x: x.unsqueeze_(0),
        lambda x: x.squeeze_(),
        lambda x: x.t_(),
        lambda x: x.transpose_(0, 1),
        lambda x: x.swapdims_(0, 1),
        lambda x: x.as_strided_((3,), (2,)),
    ],
)
def test_an_in_place_shape_change_counts_as_a_write(change):
    # as_strided_ gave the product's gradient at the new elements ([[2, 6, 10], [2, 6, 10]])
    a = mg.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    x = a * 1
    y = x * x  # Mul keeps x
    change(x)
    assert x._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_in_place_shape_change_keeps_the_gradient_of_later_uses():
    a = mg.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
    x = a * 1
    x.t_()
    (x * mg.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_resize_counts_as_a_write():
    x = mg.zeros(3)
    x.resize_(4)
    assert x._version == 1


def test_data_assignment_refuses_what_pytorch_refuses():
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        x.data = mg.tensor([1, 2])  # an integer tensor cannot hold a gradient
    with pytest.raises(TypeError, match="has to be a tensor"):
        x.data = [1.0, 2.0]
    y = mg.ones(2)
    y.data = mg.tensor([1, 2])  # without requires_grad, any dtype
    assert y.dtype == mg.int64 and y.tolist() == [1, 2]
