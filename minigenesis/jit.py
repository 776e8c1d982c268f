"""``mg.jit``: TorchScript's entry points, running eagerly.

TorchScript compiles a model into a program that runs without Python; minigenesis is a Python
engine whose point is the Python you can read, so nothing is compiled here. Instead ``mg.jit``
behaves as PyTorch's own ``torch.jit`` does with ``PYTORCH_JIT=0`` (its switch for debugging
scripted code in Python): ``script`` and ``trace`` hand back the function or module they were
given, which then runs as ordinary Python, so code that sprinkles ``@torch.jit.script`` or
``torch.jit.trace(model, example)`` runs and gives the eager numbers. ``trace`` still runs the
module once on its example inputs, as tracing does, so wrong example inputs fail at the same
place. ``save`` and ``load`` keep the whole module with ``mg.save``/``mg.load`` (pickled Python,
read back by the weights-only loader; not a TorchScript archive: PyTorch cannot read it; to ship
a model, save its ``state_dict``).
``ignore``/``unused``/``export`` return the method unchanged; ``is_scripting`` is always False.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

from . import serialization
from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .nn.module import Module
from .serialization import user_globals

__all__ = [
    "script", "trace", "trace_module", "save", "load", "freeze", "optimize_for_inference",
    "ignore", "unused", "export", "is_scripting", "is_tracing", "annotate",
]  # fmt: skip


def _scriptable(obj: Any, name: str) -> Any:
    if not callable(obj):
        raise RuntimeError(
            f"torch.jit.{name}: expected a function or an nn.Module, got {type(obj).__name__}"
        )
    return obj


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None, **kwargs: Any):
    """``obj`` itself (a function, a Module or a class): it runs eagerly, as a scripted object
    does under ``PYTORCH_JIT=0``."""
    return _scriptable(obj, "script")


def trace(func: Any, example_inputs: Any = None, *args: Any, **kwargs: Any) -> Any:
    """Run ``func`` once on ``example_inputs`` (a tensor or a tuple of them; or
    ``example_kwarg_inputs``), without recording gradients, and return ``func`` itself."""
    _scriptable(func, "trace")
    kw = kwargs.get("example_kwarg_inputs")
    if example_inputs is None and kw is None:
        raise RuntimeError("torch.jit.trace: give example_inputs or example_kwarg_inputs")
    with no_grad():
        if kw is not None:
            func(**kw)
        else:
            func(*(example_inputs if isinstance(example_inputs, tuple) else (example_inputs,)))
    return func


def trace_module(mod: Module, inputs: dict[str, Any], *args: Any, **kwargs: Any) -> Module:
    """Run each named method of ``mod`` once on its example inputs; return ``mod`` itself."""
    for method, example in inputs.items():
        trace(getattr(mod, method), example)
    return mod


def save(m: Any, f: str | os.PathLike | BinaryIO, _extra_files: Any = None) -> None:
    """Keep the whole module (its class is pickled by reference, as ``mg.save(model)`` does)."""
    serialization.save(m, f)


def load(f: str | os.PathLike | BinaryIO, map_location: Any = None, _extra_files: Any = None):
    """The module written by ``save``, its tensors placed by ``map_location``.

    Loaded by the weights-only loader, which runs no code a file names: the only classes a file
    may make here are the ``nn.Module`` subclasses this process has already defined (its own
    model classes and the library's layers; nothing is imported for a file), each made from its
    saved state as pickle makes an instance, never called (no ``__init__`` with arguments the
    file chooses). A TorchScript archive runs only TorchScript, never arbitrary Python; a
    pickle loaded with ``weights_only=False`` could, so that is not used."""
    with user_globals.made_only(_module_classes()):
        loaded = serialization.load(f, map_location=map_location, weights_only=True)
    name = getattr(f, "name", None) if hasattr(f, "read") else os.fspath(f)
    _check_module_layout(loaded, str(name) if name is not None else f"<{type(f).__name__}>")
    return loaded


# The bookkeeping every Module keeps in its __dict__ (Module.__init__), with what may be in it.
_LAYOUT: dict[str, tuple[type, Callable[[Any], bool], str]] = {
    "_parameters": (dict, lambda v: v is None or isinstance(v, Tensor), "a tensor or None"),
    "_buffers": (dict, lambda v: v is None or isinstance(v, Tensor), "a tensor or None"),
    "_modules": (dict, lambda v: v is None or isinstance(v, Module), "a module or None"),
    "_forward_hooks": (dict, callable, "a function"),
    "_forward_pre_hooks": (dict, callable, "a function"),
}


def _check_module_layout(obj: Any, name: str) -> None:
    """RuntimeError (PyTorch's jit.load raises one for a bad archive) unless ``obj`` is a module
    whose bookkeeping is what Module keeps, at every depth. The weights-only loader makes a module
    from whatever state the file gives it (never calling its constructor), so a file could give
    ``_modules`` as a list or replace ``forward`` with a number: it would load, and fail later,
    far from the file, with a message about neither."""
    if not isinstance(obj, Module):
        raise serialization.CheckpointError(f"{name}: holds a {type(obj).__name__}, not a module "
                                            "(jit.load reads what jit.save wrote; mg.load reads "
                                            "other objects)")  # fmt: skip
    stack, seen = [("", obj)], set()
    while stack:
        path, module = stack.pop()
        where = f"submodule {path}" if path else "the module"
        if id(module) in seen:
            continue
        seen.add(id(module))
        state = vars(module)
        if type(state.get("training")) is not bool:
            raise serialization.CheckpointError(
                f"{name}: {where}'s training flag is {type(state.get('training')).__name__}, "
                "not a bool")  # fmt: skip
        for field, (kind, fits, what) in _LAYOUT.items():
            value = state.get(field)
            if not isinstance(value, kind):
                raise serialization.CheckpointError(
                    f"{name}: {where}'s {field} is {type(value).__name__}, not a dict"
                )
            for key, item in value.items():
                if not fits(item):
                    raise serialization.CheckpointError(
                        f"{name}: {where}'s {field}[{key!r}] is {type(item).__name__}, not {what}"
                    )
        for attr, value in state.items():  # data put where the class has a method
            if callable(getattr(type(module), attr, None)) and not callable(value):
                raise serialization.CheckpointError(
                    f"{name}: {where}'s {attr} is {type(value).__name__} data, which replaces "
                    f"the method {type(module).__name__}.{attr}")  # fmt: skip
        stack.extend((f"{path}.{key}" if path else str(key), sub)
                     for key, sub in state["_modules"].items() if sub is not None)  # fmt: skip


def _module_classes() -> list[type]:
    """Every subclass of ``nn.Module`` defined so far, at any depth, that its module still
    names: pickle finds a class by its name, so a local class cannot be named, and a class
    defined again under the same name (a notebook cell run twice) leaves the old one alive
    but no longer named; the file means the class the name stands for now."""
    found, stack = [], [Module]
    while stack:
        cls = stack.pop()
        if _named_as_itself(cls):
            found.append(cls)
        stack.extend(cls.__subclasses__())
    return found


def _named_as_itself(cls: type) -> bool:
    """Whether ``module.qualname`` of ``cls`` leads back to ``cls`` (what pickle checks when
    it saves a class by reference)."""
    obj: Any = sys.modules.get(cls.__module__)
    try:
        for part in cls.__qualname__.split("."):
            obj = getattr(obj, part, None)
    except Exception:  # noqa: BLE001  (a module's own __getattr__ may raise anything)
        return False
    return obj is cls


def freeze(mod: Module, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Module:
    """``mod`` itself; like PyTorch, only a module in eval mode can be frozen."""
    if mod.training:
        raise RuntimeError(
            "Freezing is currently only implemented for modules in eval mode. Please call "
            ".eval() on your module before freezing."
        )
    return mod


def optimize_for_inference(mod: Module, other_methods: Any = None) -> Module:
    """``mod`` itself in eval mode (no graph to rewrite here)."""
    return mod.eval()


def _unchanged(fn: Callable | None = None, **kwargs: Any) -> Any:
    return fn if fn is not None else (lambda f: f)


ignore = unused = export = _unchanged


def annotate(the_type: Any, the_value: Any) -> Any:
    """The value itself (a type hint for the TorchScript compiler)."""
    return the_value


def is_scripting() -> bool:
    """False: nothing runs as TorchScript here (models test this to pick a Python branch)."""
    return False


def is_tracing() -> bool:
    return False
