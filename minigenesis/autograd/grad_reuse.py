"""Reference-count reuse: the memory tricks of the backward pass and of in-place writes, kept
out of the engine's algorithm.

A leaf's first gradient becomes its ``.grad``. Taken as it is, it could be shared: the same
gradient may reach two leaves (``a + b`` hands both the same tensor), a hook may hold it, or it
may be a view of an array something else holds; an in-place change to one ``.grad`` (a second
backward adds into it) would then show in the other. So the engine's plain rule is: the first
gradient is copied (``array_to_keep`` with ``private=False``).

The copy costs a pass over every parameter's gradient, and most gradients are held by nothing
but the engine (a matmul's result, made for this leaf alone). PyTorch keeps such a gradient
without a copy, and so does this engine, by asking Python's reference counts whether anything
else holds the gradient or its array (``held_only_here``, called where the engine sends a
gradient to a leaf): one gradient-sized copy and allocation fewer per parameter and backward.
Where reference counts do not exist (not CPython), nothing is reused and every first gradient
is copied.

The same question serves in-place ops in a graph (``inplace.py``): when nothing but a tensor
holds its array (``memory_is_private``), ``relu_`` or ``+=`` runs as the out-of-place op and the
tensor takes the result's array, one pass instead of three (copy of the old value, op, copy
back).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np


def array_to_keep(g: Any, private: bool) -> Any:
    """The array a leaf's first gradient ``g`` is kept as: g's own when ``private`` (nothing but
    the engine holds it: see held_only_here) and it is all a copy would be (writeable, in C
    order, and owning its memory or a view of all of an array nothing else holds), else a copy."""
    data = g._data
    if private and data.flags.c_contiguous and getattr(data.flags, "writeable", True):
        if data.base is None or _a_whole_view(g):
            return data
    return data.copy()


def _refs_of_one_local() -> int:
    """What ``sys.getrefcount`` says of an object one local variable holds (the interpreter's own
    references are included, and their number differs between Python versions)."""
    local = object()
    return sys.getrefcount(local)


_ONE_LOCAL = _refs_of_one_local() if hasattr(sys, "getrefcount") else None


def _a_whole_view(g: Any) -> bool:
    """g's array is a view of all of an array that nothing else holds (an op's
    ``out.reshape(...)``: only the view, and the tensor g may be a view of, keep the base alive).
    A backend whose ``base`` is a new object per call cannot tell: False."""
    data = g._data
    base = data.base
    if base is not data.base or getattr(base, "size", -1) != data.size:
        return False
    holders = 1  # data (a view holds its base)
    view_of = getattr(g, "_base", None)  # (a tensor view holds its base tensor)
    if view_of is not None:
        # g holds its base once as _base, and once more in _view_src when made from it directly
        by_g = 2 if g.__dict__.get("_view_src", (None,))[0] is view_of else 1
        if view_of._data is not base or sys.getrefcount(view_of) > _ONE_LOCAL + by_g:
            return False  # (held by g and by view_of, or more)
        holders += 1
    return sys.getrefcount(base) <= _ONE_LOCAL + holders  # (and held by base)


def held_only_here(g: Any, held_here: int) -> bool:
    """True when nothing holds the gradient ``g`` but the ``held_here`` references of the
    caller's frame (its locals, the tuple a backward returned), and nothing holds g's array but
    g: no other tensor, no view of it (a view holds its base), no op's saved values, no hook (a
    retained .grad is another tensor on the same array). Such a gradient can become a leaf's
    .grad without a copy. Read off reference counts; where they are not available, False."""
    if g is None or _ONE_LOCAL is None:
        return False
    data = g._data  # (held by g and by this local)
    return sys.getrefcount(g) <= _ONE_LOCAL + held_here and sys.getrefcount(data) <= _ONE_LOCAL + 1


def memory_is_private(t: Any) -> bool:
    """Nothing but tensor ``t`` can see the memory of t's array: no view tensors of t, no other
    tensor or NumPy array on the array (or on the array it is a view of), no op's saved arrays;
    read off reference counts (False where there are none, or on a GPU array, whose ``base`` is
    not kept the same way). Then an in-place op may give t a new array instead of writing into the
    old one, and nobody can tell but by ``data_ptr()``: a ReLU(inplace=True) or ``out += x`` in a
    graph costs one pass, not three (copy of the old value, the op, the copy back)."""
    if _ONE_LOCAL is None or t.__dict__.get("_views") or type(t._data) is not np.ndarray:
        return False
    data = t._data  # held by t and by this local
    if sys.getrefcount(data) > _ONE_LOCAL + 1:
        return False
    base = data.base  # a view of an op's temporary (a reshape, a transpose): held by data alone
    return base is None or (type(base) is np.ndarray and sys.getrefcount(base) <= _ONE_LOCAL + 1)
