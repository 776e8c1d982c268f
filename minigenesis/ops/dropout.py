"""Dropout: zero each element with probability p, scale the survivors by 1/(1-p).

The scaling keeps the expected value unchanged, so evaluation (no dropout) needs no correction.
The random mask comes from the minigenesis generator (``random.bernoulli_mask``), so
``manual_seed`` and ``get_rng_state``/``set_rng_state`` make it reproducible, which is how gradient
checkpointing replays the same mask when it recomputes a forward.
"""

from __future__ import annotations

from ..autograd.function import Op
from ..random import bernoulli_mask


class Dropout(Op):
    """y = x * m / (1 - p),  m_i ~ Bernoulli(1 - p);   dL/dx = dL/dy * m / (1 - p).

    Only the scaled mask is saved (not x), one array the size of x."""

    @staticmethod
    def forward(ctx, x, p):
        if p >= 1.0:
            scaled_mask = x * 0  # everything dropped (PyTorch returns zeros, not NaN)
        else:
            scaled_mask = bernoulli_mask(x.shape, 1.0 - p, like=x)
            scaled_mask *= scaled_mask.dtype.type(1.0 / (1.0 - p))
        ctx.save_for_backward(scaled_mask)
        return x * scaled_mask

    @staticmethod
    def backward(ctx, gy):
        (scaled_mask,) = ctx.saved_tensors
        return gy * scaled_mask, None
