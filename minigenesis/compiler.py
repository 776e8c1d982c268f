"""``mg.compile`` and ``mg.compiler``: minigenesis runs every op eagerly, as written.

PyTorch's ``torch.compile`` traces a model and generates fused kernels for it; a training script
calls it once and then uses the result exactly like the model. minigenesis has no compiler (the
course is about what each op does, one at a time), so ``compile`` returns a function as it was
given, which computes the same numbers, and says so once. A Module comes back wrapped as PyTorch's
does, in an ``OptimizedModule`` holding it as ``_orig_mod`` (so the wrapper's state_dict keys
start with ``_orig_mod.``, as a checkpoint saved from a compiled model's has). Used as a decorator
(``@mg.compile`` or ``@mg.compile(mode="max-autotune")``) it does the same.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from .nn.module import Module

_warned = False


class OptimizedModule(Module):
    """What ``compile(module)`` returns: a Module whose only child is ``_orig_mod`` (the module
    itself, shared, not copied); calling it calls the module, and attributes it does not have
    are read from the module (``compiled.fc`` is ``module.fc``)."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.__dict__["_modules"]["_orig_mod"], name)


def compile(model: Callable | None = None, **options: Any) -> Any:  # noqa: A001
    """``torch.compile(model, fullgraph=, dynamic=, backend=, mode=, options=, disable=)``:
    a function unchanged, a Module wrapped in an ``OptimizedModule`` (every option accepted,
    none has an effect here)."""
    global _warned
    if model is None:  # @mg.compile(...) with options: return the decorator
        return lambda fn: compile(fn, **options)
    if not callable(model):
        raise TypeError(f"compile expects a module or a function, got {type(model).__name__}")
    if not _warned and not options.get("disable", False):
        _warned = True
        warnings.warn(
            "minigenesis runs eagerly: compile() runs the model as written (same results, no "
            "generated kernels)",
            UserWarning,
            stacklevel=2,
        )
    return OptimizedModule(model) if isinstance(model, Module) else model


def is_compiling() -> bool:
    """False: nothing is ever being traced here."""
    return False


def disable(fn: Callable | None = None, recursive: bool = True) -> Any:
    """``torch.compiler.disable``: a no-op decorator here (nothing is compiled to begin with)."""
    return fn if fn is not None else (lambda f: f)


def reset() -> None:
    """``torch.compiler.reset``: there are no compiled caches to clear."""
