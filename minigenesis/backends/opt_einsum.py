"""``mg.backends.opt_einsum``: PyTorch's switch for choosing the order in which ``einsum`` contracts
three or more operands (the ``opt_einsum`` package finds a cheap order; without it PyTorch
contracts left to right).

minigenesis's ``einsum`` picks its own order and does not consult these flags: the result is the
same sum of products either way, only the cost differs. They are kept so scripts that set them run:

- ``enabled`` (True when the package is installed): use the package's order.
- ``strategy`` ("auto" when the package is installed, else None): "auto", "greedy" or
  "optimal".
"""

from __future__ import annotations

import importlib.util
from typing import Any

__all__ = ["enabled", "get_opt_einsum", "is_available", "strategy"]


def is_available() -> bool:
    """Whether the ``opt_einsum`` package can be imported (PyTorch's answer too)."""
    return importlib.util.find_spec("opt_einsum") is not None


def get_opt_einsum() -> Any:
    """The ``opt_einsum`` module when installed, else None."""
    if not is_available():
        return None
    import opt_einsum

    return opt_einsum


enabled: bool = is_available()
strategy: str | None = "auto" if is_available() else None
