"""Reading the autograd graph: the one place that knows how nodes store their edges and saves.

A node (``autograd/function.py``'s ``Function``) lists in ``next_edges`` where the gradient of
each forward argument goes: ``(vertex, output_nr, shape, dtype)`` with ``vertex`` the node that
made the argument, or the argument itself when it is a leaf tensor; ``None`` for an argument that
wants no gradient. What forward saved for backward is kept in ``node._saved`` as records
``(kind, value, version counter, version)``; ``None`` once a backward has freed them.
Everything else in ``viz/graph.py`` works on the plain facts returned here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..autograd import function as _function
from ..autograd.tensor_base import TensorBase
from ..backend import get_array_module

# The kinds of saved records (see autograd/function.py's _resolve_saved).
_CONST = getattr(_function, "_CONST", 0)
_INPUT = getattr(_function, "_INPUT", 1)
_OUTPUT = getattr(_function, "_OUTPUT", 2)
_PACKED = getattr(_function, "_PACKED", 3)


@dataclass(frozen=True)
class Saved:
    """One value a node saved for backward.

    ``role``: ``input`` / ``output`` (the op's own argument or result), ``const`` (an array made
    inside forward), ``recomputed`` (dropped by gradient checkpointing, rebuilt in backward),
    ``packed`` (held by other saved-tensor hooks)."""

    role: str
    shape: tuple | None
    dtype: str | None
    nbytes: int


def is_node(vertex: Any) -> bool:
    return isinstance(vertex, _function.Function)


def is_tensor(value: Any) -> bool:
    return isinstance(value, TensorBase)


def edges_of(node: Any) -> list:
    """``next_edges`` of a node: per forward argument, (vertex, output_nr, shape, dtype) or None."""
    return list(getattr(node, "next_edges", None) or ())


def op_name(node: Any) -> str:
    return getattr(node, "name", None) or type(node).__name__


def op_module(node: Any) -> str:
    """The last part of the module that defines the node's op (``elementwise`` for Add)."""
    return type(node).__module__.rsplit(".", 1)[-1]


def output_meta(node: Any) -> list | None:
    """(shape, dtype) of each output of a multi-output node, else None."""
    return getattr(node, "_out_meta", None)


def dtype_name(dtype: Any) -> str:
    """``float32``, ``bfloat16``, ... for a NumPy dtype or a minigenesis dtype."""
    name = getattr(dtype, "name", None)
    return str(name if name is not None else dtype).replace("minigenesis.", "")


def _itemsize(dtype: Any) -> int:
    size = getattr(dtype, "itemsize", None)
    if size is None:
        size = getattr(getattr(dtype, "numpy_dtype", None), "itemsize", 0)
    return int(size or 0)


def _from_array(role: str, array: Any) -> Saved:
    return Saved(role, tuple(array.shape), dtype_name(array.dtype), int(array.nbytes))


def _as_records(saved: list | tuple) -> list:
    """A node's saved values as records: a tuple holds plain constants as forward saved them."""
    if type(saved) is tuple:
        return [(_CONST, value, None, None) for value in saved]
    return saved


def recomputation_of(node: Any) -> Any:
    """The checkpointed call a node's saved values are recomputed from, or None.

    Non-reentrant checkpointing (``utils/checkpoint.py``) packs every saved value into an int
    under saved-tensor hooks whose ``unpack`` is a method of the recomputation: its owner has
    ``rerun`` and the ``metas`` of what was packed."""
    records = getattr(node, "_saved", ()) or ()
    for record in _as_records(records):
        if record[0] == _PACKED:
            owner = getattr(record[2], "__self__", None)
            if owner is not None and hasattr(owner, "rerun") and hasattr(owner, "metas"):
                return owner
    return None


def is_reentrant_checkpoint(node: Any) -> bool:
    """The one node a reentrant checkpoint records (``utils/checkpoint_reentrant.py``)."""
    return hasattr(node, "run_function") and hasattr(node, "replay")


def saved_of(node: Any) -> list[Saved] | None:
    """What ``node`` saved for backward; None when a backward already freed it."""
    records = getattr(node, "_saved", ())
    if records is None:
        return None
    found = []
    for record in _as_records(records):
        kind, value, vc = record[0], record[1], record[2]
        if kind == _INPUT and is_tensor(value):
            found.append(_from_array("input", value._data))
        elif kind == _OUTPUT:
            found.append(_from_array("output", value[1]))
        elif kind == _CONST:
            if is_tensor(value):
                found.append(_from_array("const", value._data))
            elif hasattr(value, "shape") and hasattr(value, "nbytes"):
                found.append(_from_array("const", value))
        elif kind == _PACKED:
            owner = getattr(vc, "__self__", None)
            metas = getattr(owner, "metas", None)
            if metas is not None and isinstance(value, int) and 0 <= value < len(metas):
                shape, dtype = metas[value]
                shape = tuple(shape)
                n = 1
                for s in shape:
                    n *= int(s)
                found.append(Saved("recomputed", shape, dtype_name(dtype), n * _itemsize(dtype)))
            elif is_tensor(value):
                found.append(_from_array("packed", value._data))
            else:
                found.append(Saved("packed", None, None, 0))
    return found


def grad_norm(tensor: Any) -> float | None:
    """The 2-norm of a leaf's ``.grad`` (in float64), or None without one."""
    g = getattr(tensor, "grad", None)
    if g is None:
        return None
    data = g._data
    xp = get_array_module(data)
    flat = data.astype(xp.float64).ravel()
    return float(xp.sqrt(xp.dot(flat, flat)))
