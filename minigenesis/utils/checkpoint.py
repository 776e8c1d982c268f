"""Gradient checkpointing: trade compute for memory by recomputing activations in backward.

Normally every op keeps what its backward needs (a Linear keeps its input, a Tanh its output), so
the memory of a forward pass grows with depth. ``checkpoint(f, x)`` keeps only ``x``: the values
the ops inside ``f`` save are dropped as forward moves on, and rebuilt by running ``f(x)`` again
when backward first needs one of them. Cut a deep network into k segments and only the k segment
inputs (plus one segment's activations during its backward) are alive at once: the price is one
extra forward.

How (the default, ``use_reentrant=False``, as PyTorch recommends). Forward records the graph as
usual, but inside ``autograd.graph.saved_tensors_hooks``: every value an op saves for backward is
replaced by its number in the order of saving (``pack``), so the graph keeps small ints, not
arrays. When backward asks a node of the segment for its saved values (``unpack``), ``f`` is run
again on the same inputs, recording, under the same random and autocast state (``_replay.py``),
and the values *that* run saves are collected in the same order: value i of the rerun is value i
of the forward. Each is handed out once and forgotten, so the recomputed activations are freed as
backward moves through them. Backward itself is the ordinary one: parameters inside ``f`` get
their gradients like any others, ``mg.autograd.grad`` works, and a data batch that needs no
gradient is fine.

``use_reentrant=True`` is the older design (one node whose backward runs an inner backward):
see ``checkpoint_reentrant.py``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from .._compat import function_as_module
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, state
from ..autograd.graph import saved_tensors_hooks
from ..nn.containers import Sequential
from . import _replay
from .checkpoint_reentrant import checkpoint_reentrant


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved (PyTorch's name for it)."""


def noop_context_fn() -> tuple:
    """The default ``context_fn``: no context around the forward or the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


class _Recomputation:
    """One checkpointed call ``function(*args, **kwargs)``: what running it again needs, and the
    values the rerun saved, waiting for backward to take them.

    ``pack`` and ``unpack`` are the saved-tensor hooks; the graph's nodes hold ``unpack`` (so this
    object, and through it the inputs, live exactly as long as some node of the segment still has
    to run its backward)."""

    def __init__(
        self,
        function: Callable,
        args: tuple,
        kwargs: dict,
        preserve_rng: bool,
        recompute_context: Any = None,
    ):
        self.function, self.args, self.kwargs = function, args, kwargs
        self.recompute_context = recompute_context or contextlib.nullcontext()
        # The inputs' versions now: an in-place change before backward would make the rerun
        # compute something else, silently.
        self.versions = [(a, a._version) for a in args if isinstance(a, Tensor)]
        self.replay = _replay.capture(preserve_rng)
        self.metas: list[tuple] = []  # per saved value, in order: (shape, dtype)
        self.values: dict[int, Tensor] = {}  # filled by a rerun, emptied as backward takes them

    def pack(self, t: Tensor) -> int:
        self.metas.append((t.shape, t.dtype))
        return len(self.metas) - 1

    def unpack(self, i: int) -> Tensor:
        if i not in self.values:  # the first node of the segment in backward order (or, after
            self.rerun()  # backward(retain_graph=True), the first one of a second backward)
        return self.values.pop(i)

    def rerun(self) -> None:
        for t, version in self.versions:
            if t._version != version:
                raise RuntimeError(
                    f"checkpoint: an input of the checkpointed function (shape {tuple(t.shape)}) "
                    f"was modified by an in-place operation after the forward (its version is "
                    f"{t._version}, expected {version}), so it cannot be recomputed. Clone the "
                    f"tensor before changing it."
                )
        # The inputs as leaves of their own: the rerun's graph must not reach into the outer one.
        args = [Tensor._make(a._data, a.requires_grad) if isinstance(a, Tensor) else a
                for a in self.args]  # fmt: skip
        values: dict[int, Tensor] = {}

        def collect(t: Tensor) -> int:
            # Detached from the rerun's graph, but still saying whether it wants a gradient (a
            # reentrant checkpoint nested inside reads that off its saved inputs).
            values[len(values)] = Tensor._make(t._data, t.requires_grad)
            return len(values) - 1

        with _replay.replaying(self.replay), enable_grad(), self.recompute_context:
            with saved_tensors_hooks(collect, values.__getitem__):
                self.function(*args, **self.kwargs)
        got = [(v.shape, v.dtype) for v in values.values()]
        if got != self.metas:
            raise CheckpointError(
                f"checkpoint: the recomputation saved {len(got)} values for backward where the "
                f"forward saved {len(self.metas)} (or their shapes or dtypes differ): the "
                f"checkpointed function must compute the same thing when run again (no branches "
                f"on global state or on data that changed)"
            )
        self.values = values


def checkpoint(
    function: Callable,
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    context_fn: Callable[[], tuple] = noop_context_fn,
    determinism_check: str = "default",
    debug: bool = False,
    early_stop: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs)``, without keeping its intermediate activations for backward:
    they are recomputed when backward needs them. Returns what ``function`` returns. Non-tensor
    arguments (Modules, numbers) are passed through.

    ``use_reentrant``: None or False for the design described in this module (PyTorch's
    recommendation); True for PyTorch's older reentrant variant (``checkpoint_reentrant.py``),
    which takes no keyword arguments for ``function`` and must return Tensors.
    ``context_fn`` (recorded variant only): returns two context managers, the first wrapping
    the forward, the second the recomputation. ``determinism_check`` ("default": the rerun
    must save values of the same shapes and dtypes, else CheckpointError; "none"), ``debug``
    and ``early_stop`` are PyTorch's arguments; the check here is always on, there is no debug
    trace, and the recomputation always runs the whole function.
    """
    if determinism_check not in ("default", "none"):
        raise ValueError(
            f"determinism_check should be one of ['default', 'none'], but got {determinism_check}"
        )
    if use_reentrant and (context_fn is not noop_context_fn or debug):
        raise ValueError(
            "Passing `context_fn` or `debug` is only supported when use_reentrant=False."
        )
    if not state.grad_enabled:
        return function(*args, **kwargs)  # nothing will be backpropagated: nothing to recompute
    if use_reentrant:
        if kwargs:
            raise ValueError(
                f"checkpoint: unexpected keyword arguments {sorted(kwargs)} (use_reentrant=True "
                f"passes only positional arguments to the function)"
            )
        return checkpoint_reentrant(function, args, preserve_rng_state)
    forward_context, recompute_context = context_fn()
    frame = _Recomputation(function, args, kwargs, preserve_rng_state, recompute_context)
    with saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Tensor,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
) -> Tensor:
    """Run ``functions`` (a Sequential or a list of modules/callables) in ``segments`` pieces,
    checkpointing every piece but the last (whose activations backward needs first anyway)."""
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
            _run_segment,
            x,
            *funcs[start : end + 1],
            use_reentrant=use_reentrant,
            preserve_rng_state=preserve_rng_state,
        )
    return _run_segment(x, *funcs[end + 1 :])


def _run_segment(x: Any, *funcs: Callable) -> Any:
    for f in funcs:
        x = f(x)
    return x


# mg.utils.checkpoint is this function, and mg.utils.checkpoint.checkpoint(...) works too.
function_as_module(checkpoint, checkpoint, checkpoint_sequential, noop_context_fn, CheckpointError)
