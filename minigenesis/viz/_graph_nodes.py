"""The boxes of an autograd-graph picture (``Node``), the frames around collapsed runs of
identical blocks (``Block``), and the text written in a box (shapes, saved values, bytes).

They sit below the walk (``_graph_walk.py``), the collapsing (``_graph_collapse.py``) and the
``Graph`` (``autograd_graph.py``), which all make or read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._graph_style import fmt_bytes


@dataclass
class Node:
    """One box of the picture.

    ``kind``: ``op`` (a graph node), ``leaf`` (a tensor that requires grad), ``sum_to`` (the
    engine summing a broadcast gradient back), ``more`` (the nodes left out past max_nodes)."""

    id: int
    kind: str
    name: str
    shape: tuple | list | None = None  # one shape, or a list of them for a multi-output op
    dtype: str | None = None
    saved: list | None = field(default_factory=list)  # read.Saved values; None: freed
    grad_norm: float | None = None  # leaves, after backward
    segment: int | None = None  # gradient checkpointing: the recomputed segment (1, 2, ...)
    is_output: bool = False
    depth: int = 0  # the longest distance from an output
    note: str = ""
    obj: Any = field(default=None, repr=False, compare=False)  # the Function or the tensor

    @property
    def saved_bytes(self) -> int:
        return sum(s.nbytes for s in self.saved or ())

    @property
    def recomputed_bytes(self) -> int:
        return sum(s.nbytes for s in self.saved or () if s.role == "recomputed")

    def lines(self, show_saved: bool = True, show_grad: bool = False) -> list[str]:
        """The text of this node's box, one line per entry."""
        lines = [self.name]
        if self.kind == "more":
            return lines
        if self.shape is not None:
            if isinstance(self.shape, list):
                lines.append(", ".join(_fmt_shape(s) for s in self.shape) + f" {self.dtype}")
            else:
                lines.append(f"{_fmt_shape(self.shape)} {self.dtype}")
        if self.note:
            lines.append(self.note)
        if show_saved and self.kind == "op":
            lines.extend(_saved_lines(self.saved))
        if show_grad and self.kind == "leaf":
            lines.append(
                "grad: none" if self.grad_norm is None else f"grad norm {self.grad_norm:.3g}"
            )
        return lines


@dataclass
class Block:
    """A run of ``repeats`` identical blocks, drawn once: ``node_ids`` are the nodes drawn for
    it, ``hidden`` how many nodes the other repeats hold."""

    repeats: int
    node_ids: list[int]
    hidden: int


def _shape_key(shape: Any) -> Any:
    return tuple(tuple(s) for s in shape) if isinstance(shape, list) else shape


def _fmt_shape(shape: Any) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _saved_lines(saved: list | None) -> list[str]:
    if saved is None:
        return ["saved: freed by backward"]
    if not saved:
        return []
    parts = []
    for s in saved[:2]:
        what = f"{s.role} {_fmt_shape(s.shape)}" if s.shape is not None else s.role
        parts.append(f"{what} {fmt_bytes(s.nbytes)}" if s.shape is not None else what)
    lines = ["saved: " + parts[0]] + ["       " + p for p in parts[1:]]
    if len(saved) > 2:
        rest = sum(s.nbytes for s in saved[2:])
        lines.append(f"       +{len(saved) - 2} more, {fmt_bytes(rest)}")
    return lines
