"""Flatten and Unflatten: reshape layers for moving between image-like and vector-like data."""

from __future__ import annotations

from .._tensor import Tensor
from .module import Module


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one: (N, C, H, W) -> (N, C*H*W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dim ``dim`` into ``unflattened_size``: (N, 12) -> (N, 3, 4)."""

    def __init__(self, dim: int, unflattened_size: tuple) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        if not -input.ndim <= self.dim < input.ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-input.ndim}, "
                f"{input.ndim - 1}], but got {self.dim})"
            )
        d = self.dim % input.ndim
        shape = input.shape[:d] + self.unflattened_size + input.shape[d + 1 :]
        return input.reshape(shape)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
