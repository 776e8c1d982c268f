"""``mg.utils.hooks`` (``torch.utils.hooks``): the handle every ``register_*_hook`` returns, by
the import path libraries use (``from torch.utils.hooks import RemovableHandle``), and the two
helpers ``torch.save`` uses to warn about tensor hooks that a checkpoint does not keep."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..hook_handle import RemovableHandle

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f: Callable) -> Callable:
    """Mark ``f`` as a tensor hook that is not meant to be saved (``warn_if_has_hooks`` then
    stays silent about it); returns ``f``."""
    f.__torch_unserializable__ = True
    return f


def _tensor_hooks(tensor: Any) -> list:
    """The gradient hooks registered on ``tensor`` by ``register_hook`` (retain_grad's own
    hook left out): a leaf keeps them itself, an op's output on its grad_fn."""
    if tensor.grad_fn is None:
        return list(getattr(tensor, "_hooks", None) or [])
    hooks = (tensor.grad_fn._grad_hooks or {}).get(tensor._output_nr, [])
    return [h for h in hooks if not getattr(h, "retains_grad", False)]


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn for each hook on ``tensor`` not marked by ``unserializable_hook``: saving the tensor
    does not save its hooks."""
    for hook in _tensor_hooks(tensor):
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(
                f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, "
                "you can decorate the function with @torch.utils.hooks.unserializable_hook to "
                "suppress this warning",
                stacklevel=2,
            )
