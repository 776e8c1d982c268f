"""What every ``register_*_hook`` of a module or an optimizer returns: a handle that unregisters
the hook (PyTorch's ``torch.utils.hooks.RemovableHandle``).

A hook is stored in an ordered dict under the handle's ``id``, so hooks run in the order they
were registered (``prepend=True`` puts one first) and removing one is a dict ``pop``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

_ids = itertools.count()  # one counter for all registries: an id names one hook


class RemovableHandle:
    """``handle.remove()`` unregisters the hook; as a context manager, it is removed on leaving
    the ``with`` block. ``on_remove`` (optional) runs after each removal."""

    def __init__(self, hooks: dict, on_remove: Callable[[], None] | None = None) -> None:
        self._hooks, self._on_remove = hooks, on_remove
        self.id = next(_ids)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)
        if self._on_remove is not None:
            self._on_remove()

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


def add_hook(
    hooks: dict, hook: Callable, prepend: bool = False, on_remove: Callable[[], None] | None = None
) -> RemovableHandle:
    """Store ``hook`` in the ordered dict ``hooks`` (first if ``prepend``) and return its handle."""
    handle = RemovableHandle(hooks, on_remove)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)  # type: ignore[attr-defined]
    return handle
