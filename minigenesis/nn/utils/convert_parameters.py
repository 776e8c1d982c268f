"""Flatten all parameters into one vector and back (for second-order methods, evolution
strategies, or simply looking at a model as one point in R^n)."""

from __future__ import annotations

from collections.abc import Iterable

from ..._tensor import Tensor
from ...backend import to_device
from ...functions import cat


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """concat(p.reshape(-1) for p in parameters), differentiable, on the first one's device."""
    params = list(parameters)
    if not params:
        raise ValueError("parameters_to_vector: no parameters given")
    dev = params[0].device
    for p in params:
        if p.device != dev:
            raise RuntimeError(
                f"parameters_to_vector: parameters are on different devices ({dev}, {p.device})"
            )
    return cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the parameters, in place (the Parameter
    objects stay the same, so an optimizer holding them is unaffected)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected vec to be a Tensor, got {type(vec).__name__}")
    if vec.ndim != 1:
        raise ValueError(f"vector_to_parameters: vec must be 1-D, got shape {tuple(vec.shape)}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if total != vec.numel():
        raise ValueError(
            f"vector_to_parameters: vec has {vec.numel()} elements, the parameters need {total}"
        )
    offset = 0
    for p in params:
        n = p.numel()
        chunk = to_device(vec._data[offset : offset + n], p.device).reshape(p.shape)
        p._data[...] = chunk.astype(p._data.dtype, copy=False)
        p._bump_version()
        offset += n
