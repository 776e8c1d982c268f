"""Adafactor (Shazeer & Stern, 2018), as PyTorch's ``torch.optim.Adafactor``: Adam's second moment
kept in factored form, one row and one column of statistics per matrix instead of a full copy of
its shape, no first moment; the step scaled by the parameter's RMS and clipped by the update's."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ml_dtypes

from .._checks import check_real
from .._tensor import Tensor
from ..backend import Array, get_array_module
from .optimizer import Optimizer, _count_step, _scalar_state, lerp_


def _rms(a: Any, xp: Any) -> float:
    """sqrt(mean(a^2)) as a Python float: ||a||_2 / sqrt(numel), PyTorch's order."""
    flat = a.reshape(-1)
    return float(xp.sqrt(xp.dot(flat, flat))) / (a.size**0.5)


class Adafactor(Optimizer):
    r"""Adafactor as PyTorch computes it. At step ``t`` (1, 2, ...), for ``p`` with gradient ``g``:

    .. code-block:: text

        g <- -g                                          (maximize=True)
        beta2_t = 1 - t^beta2_decay                      (the averages' weight on the past)
        rho_t = min(lr, 1 / sqrt(t));  alpha = max(eps2, RMS(p)) * rho_t
        p <- p * (1 - lr * weight_decay)
        matrix (last two dims):  R <- lerp(R, mean_cols(g^2), 1 - beta2_t)   (row_var, (..., n, 1))
                                 C <- lerp(C, mean_rows(g^2), 1 - beta2_t)   (col_var, (..., 1, m))
                                 v = R C / max(mean(R), eps1)                 (a rank-1 estimate)
        vector:                  v <- lerp(v, g^2, 1 - beta2_t)               (variance)
        u = g / sqrt(max(v, eps1^2))
        p <- p - alpha / max(1, RMS(u) / d) * u

    ``eps=(eps1, eps2)``: eps1 None is the parameter dtype's machine epsilon. State per
    parameter: ``step`` and ``row_var``/``col_var`` (2 or more dims) or ``variance``.
    """

    _options_of_its_own = ("eps",)  # a pair (eps1, eps2), checked below

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        # PyTorch's messages, which name the limits in its own words
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        check_real(weight_decay, "weight_decay", ge=0)
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        xp = get_array_module(p._data)
        zeros = lambda shape: Tensor._make(xp.zeros(shape, dtype=p._data.dtype), False)  # noqa: E731
        state: dict[str, Any] = {"step": _scalar_state()}
        if p.ndim > 1:
            state["row_var"] = zeros((*p.shape[:-1], 1))
            state["col_var"] = zeros((*p.shape[:-2], 1, p.shape[-1]))
        else:
            state["variance"] = zeros(tuple(p.shape))
        return state

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Adafactor step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        step = float(_count_step(state))
        lr, weight_decay = float(group["lr"]), group["weight_decay"]
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(ml_dtypes.finfo(param.dtype).eps)  # (NumPy's finfo lacks bfloat16)
        g = -grad if group["maximize"] else grad
        one_minus_beta2_t = step ** group["beta2_decay"]
        rho_t = min(lr, 1 / step**0.5)
        alpha = max(eps2, _rms(param, xp)) * rho_t  # (before the decay, as PyTorch)
        if weight_decay != 0:
            param *= 1 - lr * weight_decay
        g2 = g * g
        if g.ndim > 1:
            row_var, col_var = state["row_var"]._data, state["col_var"]._data
            lerp_(row_var, g2.mean(axis=-1, keepdims=True), one_minus_beta2_t)
            lerp_(col_var, g2.mean(axis=-2, keepdims=True), one_minus_beta2_t)
            var = row_var @ col_var
            var /= xp.maximum(row_var.mean(axis=-2, keepdims=True), eps1)
        else:
            variance = state["variance"]._data
            lerp_(variance, g2, one_minus_beta2_t)
            var = variance.copy()
        update = 1 / xp.sqrt(xp.maximum(var, eps1 * eps1))
        update *= g
        denom = max(1.0, _rms(update, xp) / group["d"])
        param += (-alpha / denom) * update
