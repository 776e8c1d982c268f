"""The public computing names the op database must cover, enumerated from the package itself:
mg.* functions, Tensor methods, nn.functional, mg.linalg and mg.special (qualified as the
entries name them: ``exp``, ``Tensor.exp_``, ``F.relu``, ``linalg.svd``, ``special.erf``)."""

from __future__ import annotations

import inspect
import types

import minigenesis as mg
import minigenesis.nn.functional as F


def _functions(module: types.ModuleType, prefix: str) -> set[str]:
    """Public functions of a module that minigenesis defines (not typing names or NumPy)."""
    names = set()
    for name in dir(module):
        obj = getattr(module, name)
        if name.startswith("_") or inspect.isclass(obj) or isinstance(obj, types.ModuleType):
            continue
        if callable(obj) and getattr(obj, "__module__", "").startswith("minigenesis"):
            names.add(prefix + name)
    return names


def public_names() -> set[str]:
    names = _functions(mg, "")
    names |= {
        f"F.{n}"
        for n in dir(F)
        if inspect.isfunction(getattr(F, n))
        and getattr(F, n).__module__.startswith(F.__name__ + ".")
        and not n.startswith("_")
    }  # fmt: skip  (defined in one of nn/functional/'s files: F's API, not a helper from ops/)
    names |= {
        f"linalg.{n}" for n in mg.linalg.__all__ if not inspect.isclass(getattr(mg.linalg, n))
    }
    names |= _functions(mg.special, "special.")
    names |= {
        f"Tensor.{n}"
        for n in dir(mg.Tensor)
        if not n.startswith("_") and callable(getattr(mg.Tensor, n, None))
    }
    return names


def covered_names(entries) -> set[str]:
    """The public names the entries test: each entry's name, method, in-place form and aliases."""
    names = set()
    for e in entries:
        names.add(e.name)
        if e.method:
            names.add(f"Tensor.{e.method}")
        if e.inplace:
            names.add(f"Tensor.{e.inplace}")
        names.update(e.aliases)
    return names
