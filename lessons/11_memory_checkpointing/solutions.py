"""Chapter 11 solutions: measuring peak memory, choosing segments, checkpointing by hand."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Sequence
from typing import Any

import minigenesis as mg


def peak_bytes(fn: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """Exercise 11.1: run ``fn(*args)`` and return ``(result, peak)``.

    ``peak`` is the largest number of bytes traced by ``tracemalloc`` *above what was already
    allocated when fn started* (NumPy reports its array buffers to tracemalloc). Start tracing if
    it is not running (and stop it again afterwards in that case); otherwise reset the peak.
    """
    started_here = not tracemalloc.is_tracing()
    if started_here:
        tracemalloc.start()
    else:
        tracemalloc.reset_peak()
    try:
        before, _ = tracemalloc.get_traced_memory()
        result = fn(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if started_here:
            tracemalloc.stop()
    return result, peak - before


def stored_activations(num_layers: int, segments: int) -> int:
    """Exercise 11.2 (part 1): layer outputs alive at the peak of a checkpointed training step.

    ``checkpoint_sequential`` (PyTorch's split) cuts ``num_layers`` layers into ``segments - 1``
    checkpointed segments of ``num_layers // segments`` layers, and a last, ordinary segment with
    the rest. Forward keeps the input of each checkpointed segment (``segments - 1`` tensors) and
    every output of the last segment; backward then recomputes one shorter segment at a time.
    Count one unit per stored layer output and return ``(segments - 1) + len(last segment)``.
    """
    if not 1 <= segments <= num_layers:
        raise ValueError(f"segments must be in 1..{num_layers}, got {segments}")
    last = num_layers - (segments - 1) * (num_layers // segments)
    return (segments - 1) + last


def best_segments(num_layers: int) -> int:
    """Exercise 11.2 (part 2): the number of segments that minimises ``stored_activations``.

    On a tie, return the smallest such number (fewer segments, fewer checkpoint calls).
    """
    return min(range(1, num_layers + 1), key=lambda s: (stored_activations(num_layers, s), s))


def checkpointed_forward(blocks: Sequence[mg.nn.Module], x: mg.Tensor, segments: int) -> mg.Tensor:
    """Exercise 11.3: ``checkpoint_sequential`` by hand.

    With ``size = len(blocks) // segments``, wrap each of the first ``segments - 1`` runs of
    ``size`` consecutive blocks in an ``mg.nn.Sequential`` and call it through
    ``mg.utils.checkpoint(segment, x)``: only the segment's input is kept, its inside is
    recomputed during backward. Run the remaining blocks normally (backward needs their
    activations at once anyway). Return the output.
    """
    if not 1 <= segments <= len(blocks):
        raise ValueError(f"segments must be in 1..{len(blocks)}, got {segments}")
    size = len(blocks) // segments
    for start in range(0, size * (segments - 1), size):
        segment = mg.nn.Sequential(*blocks[start : start + size])
        x = mg.utils.checkpoint(segment, x)
    for block in blocks[size * (segments - 1) :]:
        x = block(x)
    return x


def training_step_peak(model: Any, x: mg.Tensor, segments: int | None) -> int:
    """Exercise 11.4: peak traced bytes of one forward + backward of ``model`` (a Sequential).

    With ``segments=None`` run ``model(x).sum().backward()``; otherwise run the forward through
    ``mg.utils.checkpoint_sequential(model, segments, x)``. Use ``peak_bytes``. Clear the
    parameters' gradients first (``model.zero_grad()``) so every call starts equal.
    """
    model.zero_grad()

    def step() -> None:
        if segments is None:
            out = model(x)
        else:
            out = mg.utils.checkpoint_sequential(model, segments, x)
        out.sum().backward()

    return peak_bytes(step)[1]


def quiz() -> dict[str, str]:
    """Exercise 11.5: the answers to the self-check questions, each with the reason."""
    return {
        # Training keeps every saved activation from the forward pass until backward frees it;
        # inference frees each layer's input as soon as the next layer has run.
        "q1": "a",
        # Each segment is recomputed once during backward (one more forward in all); the peak holds
        # the segment boundaries plus the activations of the segment being recomputed.
        "q2": "b",
        # The gradient must be the one of the forward that produced the loss; a new mask would give
        # the gradient of another network.
        "q3": "d",
    }
