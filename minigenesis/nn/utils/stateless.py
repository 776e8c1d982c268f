"""Running a module with other tensors in place of its parameters and buffers, then putting its
own back: ``nn.utils.stateless.functional_call`` (PyTorch's deprecated form) and the mechanism
``torch.func.functional_call`` runs on.

``functional_call(module, {"fc1.weight": w, ...}, args)`` is ``module(*args)`` computed with
``w`` wherever the module reads ``self.fc1.weight``. Nothing is copied: the tensor ``w`` itself
goes into ``module.fc1._parameters["weight"]`` for the duration of the call, so the output is a
function of ``w`` in the autograd graph and ``out.backward()`` fills ``w.grad`` (the module's own
parameters get no gradient from this call). The module's own tensors go back in a ``finally``,
so they are restored even when the forward raises.

Tied weights: when two names are the same tensor in the module (``b.weight = a.weight``),
``tie_weights=True`` gives a value passed for one name to all of them, as the tie means; two
different values for one tie are an error. ``strict=True`` asks for exactly the module's names
(parameters and buffers, tied names included). A name the module does not have becomes a plain
attribute for the call (PyTorch's ``allow_missing``)."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from ..._tensor import Tensor
from ..module import Module

__all__ = ["functional_call"]

_MISSING = object()  # the name was not on the module before the call


def _untie_named_tensors_map(module: Module, tensors: dict[str, Tensor]) -> dict[str, Tensor]:
    """A copy of ``tensors`` in which a value given for one name of a tied tensor is also given
    to every other name of it. Two different values (by identity) for one tie: ValueError."""
    names_of: dict[int, set[str]] = {}
    for named in (module.named_parameters, module.named_buffers):
        for name, t in named(remove_duplicate=False):
            names_of.setdefault(id(t), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    given = [name for name in tensors if name in tied]
    for name in given:
        values = {id(tensors[n]) for n in tied[name] if n in tensors}
        if len(values) > 1:
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(tied[name])}, "
                "which are tied. Consider using tie_weights=False"
            )
    untied = dict(tensors)
    for name in given:
        for other in tied[name]:
            untied[other] = tensors[name]
    return untied


def _owner(module: Module, path: str) -> tuple[Module, str]:
    """The submodule holding ``path``'s last name: "fc1.weight" -> (module.fc1, "weight")."""
    prefix, _, name = path.rpartition(".")
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    owner = module
    for part in prefix.split(".") if prefix else []:
        try:
            child = getattr(owner, part)
        except AttributeError as err:
            raise AttributeError(f"{type(owner).__name__} has no attribute `{part}`") from err
        if not isinstance(child, Module):
            raise TypeError(f"submodule `{prefix}`: {child} is not an instance of torch.nn.Module")
        owner = child
    return owner, name


def _swap(module: Module, path: str, value: Any) -> Any:
    """Put ``value`` at ``path`` and return what was there (``_MISSING`` if nothing was; putting
    ``_MISSING`` removes the name). Parameters and buffers are swapped in their registries, so
    ``Module.__getattr__`` reads the new tensor; any other name is a plain attribute."""
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    owner, name = _owner(module, path)
    for registry in (owner._parameters, owner._buffers):
        if name in registry:
            old = registry[name]
            if value is _MISSING:
                del registry[name]
            else:
                registry[name] = value
            return old
    old = owner.__dict__.get(name, _MISSING)
    if old is _MISSING and isinstance(getattr(type(owner), name, None), property):
        # a parametrized tensor (parametrize.py): its value now. Setting a value runs the
        # parametrization's right_inverse into its original tensor; setting this one back
        # afterwards restores the original, as PyTorch's functional_call does.
        old = getattr(owner, name)
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{name}`: {old} is not an instance of torch.Tensor")
    if value is _MISSING:
        owner.__dict__.pop(name, None)
    else:
        object.__setattr__(owner, name, value)
    return old


@contextlib.contextmanager
def _reparametrize_module(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    tie_weights: bool = False,
    strict: bool = False,
) -> Iterator[None]:
    """Within the ``with`` block, ``module``'s tensors named in ``parameters_and_buffers`` are the
    given ones. Afterwards the module's own are back, and a tensor the forward assigned to one of
    the names (``self.count = self.count + 1`` on a buffer) is written into the caller's dict."""
    tensors = parameters_and_buffers
    if tie_weights:
        tensors = _untie_named_tensors_map(module, parameters_and_buffers)
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        errors = []
        if unexpected := sorted(set(tensors) - valid):
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing := sorted(valid - set(tensors)):
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + "\n\t".join(errors)
            )
    originals: dict[str, Any] = {}
    try:
        for path, value in tensors.items():
            originals[path] = _swap(module, path, value)
        yield
    finally:
        # Restore in reverse order, so a name swapped twice ends with its first original.
        final = {path: _swap(module, path, old) for path, old in reversed(originals.items())}
        for path in parameters_and_buffers:
            if path in final and final[path] is not _MISSING:
                parameters_and_buffers[path] = final[path]


def _functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the given parameters and buffers (no warning): what both
    public forms run. ``args`` that is not a tuple is the one positional argument."""
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` computed with ``parameters_and_buffers`` (one dict, dotted
    names) in place of the module's tensors. Deprecated in PyTorch 2.0 in favour of
    ``torch.func.functional_call`` (which also takes a tuple of dicts); warns as PyTorch does."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 "
        "and will be removed in a future version of PyTorch. "
        "Please use `torch.func.functional_call` instead which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
