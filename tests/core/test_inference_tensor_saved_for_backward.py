"""A tensor made under ``inference_mode()`` has no version counter, so autograd cannot tell
whether it changed before backward: an op that would save it for backward raises PyTorch's
RuntimeError; ops that save nothing of it, untracked ops, and a clone are fine."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _inference_ones(*shape: int) -> mg.Tensor:
    with mg.inference_mode():
        return mg.ones(*shape) * 3.0


def test_an_op_saving_an_inference_tensor_raises() -> None:
    y = _inference_ones(2)
    w = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        w * y
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        F.linear(_inference_ones(4, 3), mg.ones(2, 3, requires_grad=True))


def test_ops_that_save_nothing_of_it_and_a_clone_work() -> None:
    y = _inference_ones(2)
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    (w + y).sum().backward()  # addition saves neither input
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0])
    w.grad = None
    (w * y.clone()).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0, 3.0])
    assert (y * 2).tolist() == [6.0, 6.0]  # nothing tracked: nothing saved
    with mg.no_grad():
        assert (w * y).tolist() == [3.0, 6.0]


def test_a_custom_function_saving_an_inference_input_raises() -> None:
    class Square(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, s):
            ctx.save_for_backward(x, s)
            return x * x * s

        @staticmethod
        def backward(ctx, g):
            x, s = ctx.saved_tensors
            return 2 * x * s * g, None

    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        Square.apply(x, _inference_ones(2))


def test_an_inference_tensor_is_written_in_place_only_inside_inference_mode() -> None:
    y = _inference_ones(3)
    for write in (lambda: y.add_(1), lambda: y.__setitem__(0, 5.0), lambda: y.zero_()):
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
            write()
        with mg.no_grad(), pytest.raises(RuntimeError, match="Inplace update to inference"):
            write()
    assert y.tolist() == [3.0, 3.0, 3.0]
    with mg.inference_mode():
        y.mul_(2)
    z = y.clone()
    z.add_(1)
    assert y.tolist() == [6.0, 6.0, 6.0] and z.tolist() == [7.0, 7.0, 7.0]


def test_a_view_of_an_inference_tensor_is_one_and_cannot_be_saved() -> None:
    y = _inference_ones(3, 2)
    rows = y[:2]  # made outside inference_mode, but it shares y's memory
    assert rows.is_inference() and y.t().is_inference() and y.view(6).is_inference()
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        mg.ones(2, 2, requires_grad=True) * rows
    assert not rows.clone().is_inference()
