"""``mg.return_types`` (``torch.return_types``): the named tuples that ops returning
(values, indices) give back, one type per op as in PyTorch, so ``print(x.max(dim=1))`` reads

    minigenesis.return_types.max(
    values=tensor([5, 7]),
    indices=tensor([1, 0]))

and ``values, indices = x.sort()`` or ``x.topk(2).indices`` work as on any named tuple."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__ = [
    "cummax", "cummin", "kthvalue", "max", "median", "min", "mode", "nanmedian", "sort", "topk",
]  # fmt: skip


def _structseq(name: str, fields: tuple[str, ...]) -> type:
    """A named tuple class called ``name`` whose repr puts one field per line, as PyTorch's."""
    base = namedtuple(name, fields)

    def __repr__(self: Any) -> str:
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"minigenesis.return_types.{name}(\n{body})"

    namespace = {"__slots__": (), "__repr__": __repr__, "__module__": __name__}
    return type(name, (base,), {**namespace, "__qualname__": name})


_VALUES_INDICES = ("values", "indices")
cummax = _structseq("cummax", _VALUES_INDICES)
cummin = _structseq("cummin", _VALUES_INDICES)
kthvalue = _structseq("kthvalue", _VALUES_INDICES)
max = _structseq("max", _VALUES_INDICES)  # noqa: A001  (PyTorch's names)
median = _structseq("median", _VALUES_INDICES)
min = _structseq("min", _VALUES_INDICES)  # noqa: A001
mode = _structseq("mode", _VALUES_INDICES)
nanmedian = _structseq("nanmedian", _VALUES_INDICES)
sort = _structseq("sort", _VALUES_INDICES)
topk = _structseq("topk", _VALUES_INDICES)
