"""Reentrant gradient checkpointing (``checkpoint(..., use_reentrant=True)``): one graph node for
the whole checkpointed call, whose backward runs a second, inner backward.

Forward runs ``f(*args)`` under ``no_grad`` and records a single node, keeping only ``args``. When
the outer backward reaches that node, ``f`` is run again with recording on, on detached copies of
the inputs, and the engine is called *again* (hence "reentrant") on the recomputed graph; the
gradients that reach the detached inputs are handed back to the outer graph.

Parameters used inside ``f`` are reached by the inner backward and accumulate into their ``.grad``
right there, whatever the outer backward asked for. So, as PyTorch's, the node refuses to run in
a backward given ``inputs`` (``mg.autograd.grad``, ``.backward(inputs=...)``), which must leave
every other ``.grad`` alone: it raises PyTorch's RuntimeError (use ``.backward()``, or the default
non-reentrant variant in ``checkpoint.py``).

One extension over PyTorch: a data batch needs no gradient, so ``checkpoint(run_layers, x,
layers, use_reentrant=True)`` would record nothing and the parameters would get no
gradient. Parameters of Modules passed as arguments, or of ``f`` itself (a Module, or a method of
one), are therefore also given to the node as inputs: it is recorded whenever they require grad.
Its backward returns None for them (their gradients were accumulated by the inner backward).

Its cost over the non-reentrant variant: the gradient arriving at the node stays alive through
the whole inner backward (the outer engine holds it), one activation more at the peak.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .._tensor import Tensor
from ..autograd.engine import run_backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, state
from ..nn.module import Module
from . import _replay


class CheckpointFunction(Function):
    """forward: ``run_function(*args)`` without recording. backward: recompute with recording,
    backpropagate through the recomputed graph, hand back the gradients of the inputs."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, n_args, *inputs):
        args, params = inputs[:n_args], inputs[n_args:]
        ctx.run_function = run_function
        ctx.n_args = n_args
        ctx.n_params = len(params)
        ctx.replay = _replay.capture(preserve_rng_state)
        # Tensors are kept (saved, so an in-place change before backward is detected);
        # everything else (Modules, numbers, None) is held as it is.
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_slots])
        outputs = run_function(*args)
        if isinstance(outputs, Tensor):
            return outputs.detach()
        if isinstance(outputs, tuple) and any(isinstance(o, Tensor) for o in outputs):
            # As in PyTorch, the other items of the tuple (numbers, None, lists) pass through
            # as they are, without gradient: only the Tensors are this node's outputs
            # (checkpoint_reentrant puts the items back in their places).
            ctx.out_slots = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
            return tuple(outputs[i].detach() for i in ctx.out_slots)
        raise TypeError(
            f"checkpoint: the function must return a Tensor or a tuple holding a Tensor, got "
            f"{type(outputs).__name__}"
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or "
                "passing an `inputs` parameter to .backward(). To resolve this error, you can "
                "either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument."
            )
        if state.grad_enabled:
            raise RuntimeError(
                "checkpoint does not support create_graph=True (double backward) in this engine"
            )
        saved = ctx.saved_tensors
        args = list(ctx.others)
        detached = []
        for slot, t in zip(ctx.tensor_slots, saved):
            d = Tensor._make(t._data, t.requires_grad)
            args[slot] = d
            detached.append(d)
        with _replay.replaying(ctx.replay), enable_grad():
            outputs = ctx.run_function(*args)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        else:  # the Tensors among the items, in the order forward returned them
            outputs = tuple(outputs[i] for i in ctx.out_slots)

        roots, seeds = [], []
        for out, g in zip(outputs, grad_outputs):
            if isinstance(out, Tensor) and out.requires_grad and g is not None:
                roots.append(_graph_handle(out))
                seeds.append(g)
        outputs = out = None  # the handles keep the graph, not the output arrays (freed sooner)

        # Parameters accumulate into .grad here; inputs keep their gradients on the detached
        # leaves, which are handed back to the outer graph below.
        if roots:
            run_backward(roots, seeds, False, False)

        input_grads = [None] * ctx.n_args
        for slot, d in zip(ctx.tensor_slots, detached):
            input_grads[slot] = d.grad
        return (None, None, None, *input_grads, *([None] * ctx.n_params))


def _is_checkpoint_valid() -> bool:
    """PyTorch's ``torch.autograd._is_checkpoint_valid``: False while the running backward was
    given ``inputs`` (it captures their gradients; ``state.backward`` is that pass)."""
    return state.backward is None or not state.backward.capture


def _graph_handle(out: Tensor) -> Tensor:
    """A stand-in for ``out`` as a root of backward: the same graph position (grad_fn and output
    number), without holding ``out``'s array. The array then lives only as long as the graph node
    that saved it needs it, instead of through the whole inner backward."""
    if out.grad_fn is None:
        return out  # a leaf (the function returned an input): nothing to free
    handle = Tensor._make(None, True)
    handle.grad_fn, handle._output_nr = out.grad_fn, out._output_nr
    return handle


def _module_params(objs: Sequence[Any]) -> list:
    """Parameters (requiring grad) of the Modules among ``objs``, each once."""
    seen, out = set(), []
    for obj in objs:
        if obj is not None and not isinstance(obj, Module):
            obj = getattr(obj, "__self__", None)  # a bound method of a Module
        if isinstance(obj, Module):
            for p in obj.parameters():
                if p.requires_grad and id(p) not in seen:
                    seen.add(id(p))
                    out.append(p)
    return out


def checkpoint_reentrant(function: Callable, args: tuple, preserve_rng_state: bool) -> Any:
    """``checkpoint(function, *args, use_reentrant=True)`` (grad mode is on)."""
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    params = _module_params([function, *args])
    if not any(t.requires_grad for t in tensor_args) and not params:
        warnings.warn(
            "checkpoint: none of the inputs requires grad, and no Module was passed in: the "
            "gradients of parameters used inside the function will be None. Pass the Module "
            "as an argument, make an input require grad, or use use_reentrant=False.",
            stacklevel=3,
        )
    template: list = []  # the function's tuple output, when it has non-Tensor items

    def run(*call_args: Any) -> Any:
        outputs = function(*call_args)
        if isinstance(outputs, tuple) and not template:
            template.append(outputs)
        return outputs

    result = CheckpointFunction.apply(run, bool(preserve_rng_state), len(args), *args, *params)
    if not template:
        return result
    outputs = template[0]
    tensors = iter(result if isinstance(result, tuple) else (result,))
    return tuple(next(tensors) if isinstance(o, Tensor) else o for o in outputs)
