"""An op's output may share memory with a temporary of the op (conv2d's output is a reshape of
its matmul). Such an output is not a view the user made: an in-place op on it (``ReLU(inplace=
True)`` after ``Conv2d(bias=False)``) runs as on any tensor, with the gradient of the
out-of-place form."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F

# op name -> (the op, the shape of its input)
OPS = {
    "conv2d_no_bias": (lambda x: F.conv2d(x, _w(4, 3, 3, 3)), (2, 3, 6, 6)),
    "conv1d_no_bias": (lambda x: F.conv1d(x, _w(4, 3, 3)), (2, 3, 7)),
    "conv_transpose1d_no_bias": (lambda x: F.conv_transpose1d(x, _w(3, 4, 3)), (2, 3, 5)),
    "instance_norm": (lambda x: F.instance_norm(x), (2, 3, 4, 4)),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, 2), (2, 3, 4, 4)),
    "avg_pool1d": (lambda x: F.avg_pool1d(x, 2), (2, 3, 6)),
    "max_pool1d": (lambda x: F.max_pool1d(x, 2), (2, 3, 6)),
    "tensordot": (lambda x: mg.tensordot(x, _w(6, 2), 1), (2, 3, 6)),
    "kron": (lambda x: mg.kron(x, _w(2, 2)), (3, 3)),
}


def _w(*shape: int) -> mg.Tensor:
    rng = np.random.default_rng(sum(shape))
    return mg.tensor(rng.standard_normal(shape), dtype=mg.float64)


def _grad(op, shape: tuple, inplace: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal(shape), dtype=mg.float64, requires_grad=True)
    y = op(x)
    y = F.leaky_relu(y, 0.2, inplace=True) if inplace else F.leaky_relu(y, 0.2)
    weights = mg.tensor(rng.standard_normal(tuple(y.shape)), dtype=mg.float64)
    (y * weights).sum().backward()
    return y.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("name", OPS)
def test_inplace_activation_on_an_op_output_gives_the_out_of_place_gradient(name: str) -> None:
    op, shape = OPS[name]
    value, grad = _grad(op, shape, inplace=True)
    ref_value, ref_grad = _grad(op, shape, inplace=False)
    np.testing.assert_array_equal(value, ref_value)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-12, atol=1e-12)


def test_inplace_relu_after_conv2d_without_bias_in_a_module() -> None:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=False), nn.ReLU(inplace=True))
    x = mg.randn(2, 3, 6, 6)
    out = model(x)
    out.sum().backward()
    ref = F.conv2d(x, model[0].weight.detach()).relu()
    np.testing.assert_allclose(out.detach().numpy(), ref.numpy(), rtol=1e-6)
    # d(sum relu(conv(x, w)))/dw: each output position where the output is positive adds its patch
    assert model[0].weight.grad is not None


def test_inplace_on_a_view_of_a_dropped_temporary_is_allowed() -> None:
    m = mg.ones(3, 4, requires_grad=True)
    y = (m * 1).reshape(12).mul_(3)
    (y * mg.arange(12.0)).sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), 3 * np.arange(12.0).reshape(3, 4))


def test_a_write_into_a_temporary_saved_for_backward_is_caught_in_backward() -> None:
    x = mg.ones(3, 4, requires_grad=True)
    y = x.exp().reshape(12)  # exp saves its output, the base of y
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()
