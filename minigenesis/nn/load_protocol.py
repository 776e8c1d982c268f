"""PyTorch's per-module load protocol: ``Module._load_from_state_dict`` and the tree walk that
calls it, used by ``load_state_dict`` when a layer in the tree writes its own
``_load_from_state_dict`` (e.g. to rename the keys of an older checkpoint, reading
``local_metadata.get("version")``, before calling ``super()._load_from_state_dict``).

The walk is PyTorch's ``load`` recursion:

.. code-block:: text

    load(module, local_state_dict, prefix):
        module._load_from_state_dict(local_state_dict, prefix, metadata[prefix[:-1]], True,
                                     missing_keys, unexpected_keys, error_msgs)
        for each child: load(child, {k: v under prefix + name + "."}, prefix + name + ".")

so a parent's renames reach its children, and every module appends to the same three lists.
The default ``_load_from_state_dict`` (what ``super()`` reaches) runs the module's load
pre-hooks, then checks its own parameters and persistent buffers at ``prefix + name``. Unlike
PyTorch it does not copy at once: inside ``load_state_dict`` the checked values wait until the
whole tree is walked, and nothing waits is copied if any module reported an error, so the
default part of a load stays all-or-nothing (what an override copies itself is its own affair).
"""

from __future__ import annotations

from collections import OrderedDict
from contextvars import ContextVar
from typing import Any

from .state_dict_hooks import (
    _EXTRA_STATE,
    _assign,
    _checked_value,
    _copy,
    _finish,
    _hooks,
    _own_tensors,
    _walk,
    _writes,
)


class _Pending:
    """What the default ``_load_from_state_dict`` checked during one ``load_state_dict``."""

    def __init__(self) -> None:
        self.pairs: list = []  # (key, target tensor, value)
        self.extras: list = []  # (module, state) for set_extra_state


_PENDING: ContextVar[_Pending | None] = ContextVar("minigenesis_load_pending", default=None)


def default_load_from_state_dict(
    module: Any,
    state_dict: Any,
    prefix: str,
    local_metadata: dict,
    strict: bool,
    missing_keys: list,
    unexpected_keys: list,
    error_msgs: list,
) -> None:
    """PyTorch's ``Module._load_from_state_dict``: this module's own state from ``prefix + name``
    keys. Appends a missing key when ``strict``, an error for a non-tensor or a shape mismatch,
    and (when ``strict``) an unexpected key for any key under ``prefix`` that names neither a
    child nor an own tensor."""
    for hook in _hooks(module, "_load_state_dict_pre_hooks"):
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    version = local_metadata.get("version")
    older = getattr(module, "_state_added_in_version_2", ()) if (version or 1) < 2 else ()
    pending = _PENDING.get()
    local = dict(_own_tensors(module, prefix))  # this module's own tensors, by their keys
    for key, target in local.items():
        if key not in state_dict:
            if strict and key[len(prefix) :] not in older:  # BatchNorm before version 2: no
                missing_keys.append(key)  # counter saved
            continue
        value = _checked_value(key, target, state_dict[key], error_msgs)
        if value is None:
            continue
        if pending is None and local_metadata.get("assign_to_params_buffers", False):
            _assign([(prefix, module)], [(key, target, value)])  # called on its own: now
        elif pending is None:  # called on its own: copy now, as PyTorch
            _copy([(key, target, value)])
        else:
            pending.pairs.append((key, target, value))
    extra_key = prefix + _EXTRA_STATE
    if _writes(module, "set_extra_state"):
        if extra_key in state_dict:
            if pending is None:
                module.set_extra_state(state_dict[extra_key])
            else:
                pending.extras.append((module, state_dict[extra_key]))
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                first = key[len(prefix) :].split(".", 1)[0]
                if first not in module._modules and prefix + first not in local:
                    unexpected_keys.append(key)


def load_with_overrides(root: Any, state_dict: Any, strict: bool, assign: bool):
    """``load_state_dict`` through PyTorch's protocol (see the module docstring)."""
    missing: list[str] = []
    unexpected: list[str] = []
    errors: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    work = OrderedDict(state_dict)  # overrides may change it; the caller's dict stays as it is
    if metadata is not None:
        work._metadata = metadata  # type: ignore[attr-defined]

    def load(module: Any, local: Any, prefix: str) -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = True
        module._load_from_state_dict(
            local, prefix, local_metadata, True, missing, unexpected, errors
        )
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                sub = {k: v for k, v in local.items() if k.startswith(child_prefix)}
                load(child, sub, child_prefix)

    pending = _Pending()
    token = _PENDING.set(pending)
    try:
        load(root, work, "")
    finally:
        _PENDING.reset(token)
    tree = list(_walk(root, ""))
    return _finish(root, tree, pending.pairs, pending.extras, strict, assign, missing, unexpected,
                   errors)  # fmt: skip
