"""Gradient checkpointing: trade compute for memory by recomputing activations in backward.

Normally every op keeps what its backward needs (a Linear keeps its input, a Tanh its output), so
the memory of a forward pass grows with depth. ``checkpoint(f, x)`` runs ``f`` under ``no_grad``,
keeping only ``x``; when backward reaches it, ``f(x)`` is run again with recording on and
backpropagated on the spot. Cut a deep network into k segments and only the k segment inputs (plus
one segment's activations during its backward) are alive at once: the price is one extra forward.

Two details make the recomputation *the same* computation:

- randomness: the generator state is saved before the forward and restored for the recompute
  (``preserve_rng_state=True``), so Dropout draws the same mask twice;
- autocast: the recompute runs under the autocast setting the forward saw.

How gradients get out. Inside the recompute the segment's inputs are detached leaves; their
gradients are read back and returned to the outer graph. Parameters used inside ``f`` are reached
by the inner backward and accumulate into their ``.grad`` right there ("reentrant" checkpointing,
as PyTorch's ``use_reentrant=True``): each weight gradient is added in as soon as it exists, so no
segment's worth of gradients piles up. As in PyTorch, this means ``mg.autograd.grad`` cannot
return the gradient of a parameter used inside a checkpoint (use ``.backward()``); gradients of
the checkpoint's tensor inputs work with both.

One extension over PyTorch: a data batch needs no gradient, so ``checkpoint(run_layers, x,
layers)`` (seed 004) would record nothing and the parameters would get no gradient. Parameters of
Modules passed as arguments, or of ``f`` itself (a Module, or a method of one), are therefore
also given to the checkpoint node as inputs: the node is recorded whenever they require grad.
Its backward returns None for them (their gradients were accumulated by the inner backward).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .. import random as _random
from ..autograd.engine import run_backward
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, state
from ..backend import cupy_module
from ..tensor import Tensor

_MISSING = object()


# ---------------------------------------------------------------------------------------------
# Saving and restoring the random generators
# ---------------------------------------------------------------------------------------------
def _cuda_state_array(gen: Any) -> Any:
    """The device array holding a CuPy generator's cuRAND states (``bit_generator._state``).

    CuPy's generators cannot be pickled or deep-copied (they hold a lock), but their whole state
    is this one array, updated in place by the sampling kernels: copying it out and back is an
    exact save and restore."""
    bit_gen = getattr(gen, "bit_generator", None) or getattr(gen, "_bit_generator", None)
    return getattr(bit_gen, "_state", None)


def _save_cuda_generators() -> dict | None:
    """{device: (generator, copy of its state)} for each CUDA generator created so far, or None
    (with a warning) if this CuPy's generators do not expose their state."""
    saved = {}
    for dev, gen in _random._cuda_generators.items():
        arr = _cuda_state_array(gen)
        if arr is None:
            warnings.warn(
                "checkpoint: cannot save this CuPy version's random state; dropout on the GPU "
                "will not replay identically in the recomputation",
                stacklevel=4,
            )
            return None
        with cupy_module().cuda.Device(dev):  # keep the copy on the generator's own GPU
            saved[dev] = (gen, arr.copy())
    return saved


def _get_rng() -> tuple:
    """The CPU generator's state, and the CUDA generators' states."""
    return _random.get_rng_state(), _save_cuda_generators()


def _set_rng(saved: tuple) -> None:
    cpu, cuda = saved
    _random.set_rng_state(cpu)
    if cuda is None:
        return
    # A device whose generator did not exist yet when the state was saved gets a fresh one on
    # first use, seeded as before: the same numbers again.
    _random._cuda_generators.clear()
    for dev, (gen, arr) in cuda.items():
        with cupy_module().cuda.Device(dev):
            _cuda_state_array(gen)[...] = arr
        _random._cuda_generators[dev] = gen


# ---------------------------------------------------------------------------------------------
# The autograd node
# ---------------------------------------------------------------------------------------------
class CheckpointFunction(Function):
    """forward: ``run_function(*args)`` without recording. backward: recompute with recording,
    backpropagate through the recomputed graph, hand back the gradients of the inputs."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, n_args, *inputs):
        args, params = inputs[:n_args], inputs[n_args:]
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.n_args = n_args
        ctx.n_params = len(params)
        ctx.rng = _get_rng() if preserve_rng_state else None
        ctx.autocast = state.autocast_dtype, state.autocast_hook
        # Tensors are kept (saved, so an in-place change before backward is detected);
        # everything else (Modules, numbers, None) is held as it is.
        ctx.tensor_slots = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_slots])
        outputs = run_function(*args)
        if isinstance(outputs, Tensor):
            return outputs.detach()
        if isinstance(outputs, tuple) and all(isinstance(o, Tensor) for o in outputs):
            return tuple(o.detach() for o in outputs)
        raise TypeError(
            f"checkpoint: the function must return a Tensor or a tuple of Tensors, got "
            f"{type(outputs).__name__}"
        )

    @staticmethod
    def backward(ctx, *grad_outputs):
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
        # Recompute under the RNG and autocast state the forward saw; restore ours afterwards.
        current_rng = _get_rng() if ctx.preserve_rng_state else None
        own = state.__dict__
        current_ac = own.get("autocast_dtype", _MISSING), own.get("autocast_hook", _MISSING)
        try:
            if ctx.rng is not None:
                _set_rng(ctx.rng)
            state.autocast_dtype, state.autocast_hook = ctx.autocast
            with enable_grad():
                outputs = ctx.run_function(*args)
        finally:
            _set_autocast(current_ac)
            if current_rng is not None:
                _set_rng(current_rng)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)

        roots, seeds = [], []
        for out, g in zip(outputs, grad_outputs):
            if isinstance(out, Tensor) and out.requires_grad and g is not None:
                roots.append(_graph_handle(out))
                seeds.append(g)
        outputs = out = None  # the handles keep the graph, not the output arrays (freed sooner)

        # Parameters accumulate into .grad here (reentrant); inputs keep their gradients on the
        # detached leaves, which are handed back to the outer graph below.
        if roots:
            run_backward(roots, seeds, False, False)

        input_grads = [None] * ctx.n_args
        for slot, d in zip(ctx.tensor_slots, detached):
            input_grads[slot] = d.grad
        return (None, None, None, *input_grads, *([None] * ctx.n_params))


def _graph_handle(out: Tensor) -> Tensor:
    """A stand-in for ``out`` as a root of backward: the same graph position (grad_fn and output
    number), without holding ``out``'s array. The array then lives only as long as the graph node
    that saved it needs it, instead of through the whole inner backward."""
    if out.grad_fn is None:
        return out  # a leaf (the function returned an input): nothing to free
    handle = Tensor._make(None, True)
    handle.grad_fn, handle._output_nr = out.grad_fn, out._output_nr
    return handle


def _set_autocast(saved: tuple) -> None:
    """Put back this thread's own autocast fields; absent ones fall back to the process-wide
    (class-level) setting, as ``mg.enable_autocast`` expects."""
    for name, value in zip(("autocast_dtype", "autocast_hook"), saved):
        if value is _MISSING:
            state.__dict__.pop(name, None)
        else:
            setattr(state, name, value)


def _module_params(objs: Sequence[Any]) -> list:
    """Parameters (requiring grad) of the Modules among ``objs``, each once."""
    from ..nn.module import Module

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


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args)``, without keeping its intermediate activations for backward: they are
    recomputed when backward reaches this point. Returns what ``function`` returns (a Tensor or a
    tuple of Tensors). Non-tensor arguments (Modules, numbers) are passed through.

    ``use_reentrant`` is accepted for PyTorch compatibility; the behaviour is described in the
    module docstring (it matches the reentrant variant, and also handles data inputs that need no
    gradient when the parameters come in as Module arguments).
    """
    if kwargs:
        raise ValueError(f"checkpoint: unexpected keyword arguments {sorted(kwargs)}")
    if not state.grad_enabled:
        return function(*args)  # nothing will be backpropagated: no reason to checkpoint
    tensor_args = [a for a in args if isinstance(a, Tensor)]
    params = _module_params([function, *args])
    if not any(t.requires_grad for t in tensor_args) and not params:
        warnings.warn(
            "checkpoint: none of the inputs requires grad, and no Module was passed in: the "
            "gradients of parameters used inside the function will be None. Pass the Module "
            "as an argument, or make an input require grad.",
            stacklevel=2,
        )
    return CheckpointFunction.apply(function, bool(preserve_rng_state), len(args), *args, *params)


# A Python function cannot be a module, but mg.utils.checkpoint must be the function (seed 004
# calls it). These attributes let PyTorch's spelling mg.utils.checkpoint.checkpoint(...) work too.
checkpoint.checkpoint = checkpoint  # type: ignore[attr-defined]


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Tensor,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
) -> Tensor:
    """Run ``functions`` (a Sequential or a list of modules/callables) in ``segments`` pieces,
    checkpointing every piece but the last (whose activations backward needs first anyway)."""
    from ..nn.containers import Sequential

    funcs = list(functions) if isinstance(functions, (Sequential, list, tuple)) else None
    if funcs is None:
        funcs = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not funcs:
        raise ValueError("checkpoint_sequential: no functions given")
    if not 1 <= segments <= len(funcs):
        raise ValueError(
            f"checkpoint_sequential: segments must be between 1 and {len(funcs)}, got {segments}"
        )
    size = len(funcs) // segments
    x = input
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        x = checkpoint(
            _run_segment, x, *funcs[start : end + 1], preserve_rng_state=preserve_rng_state
        )
    return _run_segment(x, *funcs[end + 1 :])


def _run_segment(x: Any, *funcs: Callable) -> Any:
    for f in funcs:
        x = f(x)
    return x


checkpoint.checkpoint_sequential = checkpoint_sequential  # type: ignore[attr-defined]
