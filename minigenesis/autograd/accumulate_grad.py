"""AccumulateGrad: the graph node that stands for a leaf tensor, as PyTorch shows it.

Inside minigenesis a node's ``next_edges`` point at a leaf tensor directly (the engine adds the
gradient into its ``.grad``). PyTorch instead shows an ``AccumulateGrad`` node there, whose
``.variable`` is the leaf; ``grad_fn.next_functions`` builds these so code that walks the graph
PyTorch's way (``fn.next_functions[0][0].variable``) works. One node per leaf, kept on the leaf
(the node holds the leaf weakly, so the two form no reference cycle).
"""

from __future__ import annotations

import weakref
from typing import Any


class AccumulateGrad:
    """The node that accumulates a leaf's gradient into ``leaf.grad``."""

    __slots__ = ("_variable", "__weakref__")

    def __init__(self, variable: Any) -> None:
        self._variable = weakref.ref(variable)

    @property
    def variable(self) -> Any:
        """The leaf tensor this node accumulates into (None once the leaf is gone)."""
        return self._variable()

    @property
    def next_functions(self) -> tuple:
        """A leaf's node leads nowhere: ``()``."""
        return ()

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"


def accumulate_grad_node(leaf: Any) -> AccumulateGrad:
    """The (one) AccumulateGrad node of ``leaf``, made on first request."""
    node = leaf.__dict__.get("_accumulate_grad")
    if node is None:
        node = leaf.__dict__["_accumulate_grad"] = AccumulateGrad(leaf)
    return node
