"""An in-place op in a graph on a tensor whose memory nothing else can see takes the result's
array instead of copying it in (inplace.py's _memory_is_private); where anything else can see
the memory (a NumPy array, a view, a .data alias) the write goes into the shared memory. Either
way the values and the gradients are those of the out-of-place ops (NumPy references)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_relu_inplace_after_an_op_gives_the_out_of_place_values_and_gradients():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    x = mg.tensor(a, requires_grad=True)
    h = x * 2.0  # an op's fresh result: private memory
    h.relu_()
    h = h + x  # a residual add (out of place: ReLU keeps its output for backward)
    (h * h).sum().backward()
    ref = np.maximum(2 * a, 0) + a
    np.testing.assert_allclose(h.detach().numpy(), ref, rtol=1e-6)
    slope = (2 * a > 0) * 2.0 + 1.0
    np.testing.assert_allclose(x.grad.numpy(), 2 * ref * slope, rtol=1e-6)


@pytest.mark.parametrize(
    "op, write",
    [
        ("relu_", lambda h, x: h.add_(x)),
        ("exp_", lambda h, x: h.mul_(2.0)),
        ("sigmoid_", lambda h, x: h.sub_(1.0)),
        ("tanh_", lambda h, x: h.__setitem__(0, 5.0)),
    ],
)
def test_a_write_into_the_saved_output_of_an_inplace_op_refuses_backward_as_pytorch(op, write):
    """relu_/exp_/sigmoid_/tanh_ keep their output for backward, and after the in-place op the
    tensor *is* that output: writing into it again (h.relu_(); h += x) must make backward refuse,
    as PyTorch's version check does, instead of reading the overwritten values."""
    x = mg.tensor([[-1.0, 2.0], [0.5, -3.0]], requires_grad=True)
    h = x * 2.0
    getattr(h, op)()
    write(h, x)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        h.sum().backward()


def test_mul_inplace_keeps_the_old_value_for_its_gradient():
    a = np.array([1.0, -2.0, 3.0])
    x = mg.tensor(a, requires_grad=True)
    h = x + 1.0
    h.mul_(h.detach() * 0 + 3.0)  # saves h's old value: gradient 3 * dL/dh
    h.sum().backward()
    np.testing.assert_allclose(h.detach().numpy(), 3 * (a + 1))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0, 3.0])


def test_inplace_with_self_as_argument_refuses_backward_as_pytorch():
    """h.mul_(h) saves h (the argument) for backward and then changes it: PyTorch refuses the
    backward, and so does this (the argument is not taken for the private copy of the old h)."""
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x + 1.0
    h.mul_(h)
    np.testing.assert_allclose(h.detach().numpy(), [4.0, 9.0])
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        h.sum().backward()


def test_inplace_write_is_seen_through_an_array_sharing_the_memory():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = x * 1.0
    seen = h.detach().numpy()  # a NumPy array on h's memory
    h.relu_()
    np.testing.assert_array_equal(seen, [1.0, 0.0, 3.0])
    h.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0])


def test_inplace_write_is_seen_through_views_and_data():
    x = mg.tensor([[1.0, -2.0], [-3.0, 4.0]], requires_grad=True)
    h = x * 1.0
    row = h[1]
    alias = h.data
    h.relu_()
    np.testing.assert_array_equal(row.detach().numpy(), [0.0, 4.0])
    np.testing.assert_array_equal(alias.numpy(), [[1.0, 0.0], [0.0, 4.0]])


def test_inplace_on_an_op_result_with_a_saved_output_still_refuses_backward():
    x = mg.tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()  # exp saves its output
    y.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


@pytest.mark.parametrize("write", [lambda h, y: h.__iadd__(y), lambda h, y: h.add_(y)])
def test_residual_add_inplace_in_a_graph_takes_the_result_array_without_copies(write):
    """``out += shortcut`` in a graph on an op's fresh result: nothing else sees out's memory,
    so out takes the sum's array (one pass) instead of a copy of its old value, the sum, and a
    copy back; the values and gradients are the out-of-place ones."""
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 3, 4, 4)), rng.standard_normal((2, 3, 4, 4))
    x, y = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    h = x * 2.0
    before = h._data.ctypes.data  # (an int: holds no reference to the memory)
    write(h, y)
    assert h._data.ctypes.data != before
    (h * h).sum().backward()
    np.testing.assert_allclose(h.detach().numpy(), 2 * a + b)
    np.testing.assert_allclose(x.grad.numpy(), 4 * (2 * a + b))
    np.testing.assert_allclose(y.grad.numpy(), 2 * (2 * a + b))
