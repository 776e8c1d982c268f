"""Rprop: resilient backpropagation (Riedmiller & Braun, 1993), a step size per weight that grows
while the gradient keeps its sign and shrinks when it flips; only the gradient's sign is used."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._checks import check_real
from .._tensor import Tensor
from ..backend import Array, get_array_module
from .optimizer import Optimizer, _check_options, _count_step, _scalar_state, _zeros_like_param


class Rprop(Optimizer):
    r"""Rprop as PyTorch computes it. For each parameter ``p`` with gradient ``g`` (``-g`` when
    maximizing), previous gradient ``prev`` and per-element step size ``s`` (``lr`` at first):

    .. code-block:: text

        f = eta_plus  where g * prev > 0   (same sign: grow)
            eta_minus where g * prev < 0   (the sign flipped: the last step went too far)
            1         where g * prev = 0
        s <- clamp(s * f, step_size_min, step_size_max)
        g <- 0 where f = eta_minus         (after a flip, wait one step)
        p <- p - sign(g) * s
        prev <- g

    State per parameter: ``step``, ``prev``, ``step_size``.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_options(lr=lr)
        eta_minus, eta_plus = (check_real(e, f"etas[{i}]") for i, e in enumerate(etas))
        if not 0.0 < eta_minus < 1.0 < eta_plus:
            raise ValueError(
                f"Invalid eta values: {etas[0]}, {etas[1]} (need 0 < etas[0] < 1 < etas[1])"
            )
        lo, hi = (check_real(s, f"step_sizes[{i}]", ge=0) for i, s in enumerate(step_sizes))
        defaults = dict(  # the pairs as given (the default 50 stays an int, as in PyTorch)
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        step_size = get_array_module(p._data).full_like(p._data, group["lr"])
        return {
            "step": _scalar_state(),
            "prev": _zeros_like_param(p),
            "step_size": Tensor._make(step_size, False),
        }

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Rprop step of the arrays, in place (see the class docstring)."""
        xp = get_array_module(param)
        _count_step(state)
        eta_minus, eta_plus = group["etas"]
        lo, hi = group["step_sizes"]
        prev, step_size = state["prev"]._data, state["step_size"]._data
        g = -grad if group["maximize"] else grad
        sign = xp.sign(g * prev)
        factor = xp.where(sign > 0, eta_plus, xp.where(sign < 0, eta_minus, 1.0))
        step_size *= factor.astype(param.dtype)
        xp.clip(step_size, lo, hi, out=step_size)
        g = xp.where(sign < 0, 0, g).astype(param.dtype)  # a flipped sign: no move this step
        param -= xp.sign(g) * step_size
        prev[...] = g
