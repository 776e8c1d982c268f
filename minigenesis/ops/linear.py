"""The affine map of a fully connected layer, fused into one op.

``x @ W.T + b`` written with three ops (permute, matmul, add) works, but for an input with batch
dims (B, T, in) the matmul's weight gradient would first be built per batch element, (B, in, out),
and only then summed. Flattening the batch dims first makes every gradient a single 2-D matmul.
"""

from __future__ import annotations

from ..autocast_policy import LOWER
from ..autograd.function import Op
from .matmul import matmul_arrays


class Linear(Op):
    """y = x W^T + b  (x: (..., in), W: (out, in), b: (out,) or None);
    dL/dx = dL/dy W,   dL/dW = sum over rows of dL/dy^T x,   dL/db = sum over rows of dL/dy."""

    autocast = LOWER

    @staticmethod
    def forward(ctx, x, w, b):
        if x.shape[-1] != w.shape[1]:
            raise ValueError(
                f"linear: input has {x.shape[-1]} features in its last dim but the weight "
                f"expects {w.shape[1]} (input shape {tuple(x.shape)}, weight shape "
                f"{tuple(w.shape)})"
            )
        ctx.save_for_backward(x, w)
        y = matmul_arrays(x.reshape(-1, x.shape[-1]), w.T, b)
        return y.reshape(x.shape[:-1] + (w.shape[0],))

    @staticmethod
    def backward(ctx, gy):
        # A generator: each gradient is passed on as it is yielded (engine's send_as_yielded).
        # The weight's goes first and is added into W.grad before dL/dx is computed, so the two
        # (each as large as an activation or a weight) are never alive together.
        x, w = ctx.saved_tensors
        need_x, need_w, need_b = ctx.needs_input_grad
        g2 = gy.reshape(-1, gy.shape[-1])
        if need_w:
            yield 1, g2.mT @ x.reshape(-1, x.shape[-1])
        if need_b:
            yield 2, g2.sum(dim=0)
        if need_x:
            yield 0, (g2 @ w).reshape(x.shape)
