"""nn.utils.parametrizations: ready-made parametrizations (``parametrize.py``).

``weight_norm(layer)``: ``layer.weight`` becomes g v / ||v|| computed from two learned tensors,
``parametrizations.weight.original0`` (g, the lengths) and ``original1`` (v, the directions), as
PyTorch stores them; the norm is over every dim but ``dim`` (see ``_weight_norm_math.py``).
"""

from __future__ import annotations

from ..module import Module
from . import parametrize
from ._weight_norm_math import norm_except_dim
from ._weight_norm_math import weight_norm as _weight_norm

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    """(g, v) -> g v / ||v||; right_inverse(w) = (||w||, w), so registering keeps w's value."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Weight normalisation as a parametrization of ``module.<name>``; returns the module."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module
