"""SparseAdam: Adam for sparse gradients (``nn.Embedding(sparse=True)``), updating only the rows
the gradient holds.

A word2vec batch touches a few hundred rows of a table of 100,000: dense Adam would decay the
moments of every row at every step (and move rows whose gradient is zero, through their
momentum). SparseAdam touches only the stored rows: their moments and their values; the others
keep their moments as they were, frozen until their next gradient.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .._tensor import Tensor
from ..backend import get_array_module
from .optimizer import Optimizer, _zeros_like_param


class SparseAdam(Optimizer):
    r"""At step ``t`` of parameter ``p``, for each position ``i`` its sparse gradient ``g`` holds
    (after coalescing: each position once):

    .. code-block:: text

        m_i <- m_i + (1 - beta1) * (g_i - m_i)
        v_i <- v_i + (1 - beta2) * (g_i^2 - v_i)
        p_i <- p_i - lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m_i / (sqrt(v_i) + eps)

    Unlike Adam, ``eps`` is added to sqrt(v) before the bias correction (folded into the step
    size), as PyTorch's SparseAdam computes it. ``t`` counts the steps this parameter had a
    gradient, not the steps of each row. State: ``step`` (an int, as PyTorch keeps it here),
    ``exp_avg``, ``exp_avg_sq`` (dense, the parameter's shape).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i in (0, 1):
            if not 0.0 <= betas[i] < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
        defaults = {"lr": lr, "betas": tuple(betas), "eps": eps, "maximize": maximize}
        super().__init__(params, defaults)
        sparse = [
            [gi, pi]
            for gi, group in enumerate(self.param_groups)
            for pi, p in enumerate(group["params"])
            if p.is_sparse
        ]
        if sparse:
            raise ValueError(
                f"Sparse params at indices {sparse}: SparseAdam requires dense parameter tensors"
            )

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        return {"step": 0, "exp_avg": _zeros_like_param(p), "exp_avg_sq": _zeros_like_param(p)}

    def _dense_grad(self, grad: Any, group: dict[str, Any]) -> Any:
        """What ``Optimizer.step`` hands ``update`` for a sparse gradient: here the gradient
        itself, whose stored rows are the ones updated (the base class makes it dense)."""
        return grad

    def update(self, param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """One SparseAdam step of the rows ``grad`` (a sparse tensor) holds; a dense gradient
        (an array) is refused, as PyTorch refuses it."""
        if not getattr(grad, "is_sparse", False):
            raise RuntimeError(
                "SparseAdam does not support dense gradients, please consider Adam instead"
            )
        state["step"] = int(state["step"]) + 1  # (a loaded state_dict may hold a tensor)
        self._update_rows(param, grad, state, group)

    @staticmethod
    def _update_rows(param: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        """The update of the positions ``grad`` stores (see the class docstring)."""
        grad = grad.coalesce()  # the update is not linear in g: each position once
        if grad._nnz() == 0:
            return
        at = grad._positions()
        g = grad._values()._data
        if group["maximize"]:
            g = -g
        (beta1, beta2), step = group["betas"], state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m = exp_avg[at]
        m += (1 - beta1) * (g - m)
        exp_avg[at] = m
        v = exp_avg_sq[at]
        v += (1 - beta2) * (g * g - v)
        exp_avg_sq[at] = v
        step_size = group["lr"] * math.sqrt(1 - beta2**step) / (1 - beta1**step)
        denom = get_array_module(v).sqrt(v) + group["eps"]
        param[at] += -step_size * (m / denom)  # PyTorch's order of operations
