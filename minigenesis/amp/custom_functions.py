"""``custom_fwd`` / ``custom_bwd``: autocast for a user's ``autograd.Function``, as PyTorch's.

Autocast casts the arguments of the library's ops; a custom Function's ``forward`` is the user's
own code, so it says what autocast should do with it:

- ``@custom_fwd(device_type="cpu")`` on ``forward``: it runs under the autocast state of the
  caller (the ops inside are cast as usual), and that state is remembered on ``ctx``;
- ``@custom_fwd(device_type="cpu", cast_inputs=mg.float32)``: inside an autocast region, the
  floating tensor arguments on that device (float64 excepted) are cast to ``cast_inputs`` and
  ``forward`` runs with autocast off (a region of ops the user wants in one precision);
- ``@custom_bwd(device_type="cpu")`` on ``backward``: it runs under the autocast state its
  forward ran under, whatever the state is when backward is called.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..dtypes import float64
from .autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run ops of ``device_type``: "cpu" and "cuda" here."""
    return device_type in ("cpu", "cuda")


def _cast(value: Any, device_type: str, dtype: Any) -> Any:
    """``value`` with its floating tensors on ``device_type`` (not float64) cast to ``dtype``,
    looking inside mappings and iterables (a list or tuple comes back as a list, as PyTorch's)."""
    if isinstance(value, Tensor):
        eligible = value.is_floating_point() and value.device.type == device_type
        return value.to(dtype) if eligible and value.dtype != float64 else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, Mapping):
        return {
            _cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()
        }
    if isinstance(value, Iterable):
        cast = (_cast(v, device_type, dtype) for v in value)
        return list(cast) if isinstance(value, (list, tuple)) else cast
    return value


def _check_device_type(device_type: Any) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def custom_fwd(
    forward: Callable | None = None, *, device_type: str, cast_inputs: Any = None
) -> Callable:
    """Decorate a custom Function's ``forward`` (see the module docstring)."""
    _check_device_type(device_type)
    if forward is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        on = is_autocast_enabled(device_type)
        ctx._fwd_used_autocast = on and cast_inputs is None
        if cast_inputs is None or not on:
            return forward(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return forward(
                *_cast(args, device_type, cast_inputs), **_cast(kwargs, device_type, cast_inputs)
            )

    return decorate_fwd


def custom_bwd(backward: Callable | None = None, *, device_type: str) -> Callable:
    """Decorate a custom Function's ``backward``: it runs under its forward's autocast state."""
    _check_device_type(device_type)
    if backward is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type, dtype=ctx._dtype, enabled=ctx._fwd_used_autocast):
            return backward(*args, **kwargs)

    return decorate_bwd
