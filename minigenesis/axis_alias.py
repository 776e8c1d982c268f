"""NumPy's spellings of PyTorch's arguments: ``axis=`` for ``dim=`` and ``keepdims=`` for
``keepdim=``, which PyTorch's argument parser accepts for every function and method that takes a
dim (``x.amax(axis=1)``, ``mg.cat(ts, axis=0)``).

``accepts_axis(fn)`` wraps one function; ``AXIS_NAMES`` lists the functions and Tensor methods
wrapped (``_tensor.py`` and ``__init__.py`` apply it). ``sum`` and ``mean`` take the spellings
in their own signatures (the two most called reductions skip the wrapper's extra call).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

AXIS_NAMES = (
    "amax", "amin", "max", "min", "prod", "std", "var", "argmax", "argmin", "logsumexp", "all",
    "any", "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "median", "nanmedian",
    "nansum", "nanmean", "count_nonzero", "softmax", "log_softmax", "squeeze", "unsqueeze",
    "cat", "concat", "concatenate", "stack", "sort", "argsort", "topk", "kthvalue", "mode",
    "quantile", "nanquantile", "std_mean", "var_mean", "unbind", "chunk", "index_select",
    "gather", "narrow", "select", "diff", "repeat_interleave", "aminmax",
)  # fmt: skip


def accepts_axis(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` that also takes ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for numpy_name, name in (("axis", "dim"), ("keepdims", "keepdim")):
                if numpy_name in kwargs:
                    if name in kwargs:
                        raise TypeError(
                            f"{fn.__name__}() got both {name}= and its alias {numpy_name}="
                        )
                    kwargs[name] = kwargs.pop(numpy_name)
        return fn(*args, **kwargs)

    call.__wrapped_for_axis__ = True  # type: ignore[attr-defined]
    return call
