"""What a ``weights_only=True`` load may return: a tree or DAG of containers at most
``MAX_DEPTH`` deep, without cycles, whose leaves are values the opcodes make (scalars, strings,
bytes, tensors (sparse ones too), arrays, dtypes, devices, sizes) or objects of classes the user
allowed.

The check walks the result once, after STOP, so no opcode has to track depth or sharing; MARKs
are bounded by the same ``MAX_DEPTH`` while the pickle runs (``restricted_opcodes.py``).
"""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from .._tensor import Tensor
from ..backend import device
from ..dtypes import DType
from ..size import Size
from ..sparse_coo import SparseCOOTensor
from . import user_globals as _user

MAX_DEPTH = 100  # nesting of containers (and of MARKs): real checkpoints are < 10 deep

# Types that may sit in the result.
_LEAVES = (type(None), bool, int, float, complex, str, bytes, bytearray, slice, Tensor, DType, Size,
           device, np.ndarray, np.generic, memoryview, SparseCOOTensor)  # fmt: skip
_CONTAINERS = frozenset({list, tuple, dict, collections.OrderedDict, set, frozenset})
_PLAIN = frozenset({type(None), bool, int, float, str, bytes, Tensor})  # the common leaves, fast


def _children(obj: Any) -> Any:
    if type(obj) is dict:
        return obj.values()  # the keys are scalars (check_key)
    if type(obj) is collections.OrderedDict:
        # A state_dict's ``_metadata`` (set by BUILD) is part of the result too: its values are
        # checked like the dict's own, so no cycle, deep nesting or uncalled global hides there.
        metadata = obj.__dict__.get("_metadata")
        return [*obj.values(), metadata] if metadata is not None else obj.values()
    return obj  # list, tuple, set, frozenset


def _check_result(root: Any, fail: Callable[[str], NoReturn]) -> None:
    """Walk the result once, iteratively (it may be deep), and refuse cycles, containers nested
    deeper than MAX_DEPTH, and values of a type no opcode here makes (a global never called).
    A container shared by several parents is walked once (its height is remembered), so the
    walk is linear in the number of objects even for a DAG."""

    def check_leaf(obj: Any) -> None:
        if type(obj) not in _PLAIN and not isinstance(obj, _LEAVES):
            if _user.is_user_class(type(obj)):
                return  # an object of a class the user allowed (add_safe_globals)
            if _user.is_user_global(obj):
                return  # an allowed function or class stored as a value (as_value)
            fail(f"the result holds a {type(obj).__name__} (a global that was never called)")

    if type(root) not in _CONTAINERS:
        return check_leaf(root)
    height: dict[int, int] = {}  # id -> height of a finished container
    path: set[int] = set()  # the containers being walked (the ancestors of the current one)
    todo: list[tuple[Any, bool]] = [(root, False)]
    while todo:
        obj, finished = todo.pop()
        key = id(obj)
        if finished:
            path.discard(key)
            below = [height[id(c)] for c in _children(obj) if type(c) in _CONTAINERS]
            height[key] = 1 + max(below, default=0)
        elif key in path:
            fail("the result contains a reference cycle (a container inside itself)")
        elif len(path) + height.get(key, 1) > MAX_DEPTH:
            fail(f"containers nest deeper than {MAX_DEPTH}")
        elif key not in height:
            path.add(key)
            todo.append((obj, True))
            for child in _children(obj):
                if type(child) in _CONTAINERS:
                    todo.append((child, False))
                else:
                    check_leaf(child)
