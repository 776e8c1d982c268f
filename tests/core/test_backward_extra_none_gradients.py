"""A custom Function's backward may return more gradients than its forward took arguments when
the extra ones are None: ``forward(ctx, x, w, bias=None)`` called without ``bias`` has a backward
that returns three. PyTorch drops them; an extra gradient that is not None is still an error."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


class LinearFunction(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, bias=None):
        ctx.save_for_backward(x, w)
        out = x.mm(w.t())
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g.mm(w), g.t().mm(x), None  # the bias's None even when no bias was given


class ExtraGradient(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, g  # one gradient too many, and not None


def test_extra_none_gradients_are_dropped() -> None:
    x = mg.tensor([[1.0, 2.0]], requires_grad=True)
    w = mg.tensor([[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], requires_grad=True)
    LinearFunction.apply(x, w).sum().backward()
    # d(sum x w^T)/dx = column sums of w; d/dw = x repeated per row
    np.testing.assert_allclose(x.grad.numpy(), [[15.0, 18.0]])
    np.testing.assert_allclose(w.grad.numpy(), [[1.0, 2.0]] * 3)


def test_an_extra_gradient_that_is_not_none_is_an_error() -> None:
    x = mg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned 2 gradients but its forward took 1"):
        ExtraGradient.apply(x).sum().backward()
