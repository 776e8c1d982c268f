"""``map_location``: where the tensors of a loaded checkpoint land.

Every tensor is stored on the host together with the device it was saved from ("cpu", "cuda:0").
On load, ``map_location`` chooses where it goes, as in PyTorch:

- ``None``: back where it was saved (an error that suggests ``map_location="cpu"`` when a tensor
  saved on a GPU meets a machine without one);
- ``"cpu"``, ``"cuda"``, ``"cuda:1"`` or an ``mg.device``: every tensor goes there
  (``"meta"``: shapes and dtypes only, to build a model's structure without its values);
- a dict such as ``{"cuda:0": "cpu"}``: saved location -> target (others go back where they were);
- a callable ``fn(tensor, location)``: it receives the tensor (on the CPU) and the saved location
  string and returns the tensor to use, or None for the default.

A tensor is moved *in place* (its array is replaced), so a Parameter stays a Parameter and keeps
its requires_grad; a callable's result only supplies the data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._tensor import Tensor
from ..backend import device, module_for
from .device_storage import DeviceStorages
from .pickling import _place

Placer = Callable[[Tensor, str], Tensor]


def _canonical(spec: Any) -> str:
    """'cpu', 'meta' or 'cuda:N' ("cuda" means cuda:0), so dict keys match saved locations."""
    d = device(spec)
    return d.type if d.type in ("cpu", "meta") else f"cuda:{d.index or 0}"


def make_placer(map_location: Any, name: str, storages: DeviceStorages | None = None) -> Placer:
    """Turn a ``map_location`` argument into ``place(tensor, saved_location) -> tensor``.

    Bad arguments fail here, before the file is read. With ``storages`` (the load's device
    copies of its buffers), tensors that view one loaded buffer land on a GPU as views of one
    copy, as PyTorch moves a storage once; a callable's own results are used as they come.
    """

    def restore(t: Tensor, location: str) -> Tensor:
        return move(t, location, location)

    def move(t: Tensor, target: str, location: str) -> Tensor:
        try:
            return _place(t, target, storages)
        except RuntimeError as err:  # CUDA asked for but missing
            hint = "" if map_location is not None else "; pass map_location='cpu' to use the CPU"
            raise RuntimeError(
                f"{name}: cannot put a tensor saved on {location} onto {target}: {err}{hint}"
            ) from None

    if map_location is None:
        return restore
    if isinstance(map_location, (str, device)):
        target = _canonical(map_location)
        module_for(device(target))  # fail now, with the backend's message, if CUDA is missing
        return lambda t, location: move(t, target, location)
    if isinstance(map_location, dict):
        table = {_canonical(k): _canonical(v) for k, v in map_location.items()}

        def by_table(t: Tensor, location: str) -> Tensor:
            return move(t, table.get(_canonical(location), location), location)

        return by_table
    if callable(map_location):

        def by_callable(t: Tensor, location: str) -> Tensor:
            out = map_location(t, location)
            if out is None:
                return restore(t, location)
            if not isinstance(out, Tensor):
                raise TypeError(
                    f"map_location callable must return a Tensor or None, got {type(out).__name__}"
                )
            if out is not t:
                t._data = out._data  # keep t's class (Parameter) and requires_grad; no graph
            return t

        return by_callable
    raise TypeError(
        "map_location must be None, a device string like 'cpu' or 'cuda:0', an mg.device, a dict "
        f"{{saved_location: target}} or a callable(tensor, location); got {map_location!r}"
    )
