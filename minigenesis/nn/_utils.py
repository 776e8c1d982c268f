"""Argument readers shared by the layers of ``nn/`` and their functional forms in
``functional/``: a layer checks its constructor's arguments with the same rules (and messages)
that ``F.*`` applies to a call."""

from __future__ import annotations

from typing import Any

from ..size import plain_int


def shape_tuple(shape: Any) -> tuple:
    """An int or a sequence of ints (``normalized_shape``) -> a tuple of ints."""
    shape = plain_int(shape)  # (a NumPy integer counts as an int)
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


def padding_index(padding_idx: int | None, num_embeddings: int) -> int | None:
    """``padding_idx`` in [-num_embeddings, num_embeddings), made non-negative."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:  # PyTorch asserts
        raise AssertionError(
            f"padding_idx must be within num_embeddings: expected a value in "
            f"[{-num_embeddings}, {num_embeddings}), got {padding_idx}"
        )
    return padding_idx % num_embeddings


def single(value: Any, name: str) -> int:
    """An int or a 1-tuple of ints -> an int (PyTorch's ``_single``); ``name`` is the argument."""
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    value = plain_int(value)  # (a NumPy integer counts as an int)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise TypeError(f"{name} must be a non-negative int or a 1-tuple of one, got {value!r}")
    return value
