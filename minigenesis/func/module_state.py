"""Running a module as a pure function of its parameters: ``functional_call`` and
``stack_module_state``, as ``torch.func`` has them.

``functional_call(module, {"fc1.weight": w, ...}, args)`` runs ``module(*args)`` with the named
parameters and buffers replaced by the given tensors for the duration of the call (then puts the
module's own back; ``nn.utils.stateless`` does the swap, since it is about Modules), so a
transform such as ``grad`` can differentiate the output with respect to tensors that are not the
module's leaves. ``stack_module_state(models)`` stacks the same-named
parameters of several identically shaped modules along a new dim 0, the form ``vmap`` over an
ensemble takes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .._tensor import Tensor
from ..functions.joining import stack
from ..nn.module import Module
from ..nn.normalization import _BatchNorm
from ..nn.utils.stateless import _functional_call


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
    (a tuple or list of dicts is merged; a key in two of them is an error). Names not given keep
    the module's own tensors (unless ``strict``). The swap itself is ``nn.utils.stateless``'s:
    dotted names, tied weights, the module's own tensors restored even if the forward raises."""
    if isinstance(parameter_and_buffer_dicts, Mapping):
        # The caller's own dict, as in PyTorch: a buffer the forward reassigns is written back.
        tensors = parameter_and_buffer_dicts
        if not isinstance(tensors, dict):
            tensors = dict(tensors)
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, Mapping) for d in parameter_and_buffer_dicts):
            raise ValueError(
                "Expected all elements of parameter_and_buffer_dicts to be dictionaries"
            )
        counts = Counter(k for d in parameter_and_buffer_dicts for k in d)
        if repeated := [k for k, n in counts.items() if n > 1]:
            raise ValueError(
                f"{repeated} appeared in multiple dictionaries; "
                "behavior of functional call is ambiguous"
            )
        tensors = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
            f"but got {type(parameter_and_buffer_dicts)}"
        )
    return _functional_call(module, tensors, args, kwargs, tie_weights=tie_weights, strict=strict)


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


def replace_all_batch_norm_modules_(root: Module) -> Module:
    """In place: every BatchNorm in ``root`` that tracks running statistics stops tracking them
    (``running_mean``, ``running_var`` and ``num_batches_tracked`` become None), so it always
    normalises with the batch's own statistics, the form ``vmap`` over an ensemble or over
    per-sample gradients needs (no buffer written by every sample). Returns ``root``."""
    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
