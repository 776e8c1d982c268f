"""Running a module as a pure function of its parameters: ``functional_call`` and
``stack_module_state``, as ``torch.func`` has them.

``functional_call(module, {"fc1.weight": w, ...}, args)`` runs ``module(*args)`` with the named
parameters and buffers replaced by the given tensors for the duration of the call (then puts the
module's own back), so a transform such as ``grad`` can differentiate the output with respect to
tensors that are not the module's leaves. ``stack_module_state(models)`` stacks the same-named
parameters of several identically shaped modules along a new dim 0, the form ``vmap`` over an
ensemble takes."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._tensor import Tensor
from ..functions.joining import stack
from ..nn.module import Module


def _owner(module: Module, path: str) -> tuple[Module, str]:
    """The submodule holding ``path``'s last name ("fc1.weight" -> (module.fc1, "weight"))."""
    *parents, name = path.split(".")
    for part in parents:
        module = getattr(module, part)
    return module, name


def _tie(module: Module, tensors: Mapping[str, Tensor]) -> dict[str, Tensor]:
    """``tensors`` with each value also given to every other name of the same module tensor
    (tied weights, e.g. ``b.weight = a.weight``); two different values for one tie are an error."""
    names_of: dict[int, list[str]] = {}
    for named in (module.named_parameters, module.named_buffers):
        for name, t in named(remove_duplicate=False):
            names_of.setdefault(id(t), []).append(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    out = dict(tensors)
    for name, value in tensors.items():
        for other in tied.get(name, ()):
            if other in tensors and tensors[other] is not value:
                raise ValueError(
                    f"functional_call got multiple values for keys {sorted(tied[name])}, which "
                    "are tied. Consider using tie_weights=False"
                )
            out[other] = value
    return out


@contextlib.contextmanager
def _swapped(
    module: Module, tensors: Mapping[str, Tensor], strict: bool, tie_weights: bool
) -> Iterator[None]:
    """Named parameters and buffers of ``module`` replaced by the given tensors, then restored;
    other names become plain attributes for the call (unless ``strict``)."""
    known = dict(module.named_parameters(remove_duplicate=False))
    known.update(dict(module.named_buffers(remove_duplicate=False)))
    if tie_weights:
        tensors = _tie(module, tensors)
    unexpected = [k for k in tensors if k not in known]
    missing = [k for k in known if k not in tensors]
    if strict and (unexpected or missing):
        raise RuntimeError(
            f"Error(s) in reparametrizing for {type(module).__name__}: "
            f"Unexpected key(s): {unexpected}. Missing key(s): {missing}."
        )
    saved, added = [], []
    try:
        for path, value in tensors.items():
            owner, name = _owner(module, path)
            if path not in known:
                object.__setattr__(owner, name, value)
                added.append((owner, name))
                continue
            registry = owner._parameters if name in owner._parameters else owner._buffers
            saved.append((registry, name, registry[name]))
            registry[name] = value  # read back through Module.__getattr__'s registries
        yield
    finally:
        for registry, name, old in reversed(saved):
            registry[name] = old
        for owner, name in added:
            object.__delattr__(owner, name)


def functional_call(
    module: Module,
    parameter_and_buffer_dicts: Mapping[str, Tensor] | Sequence[Mapping[str, Tensor]],
    args: Any = None,
    kwargs: dict | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers taken from the dict(s) given
    (a tuple of dicts is merged; a key in two of them is an error). Names not given keep the
    module's own tensors (unless ``strict``)."""
    if isinstance(parameter_and_buffer_dicts, Mapping):
        tensors = dict(parameter_and_buffer_dicts)
    else:
        tensors = {}
        for d in parameter_and_buffer_dicts:
            if clash := set(tensors) & set(d):
                raise ValueError(f"functional_call: {sorted(clash)} appear in more than one dict")
            tensors.update(d)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, tensors, strict, tie_weights):
        return module(*args, **(kwargs or {}))


def stack_module_state(models: Sequence[Module]) -> tuple[dict, dict]:
    """(params, buffers): for each name, the models' tensors stacked along a new dim 0. The
    stacked parameters are new leaves that require grad (as in PyTorch: detached from the
    models); buffers are stacked as they are."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: expected at least one model, got 0")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: expected all models to be of the same class")
    names = [n for n, _ in models[0].named_parameters()]
    params = {n: stack([dict(m.named_parameters())[n] for m in models]).detach() for n in names}
    for n, p in params.items():
        p.requires_grad_(dict(models[0].named_parameters())[n].requires_grad)
    buffer_names = [n for n, _ in models[0].named_buffers()]
    buffers = {n: stack([dict(m.named_buffers())[n] for m in models]) for n in buffer_names}
    return params, buffers
