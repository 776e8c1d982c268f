"""ctx.mark_dirty: a custom Function that writes into its input returns that same tensor, whose
history is now the Function's node (closed-form gradients)."""

import numpy as np
import pytest

import minigenesis as mg


class Double(mg.autograd.Function):
    """x *= 2 in place: d out / d x = 2."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_mark_dirty_returns_the_input_with_the_new_history():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 3  # (saves no tensor: writing into y leaves its own backward intact)
    version = y._version
    out = Double.apply(y)
    assert out is y and y._version > version
    assert type(y.grad_fn).__name__ == "DoubleBackward"
    np.testing.assert_allclose(y.detach().numpy(), [6.0, -12.0, 18.0])
    (y * y).sum().backward()  # d/dx (6 x)^2 = 72 x
    np.testing.assert_allclose(x.grad.numpy(), [72.0, -144.0, 216.0])


def test_a_tensor_saved_before_the_dirty_write_is_refused_in_backward():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()  # exp saves its output, which Double then overwrites
    Double.apply(y)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_mark_dirty_on_a_leaf_that_requires_grad_is_refused():
    with pytest.raises(RuntimeError, match="leaf Variable"):
        Double.apply(mg.ones(2, requires_grad=True))


def test_mark_dirty_without_gradients_returns_the_input_unrecorded():
    t = mg.ones(2)
    out = Double.apply(t)
    assert out is t and not t.requires_grad and t.tolist() == [2.0, 2.0]


def test_mark_dirty_on_a_view_rebases_the_base_history():
    # h = x * 1; the Function doubles h[1:3] in place, so afterwards h = (x0, 2x1, 2x2, x3):
    # d sum(h) / dx = (1, 2, 2, 1), the write reaching h's gradient through the view
    x = mg.tensor([1.0, 2.0, 3.0, 4.0], dtype=mg.float64, requires_grad=True)
    h = x * 1
    out = Double.apply(h[1:3])
    np.testing.assert_array_equal(h.detach().numpy(), [1.0, 4.0, 6.0, 4.0])
    (h.sum() + (out * out).sum()).backward()  # + d/dx (2x1)^2 + (2x2)^2 = (0, 8x1, 8x2, 0)
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 2 + 16.0, 2 + 24.0, 1.0])
    # a strided view (every second element): d sum(arange(4) * h) / dx = arange(4) * (1, 2, 1, 2)
    x.grad = None
    h = x * 1
    Double.apply(h.view(2, 2)[:, 1])
    (h * mg.arange(4.0, dtype=mg.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 2.0, 2.0, 6.0])


def test_mark_dirty_on_a_split_view_is_refused():
    h = mg.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="several views"):
        Double.apply(h.split(2)[0])
