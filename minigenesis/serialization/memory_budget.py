"""The memory a ``weights_only=True`` load may build: at most a fixed multiple of its file.

Every opcode's own work is bounded by the bytes it reads (``restricted.py``), but the *memory*
of what one byte makes is not small: EMPTY_SET is one byte and a Python set is 216; a 1.9 MB
file of EMPTY_SETs held ~750 MB (390x its size) before it was refused at STOP. So the loader
counts, opcode by opcode, the bytes of the Python objects it creates and keeps (the new value,
its slot on the stack, a memo entry, a container's new slot), and refuses the file as soon as
the count passes ``MEMORY_FACTOR`` times the file's size (its pickle and its arrays' bytes;
plus ``MEMORY_SLACK`` for small files). The tensors themselves are not counted: a tensor, its
array header and its data are the tensors' own bytes, which the bound leaves out, and each one
costs the file its own rebuild call and buffer reference.

The counts are upper estimates of CPython's sizes (``sys.getsizeof`` for the new value, measured
per-entry costs for containers and the memo) and nothing is ever credited back (a value popped
may still be held by the memo), so the peak of a load stays below the count plus the file
itself: at most ~20x the file plus its tensors' own bytes.

Real checkpoints sit below the bound (counts measured in multiples of the file): a model's or
optimizer's state dict of real layers ~1-4x, a training history of floats ~4x, a 20,000-word
vocabulary (a dict of short strings to ints) just under 15x. What passes it is a file of
nothing but tiny values: tiny containers (a hostile file), and also, beyond the 1 MiB of slack,
a 50,000-word vocabulary (~18x), the state of a thousand BatchNorm1d(4) layers (~18x: each
tiny tensor's rebuild memoizes seven values) or tens of thousands of 0-d tensors with nothing
else (~27x): in CPython such files really take 16-26x their size. It is refused with an
``UnsafeCheckpointError`` (a ``pickle.UnpicklingError``) that says so and points at
``weights_only=False`` for a file one trusts.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

import numpy as np

from .._tensor import Tensor
from .pickling import UnsafeCheckpointError

MEMORY_FACTOR = 15  # bytes of Python objects per byte of file (the rest of 20x: the file)
MEMORY_SLACK = 1 << 20  # ... plus 1 MiB, so that small files of small objects still load

_SLOT = 8  # a pointer in a list (the stack, a list, a tuple)
_MEMO_ENTRY = 96  # an entry of the memo dict and its int key (measured: ~84)
_DICT_ENTRY = 64  # a dict's entry and its share of the hash table (measured: ~40-60)
_SET_ENTRY = 64  # a set's entry, with the table kept at most 60% full (measured: ~45)


def _code(name: str) -> int:
    return getattr(pickle, name)[0]


# The opcodes that push a value they create (its size is counted), and those that push a value
# that already exists (only the stack slot is new).
_CREATES = frozenset(map(_code, [
    "EMPTY_LIST", "EMPTY_DICT", "EMPTY_SET", "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
    "FROZENSET", "BININT", "BININT1", "BININT2", "LONG1", "LONG4", "BINFLOAT", "BINUNICODE",
    "SHORT_BINUNICODE", "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8",
    "READONLY_BUFFER", "REDUCE", "NEWOBJ", "GLOBAL", "STACK_GLOBAL",
]))  # fmt: skip
_REFERS = frozenset(map(_code, ["BINGET", "LONG_BINGET", "NEXT_BUFFER", "NONE", "NEWTRUE",
                                "NEWFALSE"]))  # fmt: skip
_MEMO_PUTS = frozenset(map(_code, ["MEMOIZE", "BINPUT", "LONG_BINPUT"]))
_MARK = _code("MARK")
# Opcodes that move values from the stack into a container: the cost of one moved item, less
# the stack slot it leaves (the stack reuses it for the next value).
_FILLS_ONE = {_code("APPEND"): 0, _code("SETITEM"): _DICT_ENTRY - 2 * _SLOT}
_FILLS_MARKED = {_code("APPENDS"): 0, _code("SETITEMS"): _DICT_ENTRY // 2 - _SLOT,  # per value
                 _code("ADDITEMS"): _SET_ENTRY - _SLOT}  # fmt: skip


def size_of(value: Any) -> int:
    """What a new value costs: CPython's size of it; an array or tensor without its data."""
    if isinstance(value, (Tensor, np.ndarray)):  # the tensors' own bytes: outside the bound
        return 0
    if type(value) is int and -5 <= value <= 256:  # CPython's cached small ints: nothing new
        return 0
    return sys.getsizeof(value)


class MemoryBudget:
    """The bytes of Python objects a load of a ``file_size``-byte file (its pickle and its
    arrays' bytes) may still create."""

    def __init__(self, file_size: int) -> None:
        self.allowed = MEMORY_FACTOR * file_size + MEMORY_SLACK
        self.left = self.allowed

    def after(self, stack: list, op: int, depth_before: int) -> None:
        """Count what opcode ``op`` just made; ``stack`` is the stack after it and
        ``depth_before`` the length of the stack it started on."""
        if op in _CREATES:
            cost = size_of(stack[-1]) + _SLOT
        elif op in _REFERS:
            cost = _SLOT
        elif op in _MEMO_PUTS:
            cost = _MEMO_ENTRY
        elif op in _FILLS_ONE:
            cost = _FILLS_ONE[op]
        elif op in _FILLS_MARKED:  # the items were the whole stack above the MARK
            cost = _FILLS_MARKED[op] * depth_before
        elif op == _MARK:  # a new (empty) stack for the values above the MARK
            cost = sys.getsizeof([])
        else:
            return
        self.left -= cost
        if self.left < 0:
            raise UnsafeCheckpointError(
                f"the payload builds more Python objects than its size allows (over "
                f"{self.allowed:,} bytes of them, {MEMORY_FACTOR}x the file's size); "
                "a file of so many tiny values is not loaded with weights_only=True (load it "
                "with weights_only=False only if you trust it)"
            )
