"""Gradient clipping: keep one bad batch from throwing the parameters far away.

``clip_grad_norm_`` treats all gradients as ONE long vector g = concat(g_1, ..., g_n) and, if its
p-norm exceeds ``max_norm``, scales every g_i by max_norm / ||g||_p (the direction is kept). The
total norm is computed exactly from per-parameter norms:

    ||g||_p = ( sum_i ||g_i||_p^p )^(1/p) = || (||g_1||_p, ..., ||g_n||_p) ||_p
    ||g||_inf = max_i ||g_i||_inf

Everything stays on the device: per-parameter norms are 0-d arrays, stacked and reduced once; the
scale factor min(1, max_norm / (norm + 1e-6)) is applied as an array too, so on a GPU no value is
copied to the host (no synchronisation) unless ``error_if_nonfinite=True`` asks for a check.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from ..._checks import check_real
from ..._tensor import Tensor
from ...backend import get_array_module, to_device
from ...creation import tensor


def _grads(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm_dtype(a: Any, xp: Any) -> Any:
    """Norms accumulate in float32 at least (float16 squares overflow at 256), float64 stays."""
    return a.dtype if a.dtype.itemsize >= 4 and a.dtype.kind == "f" else xp.float32


def _vector_norm(a: Any, p: float, xp: Any) -> Any:
    """||a||_p of the flattened array a, as a 0-d array on a's device."""
    a = a.reshape(-1).astype(_norm_dtype(a, xp), copy=False)
    if a.size == 0:
        return xp.zeros((), dtype=a.dtype)
    if p == math.inf:
        return xp.abs(a).max()
    if p == -math.inf:
        return xp.abs(a).min()
    if p == 2:
        return xp.sqrt(xp.dot(a, a))
    if p == 1:
        return xp.abs(a).sum()
    if p == 0:
        return (a != 0).sum().astype(a.dtype)
    return (xp.abs(a) ** p).sum() ** (1.0 / p)


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scale all gradients in place so their joint ``norm_type``-norm is at most ``max_norm``.

    Returns the total norm BEFORE clipping (a 0-d tensor), useful for monitoring training.
    ``max_norm`` must be >= 0 (``inf``: measure the norm, clip nothing); a negative one would
    flip every gradient's sign, which PyTorch does without a word.
    """
    check_real(max_norm, "max_norm", ge=0, finite=False)
    # float() first: PyTorch takes the string "inf" for the infinity norm
    norm_type = check_real(float(norm_type), "norm_type", finite=False)
    grads = _grads(parameters)
    if not grads:
        return tensor(0.0)
    first = grads[0]._data
    xp = get_array_module(first)
    # One 0-d norm per gradient, each on its own device; then one reduction on the first device.
    per_param = [
        to_device(_vector_norm(g._data, norm_type, get_array_module(g._data)), grads[0].device)
        for g in grads
    ]
    dtype = xp.result_type(*[n.dtype for n in per_param])
    stacked = xp.stack([n.astype(dtype, copy=False) for n in per_param])
    # PyTorch takes the norm of the per-parameter norms for every p, 0 included (where that
    # counts the parameters with a non-zero gradient, not the non-zero entries)
    total = _vector_norm(stacked, norm_type, xp)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            f"so it cannot be clipped. To disable this error and scale the gradients by the "
            f"non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    # min(1, max_norm / (total + eps)) without reading `total` on the host.
    coef = xp.minimum(xp.asarray(max_norm, dtype=dtype) / (total + 1e-6), 1.0).astype(dtype)
    for g in grads:
        c = to_device(coef, g.device)
        g._data *= c.astype(g._data.dtype)
        g._bump_version()
    return Tensor._make(xp.asarray(total), False)


def clip_grad_value_(
    parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: Any = None
) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place. ``clip_value``
    must be >= 0 (``inf`` clips nothing): a negative one makes the interval empty, and NumPy
    (like PyTorch) would set every gradient element to ``clip_value``."""
    clip_value = check_real(clip_value, "clip_value", ge=0, finite=False)
    for g in _grads(parameters):
        xp = get_array_module(g._data)
        xp.clip(g._data, -clip_value, clip_value, out=g._data)
        g._bump_version()


clip_grad_norm = clip_grad_norm_  # PyTorch's old name (deprecated there, still importable)
