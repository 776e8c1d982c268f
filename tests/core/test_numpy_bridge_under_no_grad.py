"""Tensor.numpy() refuses a tensor that requires grad only while grad mode is on: under no_grad
(and so inside a custom autograd.Function's forward, which runs without grad) it returns the
shared array, as PyTorch's does, so NumPy-backed Functions can read their inputs."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_numpy_of_a_tensor_requiring_grad_is_refused_with_grad_on() -> None:
    x = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()


def test_numpy_of_a_tensor_requiring_grad_shares_memory_under_no_grad() -> None:
    x = mg.arange(3.0).requires_grad_()
    with mg.no_grad():
        arr = x.numpy()
    np.testing.assert_array_equal(arr, [0.0, 1.0, 2.0])
    assert np.shares_memory(arr, x.detach().numpy())


def test_numpy_backed_function_reads_its_input_and_backpropagates() -> None:
    class NumpyExp(mg.autograd.Function):
        """y = exp(x) computed by NumPy;  dL/dx = dL/dy * y."""

        @staticmethod
        def forward(ctx, x):
            y = mg.tensor(np.exp(x.numpy()))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, gy):
            (y,) = ctx.saved_tensors
            return gy * y

    x = mg.tensor([0.0, 1.0, -2.0], dtype=mg.float64, requires_grad=True)
    NumpyExp.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0, -2.0]))
