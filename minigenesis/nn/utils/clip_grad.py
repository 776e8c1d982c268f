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
from ...backend import get_array_module, quiet_fp, to_device
from ...creation import tensor
from ...meta_array import keep_on_meta


def _grads(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _norm_dtype(a: Any, xp: Any) -> Any:
    """Norms accumulate in float32 at least (float16 squares overflow at 256), float64 stays."""
    return a.dtype if a.dtype.itemsize >= 4 and a.dtype.kind == "f" else xp.float32


@quiet_fp  # an inf or NaN gradient, a square past float32's range: silently, as in PyTorch
def _vector_norm(a: Any, p: float, xp: Any) -> Any:
    """||a||_p of the flattened array a, as a 0-d array on a's device, in a's dtype: a float16 or
    bfloat16 norm is accumulated in float32 and rounded back once, as PyTorch returns it."""
    return _accumulated_norm(a, p, xp).astype(a.dtype, copy=False)


def _accumulated_norm(a: Any, p: float, xp: Any) -> Any:
    """||a||_p of the flattened array a in its accumulation dtype (see _norm_dtype)."""
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


def _check_normable(t: Any, i: int, p: float) -> None:
    """PyTorch's refusals (RuntimeError): a None entry, a tensor that is not floating point or
    complex, and an empty tensor for a norm without an identity (p < 0 or p = inf: a min or a
    max over nothing)."""
    if t is None:
        raise RuntimeError(f"get_total_norm: the {i}-th tensor is None, expected a Tensor")
    if not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. "
            f"Got {t.dtype}"
        )
    if t.numel() == 0 and (p < 0 or p == math.inf):
        raise RuntimeError(
            f"linalg.vector_norm cannot compute the {p} norm on an empty tensor because the "
            "operation does not have an identity"
        )


def get_total_norm(
    tensors: Iterable[Tensor] | Tensor,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` (gradients, usually) taken as one long vector, a
    0-d tensor on the first tensor's device (0.0 when there are none). ``error_if_nonfinite``:
    raise RuntimeError when it is inf or NaN. ``foreach`` changes nothing (one code path)."""
    # float() first: PyTorch takes the string "inf" for the infinity norm
    norm_type = check_real(float(norm_type), "norm_type", finite=False)
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not tensors:
        return tensor(0.0)
    for i, t in enumerate(tensors):
        _check_normable(t, i, norm_type)
    xp = get_array_module(tensors[0]._data)
    # One 0-d norm per tensor, each on its own device; then one reduction on the first device.
    per_tensor = [
        to_device(_vector_norm(t._data, norm_type, get_array_module(t._data)), tensors[0].device)
        for t in tensors
    ]
    dtype = xp.result_type(*[n.dtype for n in per_tensor])
    stacked = xp.stack([n.astype(dtype, copy=False) for n in per_tensor])
    # PyTorch takes the norm of the per-tensor norms for every p, 0 included (where that
    # counts the tensors with a non-zero entry, not the non-zero entries)
    total = _vector_norm(stacked, norm_type, xp)
    if error_if_nonfinite and not bool(xp.isfinite(total)):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
            f"so it cannot be clipped. To disable this error and scale the gradients by the "
            f"non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    # (the norm of meta gradients is a meta tensor: xp.asarray made the data-less one plain)
    return Tensor._make(keep_on_meta(xp.asarray(total), [t._data for t in tensors]), False)


@quiet_fp  # an inf or NaN norm or gradient: scaled silently, as in PyTorch
def clip_grads_with_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    total_norm: Tensor | float,
    foreach: Any = None,
) -> None:
    """Scale every gradient in place by ``min(1, max_norm / (total_norm + 1e-6))``: the second
    half of ``clip_grad_norm_``, for a ``total_norm`` computed before (``get_total_norm``, or a
    norm gathered across processes)."""
    grads = _grads(parameters)
    if not grads:
        return
    xp = get_array_module(grads[0]._data)
    total = total_norm._data if isinstance(total_norm, Tensor) else xp.asarray(total_norm)
    dtype = total.dtype if total.dtype.kind in "fV" else xp.float32
    # min(1, max_norm / (total + eps)) without reading `total` on the host. PyTorch divides a
    # number by a tensor as reciprocal(tensor) * number, each step computed in float32 at least
    # and rounded to the norm's dtype; the same steps here give its bits in float16/bfloat16
    # (where, e.g., an all-zero float16 gradient with max_norm=0 becomes NaN: 1/1e-6 is inf).
    wide = xp.float64 if dtype == xp.float64 else xp.float32
    denom = (total.astype(wide) + 1e-6).astype(dtype)
    recip = (1 / denom.astype(wide)).astype(dtype)
    coef = (recip.astype(wide) * float(max_norm)).astype(dtype)
    coef = xp.minimum(coef, xp.asarray(1.0, dtype=dtype))
    for g in grads:
        c = to_device(coef, g.device)
        g._data *= c.astype(g._data.dtype)
        g._bump_version()


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
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


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
