"""The beta = 0 case of the add-a-product ops (addmm, baddbmm, addmv, addbmm, addr):
out = alpha * product, with the input x not read but still given its (zero) gradient."""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import is_grad_enabled
from ..backend import module_for


def beta_zero_sum(x: Any, scaled: Any) -> Any:
    """0 * x + scaled without reading x (a NaN or inf in x must not give NaN), x broadcast to
    scaled's shape. x still gets its gradient, 0 * dL/dout = zeros, as in PyTorch (where x.grad
    is a zero tensor, not None): ``where(False, x, scaled)`` routes every value from scaled and
    a zero gradient to x."""
    if not (x.requires_grad and is_grad_enabled()):
        return scaled
    never = type(x)._make(module_for(scaled.device).zeros((), dtype=bool), False)
    return x.where(never, scaled)
