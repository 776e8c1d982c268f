"""``mg.jit``: importable so PyTorch scripts load, but TorchScript is out of scope.

TorchScript compiles a model into a program that runs without Python; minigenesis is a Python
engine whose point is the Python you can read, so ``script``, ``trace``, ``save`` and ``load``
raise ``NotImplementedError`` saying so. To ship a model trained here, save its ``state_dict``
with ``mg.save``, load it into the same architecture written in PyTorch (the names and layouts
match) and script or trace it there. ``mg.jit.ignore``/``unused``/``export`` are decorators that
PyTorch code puts on methods; they return the function unchanged, so such code still imports.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_OUT_OF_SCOPE = (
    "minigenesis.jit.{name}: TorchScript is out of scope for minigenesis (it runs Python, "
    "eagerly). Save the weights with mg.save(model.state_dict(), path), load them into the same "
    "model written in PyTorch, and use torch.jit.{name} there."
)


def _out_of_scope(name: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(_OUT_OF_SCOPE.format(name=name))

    refuse.__name__ = name
    refuse.__doc__ = "Out of scope: raises ``NotImplementedError`` (see the module docstring)."
    return refuse


script = _out_of_scope("script")
trace = _out_of_scope("trace")
trace_module = _out_of_scope("trace_module")
save = _out_of_scope("save")
load = _out_of_scope("load")
freeze = _out_of_scope("freeze")


def _unchanged(fn: Callable | None = None, **kwargs: Any) -> Any:
    return fn if fn is not None else (lambda f: f)


ignore = unused = export = _unchanged


def is_scripting() -> bool:
    """False: nothing runs as TorchScript here (models test this to pick a Python branch)."""
    return False


def is_tracing() -> bool:
    return False
