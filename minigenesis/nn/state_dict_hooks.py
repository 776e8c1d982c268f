"""Module.state_dict and load_state_dict, with PyTorch's hooks and extra state.

``state_dict`` walks the tree of modules; at each module, with its ``prefix`` ("0.", "encoder."):

.. code-block:: text

    pre-hooks   hook(module, prefix, keep_vars)                  register_state_dict_pre_hook
    own state   parameters, persistent buffers, and prefix + "_extra_state" = get_extra_state()
                when the module's class writes get_extra_state
    children    the same, one level down
    post-hooks  hook(module, state_dict, prefix, local_metadata) register_state_dict_post_hook
                (must return None; the legacy _register_state_dict_hook may return a new dict)

``load_state_dict`` gives each module's load pre-hooks, before anything is checked,
``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
error_msgs)`` (a child sees the keys under its prefix; what it changes there is what loads), then
copies the tensors in, calls ``set_extra_state`` where the class writes it, and calls each
module's post-hooks ``hook(module, incompatible_keys)`` (children first), which may change the
missing and unexpected keys in place before ``strict`` judges them. When a layer in the tree
writes its own ``_load_from_state_dict``, PyTorch's per-module walk runs instead (load_protocol).
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, NamedTuple

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..backend import to_device
from ..hook_handle import add_hook
from .parameter import Parameter

_EXTRA_STATE = "_extra_state"


class _IncompatibleKeys(NamedTuple):
    """What ``load_state_dict(strict=False)`` could not match (PyTorch's class name)."""

    missing_keys: list
    unexpected_keys: list

    def __repr__(self) -> str:
        """As PyTorch prints the result of ``load_state_dict``."""
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys  # the public name used in this package


def _handle(module: Any, registry: str, hook: Callable) -> Any:
    hooks = module.__dict__.get(registry)
    if hooks is None:
        hooks = OrderedDict()
        object.__setattr__(module, registry, hooks)
    return add_hook(hooks, hook)


def _hooks(module: Any, registry: str) -> list:
    return list(module.__dict__.get(registry, {}).values())


def _writes(module: Any, name: str) -> bool:
    """Whether the module's class writes its own ``get_extra_state``/``set_extra_state``."""
    return getattr(type(module), name) is not getattr(StateDictMixin, name)


def _overrides_load(module: Any) -> bool:
    """Whether the module's class writes its own ``_load_from_state_dict``."""
    return type(module)._load_from_state_dict is not StateDictMixin._load_from_state_dict


class _WithModule:
    """A load pre-hook registered with its module: called with the module first."""

    def __init__(self, hook: Callable, module: Any) -> None:
        self.hook, self.module = hook, module

    def __call__(self, *args: Any) -> Any:
        return self.hook(self.module, *args)


class StateDictMixin:
    """Module's state_dict, load_state_dict, their hooks and extra state (see the docstring)."""

    _version: int = 1  # a layer whose saved state changed shape counts up (BatchNorm: 2)

    # ------------------------------------------------------------------ registering hooks
    def register_state_dict_pre_hook(self, hook: Callable) -> Any:
        """``hook(module, prefix, keep_vars)`` before this module's state is saved."""
        return _handle(self, "_state_dict_pre_hooks", hook)

    def register_state_dict_post_hook(self, hook: Callable) -> Any:
        """``hook(module, state_dict, prefix, local_metadata)`` after this module and its children
        are saved; it may change the dict in place and must return None."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return _handle(self, "_state_dict_hooks", hook)

    def _register_state_dict_hook(self, hook: Callable) -> Any:
        """The legacy post-hook: a dict it returns replaces the state_dict (of the root module)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        return _handle(self, "_state_dict_hooks", hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> Any:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module's state is loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False):
        """The legacy form: ``hook(state_dict, prefix, ...)``, the module only if asked for."""
        return _handle(
            self, "_load_state_dict_pre_hooks", _WithModule(hook, self) if with_module else hook
        )

    def register_load_state_dict_post_hook(self, hook: Callable) -> Any:
        """``hook(module, incompatible_keys)`` after loading; it may change the missing and
        unexpected keys in place (strict judges what is left) and must return None."""
        return _handle(self, "_load_state_dict_post_hooks", hook)

    # ------------------------------------------------------------------ extra state
    def get_extra_state(self) -> Any:
        """Write this in a layer to save more than its tensors: whatever it returns is saved as
        ``<prefix>_extra_state`` (picklable, ideally tensors and plain containers)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called: a "
            "layer that saves extra state writes get_extra_state itself"
        )

    def set_extra_state(self, state: Any) -> None:
        """Write this with get_extra_state: it receives what get_extra_state returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called: a "
            "layer that loads extra state writes set_extra_state itself"
        )

    # ------------------------------------------------------------------ saving
    def state_dict(
        self, *args: Any, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> Any:
        """name -> tensor for every parameter and persistent buffer (``"0.weight"``), in
        registration order, and each layer's extra state; hooks as in the module docstring.
        The tensors share memory with the model (detached unless ``keep_vars``)."""
        if args:  # the positional form PyTorch deprecates (destination, prefix, keep_vars)
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead.",
                FutureWarning,
                stacklevel=2,
            )
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
        if destination is None:
            destination = OrderedDict()
            # each module's version, by prefix, as PyTorch records it (loading reads it: e.g.
            # BatchNorm before version 2 had no num_batches_tracked, spectral_norm's format)
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in _hooks(self, "_state_dict_pre_hooks"):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():  # type: ignore[attr-defined]
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".",
                                 keep_vars=keep_vars)  # fmt: skip
        for hook in _hooks(self, "_state_dict_hooks"):
            result = hook(self, destination, prefix, local_metadata)
            if getattr(hook, "_from_public_api", False):
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                destination = result
        return destination

    def _save_to_state_dict(self, destination: Any, prefix: str, keep_vars: bool) -> None:
        """This module's own entries (not its children's)."""
        for key, t in _own_tensors(self, prefix):
            destination[key] = t if keep_vars else t.detach()
        if _writes(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    # ------------------------------------------------------------------ loading
    def load_state_dict(
        self, state_dict: Any, strict: bool = True, assign: bool = False
    ) -> IncompatibleKeys:
        """Copy values from ``state_dict`` INTO the existing parameters and buffers (cast to their
        dtype and moved to their device), so an optimizer holding them keeps working.

        A wrong type or shape is an error before anything is copied; with ``strict=True`` (the
        default) so are missing and unexpected keys (judged after the load post-hooks, if any).
        All problems are reported together in one RuntimeError.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict expects a dict, got {type(state_dict).__name__}")
        tree = list(_walk(self, ""))
        if any(_overrides_load(m) for _, m in tree):  # a layer loads its own way: PyTorch's walk
            from .load_protocol import load_with_overrides  # it imports this module

            return load_with_overrides(self, state_dict, strict, assign)
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        if any(m.__dict__.get("_load_state_dict_pre_hooks") for _, m in tree):
            state_dict = _run_load_pre_hooks(tree, state_dict, missing, unexpected, errors)
        own = {k: t for prefix, m in tree for k, t in _own_tensors(m, prefix)}
        extras = {prefix + _EXTRA_STATE: m for prefix, m in tree if _writes(m, "set_extra_state")}
        expected = [*own, *extras]
        missing += [
            k for k in expected if k not in state_dict and not _older_state(self, k, state_dict)
        ]
        unexpected += [k for k in state_dict if k not in own and k not in extras]
        pairs = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = _checked_value(key, target, state_dict[key], errors, assign)
            if value is not None:
                pairs.append((key, target, value))
        extra_values = [(m, state_dict[k]) for k, m in extras.items() if k in state_dict]
        return _finish(self, tree, pairs, extra_values, strict, assign, missing, unexpected, errors)

    def _load_from_state_dict(
        self,
        state_dict: Any,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """PyTorch's per-module load step, what a layer's override reaches with ``super()``:
        this module's own parameters, persistent buffers and extra state from ``prefix + name``
        keys, appending to the three lists (see load_protocol)."""
        from .load_protocol import default_load_from_state_dict  # it imports this module

        default_load_from_state_dict(
            self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
            error_msgs,
        )  # fmt: skip


def _finish(root, tree, pairs, extra_values, strict, assign, missing, unexpected, errors):
    """After everything is checked: raise before copying if anything is wrong, else copy (or
    assign), set extra state, run the load post-hooks (children first) and judge ``strict``."""
    post_hooks = [
        (m, h) for _, m in reversed(tree) for h in _hooks(m, "_load_state_dict_post_hooks")
    ]
    if errors or (strict and not post_hooks and (missing or unexpected)):
        _raise(root, errors, strict, missing, unexpected)  # nothing copied yet
    if assign:
        _assign(tree, pairs)
    else:
        _copy(pairs)
    for module, state in extra_values:
        module.set_extra_state(state)
    keys = IncompatibleKeys(missing, unexpected)
    for module, hook in post_hooks:
        if hook(module, keys) is not None:
            raise AssertionError(
                "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                "expected to return new values, if incompatible_keys need to be modified, it "
                "should be done inplace."
            )
    if strict and (missing or unexpected):
        _raise(root, [], strict, missing, unexpected)
    return keys


def _walk(module: Any, prefix: str):
    """(prefix, module) of the module and every descendant, parents first (PyTorch's order)."""
    yield prefix, module
    for name, child in module._modules.items():
        if child is not None:
            yield from _walk(child, prefix + name + ".")


def _checked_value(
    key: str, target: Tensor, value: Any, errors: list[str], assign: bool = False
) -> Any:
    """The checkpoint's ``value`` for ``target`` at ``key``, or None after noting in ``errors``
    why it cannot load (not a tensor; another shape; a meta value to copy into data). A
    1-element value for a 0-d target is its element: old checkpoints saved scalars as [x]."""
    if not isinstance(value, Tensor):  # a list, number or array: refused, as PyTorch
        errors.append(  # ("parameter" for buffers too: PyTorch's words)
            f'While copying the parameter named "{key}", expected Tensor or Tensor-like '
            f"object from checkpoint but received {type(value)}"
        )
        return None
    if target.ndim == 0 and value.ndim == 1:
        value = value[0]
    if tuple(value.shape) != tuple(target.shape):
        errors.append(
            f"size mismatch for {key}: copying a param with shape {value.shape!r} "
            f"from checkpoint, the shape in current model is {target.shape!r}."
        )
        return None
    if not assign and value.device.type == "meta" and target.device.type != "meta":
        errors.append(  # PyTorch's words: its copy_ raised inside the load
            f'While copying the parameter named "{key}", whose dimensions in the model are '
            f"{target.shape!r} and whose dimensions in the checkpoint are {value.shape!r}, an "
            "exception occurred : ('Cannot copy out of meta tensor; no data!',)."
        )
        return None
    return value


def _own_tensors(module: Any, prefix: str):
    for name, p in module._parameters.items():
        if p is not None:
            yield prefix + name, p
    for name, b in module._buffers.items():
        if b is not None and name not in module._non_persistent_buffers:
            yield prefix + name, b


def _run_load_pre_hooks(tree, state_dict, missing, unexpected, errors) -> OrderedDict:
    """A copy of ``state_dict`` after every module's load pre-hooks, parents first; a child's
    hooks get (and may change) the entries under its prefix only, as in PyTorch."""
    metadata = getattr(state_dict, "_metadata", None)
    work = OrderedDict(state_dict)
    for prefix, module in tree:
        hooks = _hooks(module, "_load_state_dict_pre_hooks")
        if not hooks:
            continue
        local = work if prefix == "" else {k: v for k, v in work.items() if k.startswith(prefix)}
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        for hook in hooks:
            hook(local, prefix, local_metadata, True, missing, unexpected, errors)
        if local is not work:  # what the child's hooks changed is what loads
            for k in [k for k in work if k.startswith(prefix)]:
                del work[k]
            work.update(local)
    if metadata is not None:
        work._metadata = metadata  # type: ignore[attr-defined]
    return work


def _copy(pairs: list) -> None:
    """The default load: each value copied INTO its parameter or buffer (cast, moved)."""
    with no_grad():
        for _, target, value in pairs:
            src = to_device(value._data, target.device)
            target._data[...] = src.astype(target._data.dtype, copy=False)
            target._bump_version()


def _assign(tree: list, pairs: list) -> None:
    """``assign=True``, as PyTorch: the state dict's tensors themselves (their memory, dtype
    and device) take the places of the module's. A parameter becomes a Parameter over the
    loaded tensor (keeping the old ``requires_grad``); a buffer becomes the loaded tensor. An
    optimizer built before the load still holds the old parameters."""
    owners = {prefix + name: m for prefix, m in tree for name in (*m._parameters, *m._buffers)}
    for key, target, value in pairs:
        module, name = owners[key], key.rsplit(".", 1)[-1]
        if name in module._parameters:
            if not isinstance(value, Parameter):
                value = Parameter(value.detach(), target.requires_grad)
            else:
                value.requires_grad_(target.requires_grad)
            module._parameters[name] = value
        else:
            module._buffers[name] = value


def _raise(module: Any, errors: list, strict: bool, missing: list, unexpected: list) -> None:
    head = []  # PyTorch's order and wording: missing keys, unexpected keys, then the rest
    if strict and missing:
        head.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". ")
    if strict and unexpected:
        keys = ", ".join(f'"{k}"' for k in unexpected)
        head.append(f"Unexpected key(s) in state_dict: {keys}. ")
    raise RuntimeError(
        f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
        + "\n\t".join(head + errors)
    )


def _older_state(root: Any, key: str, state_dict: Any) -> bool:
    """Whether a missing ``key`` names state its layer gained in a later version (BatchNorm's
    ``num_batches_tracked``, see ``_state_added_in_version_2``) and ``state_dict`` gives no
    version >= 2 for that layer in its ``_metadata``: PyTorch then loads it without the key."""
    prefix, _, name = key.rpartition(".")
    layer = root.get_submodule(prefix)
    if name not in getattr(layer, "_state_added_in_version_2", ()):
        return False
    version = getattr(state_dict, "_metadata", {}).get(prefix, {}).get("version")
    return version is None or version < 2
