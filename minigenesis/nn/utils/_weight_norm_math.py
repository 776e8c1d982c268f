"""The arithmetic of weight normalisation (Salimans & Kingma, 2016), shared by
``nn.utils.weight_norm`` (the older hook form) and ``nn.utils.parametrizations.weight_norm``:

    w = g * v / ||v||

the norm taken over every dim but ``dim`` (one norm per output unit for dim 0), so the direction
v and the length g are learned separately. ``dim=None`` (PyTorch's -1 here) takes one norm of
the whole tensor.
"""

from __future__ import annotations

from ..._tensor import Tensor


def norm_except_dim(v: Tensor, dim: int | None) -> Tensor:
    """||v||_2 over every dim but ``dim``, kept as size-1 dims (broadcasts against v); the
    whole tensor's norm, 0-d, when dim is None or -1 (PyTorch's convention). Any other dim
    outside [-v.ndim, v.ndim - 1] is an IndexError, as in PyTorch (wrapping it with ``%`` would
    silently normalise over the wrong dims)."""
    if dim is None or dim == -1:
        return (v * v).sum().sqrt()
    if not -v.ndim <= dim < v.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-v.ndim}, {v.ndim - 1}], "
            f"but got {dim})"
        )
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return (v * v).sum(dim=others, keepdim=True).sqrt() if others else v.abs()


def weight_norm(v: Tensor, g: Tensor, dim: int | None) -> Tensor:
    """w = v * (g / ||v||) (PyTorch's ``torch._weight_norm``)."""
    return v * (g / norm_except_dim(v, dim))
