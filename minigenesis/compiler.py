"""``mg.compile`` and ``mg.compiler``: minigenesis runs every op eagerly, as written.

PyTorch's ``torch.compile`` traces a model and generates fused kernels for it; a training script
calls it once and then uses the result exactly like the model. minigenesis has no compiler (the
course is about what each op does, one at a time), so ``compile`` returns what it was given, which
computes the same numbers, and says so once. Used as a decorator (``@mg.compile`` or
``@mg.compile(mode="max-autotune")``) it does the same.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

_warned = False


def compile(model: Callable | None = None, **options: Any) -> Any:  # noqa: A001
    """``torch.compile(model, fullgraph=, dynamic=, backend=, mode=, options=, disable=)``:
    returns ``model`` unchanged (every option accepted, none has an effect here)."""
    global _warned
    if model is None:  # @mg.compile(...) with options: return the decorator
        return lambda fn: compile(fn, **options)
    if not callable(model):
        raise TypeError(f"compile expects a module or a function, got {type(model).__name__}")
    if not _warned and not options.get("disable", False):
        _warned = True
        warnings.warn(
            "minigenesis runs eagerly: compile() returns the model unchanged (same results, no "
            "generated kernels)",
            UserWarning,
            stacklevel=2,
        )
    return model


def is_compiling() -> bool:
    """False: nothing is ever being traced here."""
    return False


def disable(fn: Callable | None = None, recursive: bool = True) -> Any:
    """``torch.compiler.disable``: a no-op decorator here (nothing is compiled to begin with)."""
    return fn if fn is not None else (lambda f: f)


def reset() -> None:
    """``torch.compiler.reset``: there are no compiled caches to clear."""
