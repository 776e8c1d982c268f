"""Containers: Sequential (a pipeline), ModuleList and ModuleDict (registered collections).

A plain Python list of layers is invisible to ``parameters()``, ``to()`` and ``state_dict()``;
these containers register each element as a child module named by its index (or key), which is
where state-dict keys like ``"0.weight"`` come from.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .module import Module


def _index(i: int, n: int, kind: str) -> int:
    if not isinstance(i, int):
        raise TypeError(f"{kind} indices must be integers or slices, not {type(i).__name__}")
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range for a {kind} of length {n}")
    return i % n


class Sequential(Module):
    """``Sequential(m0, m1, ...)`` or ``Sequential(OrderedDict(name=m))``: ``forward(x)`` is
    ``m_n(...m1(m0(x)))``. Indexable (``model[0]``), sliceable (``model[1:]`` is a Sequential),
    iterable, with ``len``."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, m in args[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        self.add_module(keys[_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        doomed = (
            keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "Sequential")]]
        )
        for k in doomed:
            del self._modules[k]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)
        return self


class ModuleList(Module):
    """A list of modules, registered as children ``"0"``, ``"1"``, ... (no ``forward``: you decide
    how to use them)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(mods[idx])
        return mods[_index(idx, len(mods), "ModuleList")]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx: int | slice) -> None:
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            del mods[idx]
        else:
            del mods[_index(idx, len(mods), "ModuleList")]
        self._modules.clear()
        for i, m in enumerate(mods):  # renumber, so the keys stay 0..n-1
            self.add_module(str(i), m)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList(list(self) + list(other))

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend expects an iterable of modules, got one Module")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "ModuleList has no forward: iterate over it (for layer in self.layers: x = layer(x))"
        )


class ModuleDict(Module):
    """A dict of modules (insertion-ordered), registered as children under their keys."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        if key not in self._modules:
            raise KeyError(f"ModuleDict has no key {key!r} (keys: {list(self._modules)})")
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key: str) -> Module:
        m = self[key]
        del self._modules[key]
        return m

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        items = modules.items() if hasattr(modules, "items") else modules
        for key, m in items:
            self[key] = m

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ModuleDict has no forward: pick a module by key")
