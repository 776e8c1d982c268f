"""The power iteration both spectral norms share (``parametrizations.spectral_norm`` and the older
hook-based ``spectral_norm``).

The largest singular value sigma of a matrix W is found from two unit vectors u, v that
persist across calls: each iteration sets v <- W^T u / ||W^T u|| and u <- W v / ||W v||, which
converge to the top singular vectors, so sigma ~ u . (W v). A weight of more than two dims is
seen as a matrix whose rows are its dim ``dim`` (the layer's outputs).
"""

from __future__ import annotations

from typing import Any

from ...autograd.grad_mode import no_grad
from ...functions import mv
from ..functional import normalize


def weight_to_matrix(weight: Any, dim: int) -> Any:
    """(size of dim ``dim``, everything else): the rows are what the layer outputs (a vector is
    one column)."""
    if dim != 0:
        weight = weight.permute(dim, *(d for d in range(weight.ndim) if d != dim))
    return weight.reshape(weight.shape[0], -1)


def power_iteration_(
    weight_mat: Any, u: Any, v: Any, n: int, eps: float, u_first: bool = False
) -> None:
    """``n`` iterations written into the buffers ``u`` and ``v`` in place, without a graph.
    PyTorch's hook-based spectral_norm updates v then u; its parametrization u then v."""
    with no_grad():
        for _ in range(n):
            if u_first:
                u.copy_(normalize(mv(weight_mat, v), dim=0, eps=eps))
            v.copy_(normalize(mv(weight_mat.t(), u), dim=0, eps=eps))
            if not u_first:
                u.copy_(normalize(mv(weight_mat, v), dim=0, eps=eps))


def sigma(weight_mat: Any, u: Any, v: Any) -> Any:
    """The estimate u . (W v) of the largest singular value, differentiable in W."""
    return (u * mv(weight_mat, v)).sum()
