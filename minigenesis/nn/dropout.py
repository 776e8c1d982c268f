"""Dropout: during training, zero each activation with probability p and scale the rest by
1/(1-p); in eval mode (``model.eval()``) it is the identity.

Randomly silencing units keeps a network from relying on any single one (a cheap ensemble). The
mask is drawn from the minigenesis generator (``mg.manual_seed`` makes it reproducible).
"""

from __future__ import annotations

from ..ops import dropout as D
from ..tensor import Tensor
from .module import Module


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """y = x * m / (1 - p) with m ~ Bernoulli(1 - p) when ``training``, else y = x."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if inplace:
        return input._inplace(lambda t: D.Dropout.apply(t, float(p)))
    return D.Dropout.apply(input, float(p))


class Dropout(Module):
    """``nn.Dropout(p=0.5)``: drops in training mode, passes through in eval mode."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
