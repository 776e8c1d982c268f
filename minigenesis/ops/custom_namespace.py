"""``mg.ops.<namespace>.<name>``: where operators registered by ``mg.library.custom_op`` are found.

PyTorch reaches every operator, its own and users', through ``torch.ops``: ``torch.ops.mylib.
numpy_sin(x)``. minigenesis's ``mg.ops`` is the package of its own differentiable ops, so users'
operators are kept here, by namespace, and ``mg.ops.<namespace>`` (the package's ``__getattr__``)
looks them up. The registry only stores and finds them: ``library.py`` makes them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OpNamespace", "lookup", "register"]


class OpNamespace:
    """The operators of one namespace, as attributes: ``mg.ops.mylib.numpy_sin``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._ops: dict[str, Any] = {}

    def __getattr__(self, op_name: str) -> Any:
        ops = self.__dict__["_ops"]
        if op_name not in ops:
            raise AttributeError(
                f"'_OpNamespace' '{self.__dict__['name']}' object has no attribute '{op_name}'"
            )
        return ops[op_name]

    def __repr__(self) -> str:
        return f"<module 'torch.ops.{self.name}'>"


_namespaces: dict[str, OpNamespace] = {}


def register(namespace: str, name: str, op: Any) -> None:
    """Make ``op`` reachable as ``mg.ops.<namespace>.<name>`` (a later registration replaces)."""
    _namespaces.setdefault(namespace, OpNamespace(namespace))._ops[name] = op


def lookup(namespace: str) -> OpNamespace | None:
    """The namespace's operators, or None when nothing was registered in it."""
    return _namespaces.get(namespace)
