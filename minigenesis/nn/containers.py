"""Containers: Sequential (a pipeline), ModuleList and ModuleDict (registered collections of
layers), ParameterList and ParameterDict (registered collections of parameters).

A plain Python list of layers is invisible to ``parameters()``, ``to()`` and ``state_dict()``;
these containers register each element as a child module (or parameter) named by its index (or
key), which is where state-dict keys like ``"0.weight"`` come from.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .._tensor import Tensor
from .module import Module
from .parameter import Parameter


def _index(i: Any, n: int, kind: str) -> int:
    # operator.index, as PyTorch's containers use: NumPy integers (np.arange loops) and 0-d
    # integer tensors index too, floats do not
    try:
        i = operator.index(i)
    except TypeError:
        raise TypeError(
            f"{kind} indices must be integers or slices, not {type(i).__name__}"
        ) from None
    if not -n <= i < n:
        raise IndexError(f"index {i} is out of range for a {kind} of length {n}")
    return i % n


def _sequential(other: Any, op: str) -> Sequential:
    if not isinstance(other, Sequential):
        raise ValueError(
            f"{op} operator supports only objects of Sequential class, but {type(other)} is given."
        )
    return other


def _repeats(seq: Sequential, times: Any) -> int:
    if not isinstance(times, int):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(seq)}")
    return times


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

    def forward(self, input: Any) -> Any:  # noqa: A002  (PyTorch's name: seq(input=x) works)
        for m in self._modules.values():
            input = m(input)
        return input

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
        # the rest renumbered 0..n-1 (names given by an OrderedDict too), as PyTorch does: the
        # state_dict keys are then those of the same Sequential built without the deleted layers
        kept = list(self._modules.values())
        self._modules.clear()
        self._modules.update((str(i), m) for i, m in enumerate(kept))

    def pop(self, idx: int | slice) -> Any:
        """Remove the layer at ``idx`` (renumbering the rest) and return it."""
        layer = self[idx]
        del self[idx]
        return layer

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    # ``a + b``: a new Sequential of a's layers then b's; ``a * k``: a's layers k times (the same
    # layer objects, so their parameters are shared); ``+=`` and ``*=`` extend ``a`` itself
    def __add__(self, other: Sequential) -> Sequential:
        return Sequential().extend(self).extend(_sequential(other, "add"))

    def __iadd__(self, other: Sequential) -> Sequential:
        return self.extend(_sequential(other, "add"))

    def __mul__(self, times: int) -> Sequential:
        return Sequential().extend(list(self) * _repeats(self, times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        return self.extend(list(self) * (_repeats(self, times) - 1))

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (``-len <= index <= len``, as PyTorch)."""
        if not -len(self) <= index <= len(self):
            raise IndexError(f"Index out of range: {index} (Sequential of length {len(self)})")
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

    def __repr__(self) -> str:
        """As PyTorch prints it: a run of children that print alike shows once, as
        ``(0-11): 12 x Block(...)``."""
        runs: list[list] = []  # [first index, last index, repr]
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return f"{type(self).__name__}()"
        lines = []
        for first, last, text in runs:
            if first == last:
                line = f"({first}): {text}"
            else:
                line = f"({first}-{last}): {last - first + 1} x {text}"
            lines.append(line.replace("\n", "\n  "))
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

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

    def pop(self, idx: int | slice = -1) -> Any:
        """Remove the module at ``idx`` (default: the last; the rest are renumbered) and
        return it."""
        module = self[idx]
        del self[idx]
        return module

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


def _as_parameter(value: Any) -> Any:
    """What a parameter container stores: a Parameter as it is, any other tensor wrapped in one
    (so it trains), anything else (a number, a string) kept as a plain attribute, as in PyTorch."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


def _describe(value: Any, dtype_name: str) -> str:
    """One line per entry of a parameter container's repr: kind, dtype, size (not the values).
    The containers indent these lines by two spaces themselves, as PyTorch's do, so the output
    matches PyTorch's to the character (one entry prints on the container's own line)."""
    if not isinstance(value, Tensor):
        return f"Object of type: {type(value).__name__}"
    kind = "Parameter containing" if isinstance(value, Parameter) else "Tensor"
    size = "x".join(str(d) for d in value.shape)
    return f"{kind}: [{dtype_name} of size {size}]"


class ParameterList(Module):
    """A list of parameters, registered under ``"0"``, ``"1"``, ... so ``parameters()``,
    ``state_dict()`` and ``to()`` see them (a plain list of Parameters is invisible to all
    three)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: int, value: Any) -> None:
        setattr(self, str(_index(idx, len(self), "ParameterList")), _as_parameter(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(len(self)))

    def __iadd__(self, values: Iterable[Any]) -> ParameterList:
        return self.extend(values)

    def append(self, value: Any) -> ParameterList:
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if isinstance(values, Tensor):
            raise TypeError("ParameterList.extend expects an iterable of parameters, got a Tensor")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            f"  ({i}): {_describe(v, str(getattr(v, 'dtype', '')))}" for i, v in enumerate(self)
        )

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ParameterList has no forward: index it (self.weights[i])")


class ParameterDict(Module):
    """A dict of parameters (insertion-ordered), registered under their keys."""

    def __init__(self, parameters: Mapping[str, Any] | Iterable | None = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})  # insertion order of every key, parameter or not
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(f"ParameterDict has no key {key!r} (keys: {list(self._keys)})")
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        if not isinstance(key, str):
            raise TypeError(f"ParameterDict keys must be strings, got {type(key).__name__}")
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        self[key]  # the KeyError naming the keys
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        """The keys, last inserted first (as a dict's ``reversed``)."""
        return reversed(list(self._keys))

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return [self[k] for k in self._keys]

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self._keys else default

    def pop(self, key: str) -> Any:
        value = self[key]
        del self[key]
        return value

    def clear(self) -> None:
        for key in list(self._keys):
            del self[key]

    def update(self, parameters: Mapping[str, Any] | Iterable) -> None:
        """Add or replace entries. As PyTorch's: an OrderedDict, a ParameterDict or an
        iterable of pairs keeps its order; a plain mapping's new keys go in sorted order."""
        if isinstance(parameters, (OrderedDict, ParameterDict)):
            items = list(parameters.items())
        elif hasattr(parameters, "items"):
            items = sorted(parameters.items(), key=lambda kv: kv[0])
        else:
            items = parameters
        for key, value in items:
            self[key] = value

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them)."""
        return ParameterDict(OrderedDict(self.items()))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """``self[key]``, after setting it to ``default`` if the key is new."""
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last inserted ``(key, parameter)``."""
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        key = next(reversed(self._keys))
        return key, self.pop(key)

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with ``keys``, each set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    # ``a | b``: a new dict with a's entries updated by b's; ``a |= b`` updates a
    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            f"  ({k}): {_describe(v, v.type() if isinstance(v, Tensor) else '')}"
            for k, v in self.items()
        )

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("ParameterDict has no forward: pick a parameter by key")
