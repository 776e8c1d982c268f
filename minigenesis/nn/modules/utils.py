"""``torch.nn.modules.utils``: the argument helpers layers share (``_pair(3) == (3, 3)``) and
``consume_prefix_in_state_dict_if_present`` (strip DataParallel's ``"module."`` from keys).

Programs written for PyTorch import these by this path (``from torch.nn.modules.utils import
_pair``) to accept an int or a tuple for a kernel size, as PyTorch's own layers do.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple]:
    """A function that repeats a single value n times and passes an iterable through as a tuple."""

    def parse(x: Any) -> tuple:
        if isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: tuple, n: int) -> tuple:
    """Each element of ``t`` repeated ``n`` times, in reverse order: ``((1, 2), 2) -> (2, 2, 1, 1)``
    (convolution padding in F.pad's last-dimension-first order)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size: list, defaults: list) -> list:
    """``out_size`` with each None replaced by the matching entry of ``defaults``'s trailing
    dimensions (adaptive pooling's ``output_size=(None, 7)``)."""
    if isinstance(out_size, int | float):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size) :])]


def consume_prefix_in_state_dict_if_present(state_dict: dict, prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place (also from
    the keys of its ``_metadata``, when it has one)."""
    for key in list(state_dict.keys()):  # (popped and re-added: the order is kept)
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix) :]] = metadata.pop(key)
