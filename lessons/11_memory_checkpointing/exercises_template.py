"""Chapter 11 exercises: measuring peak memory, choosing segments, checkpointing by hand."""

from __future__ import annotations

import tracemalloc  # noqa: F401
from collections.abc import Callable, Sequence
from typing import Any

import minigenesis as mg


def peak_bytes(fn: Callable[..., Any], *args: Any) -> tuple[Any, int]:
    """Exercise 11.1: run ``fn(*args)`` and return ``(result, peak)``.

    ``peak`` is the largest number of bytes traced by ``tracemalloc`` *above what was already
    allocated when fn started* (NumPy reports its array buffers to tracemalloc). Start tracing if
    it is not running (and stop it again afterwards in that case); otherwise reset the peak.
    """
    raise NotImplementedError(
        "Exercise 11.1: tracemalloc: run fn and report the peak above the memory at the start"
    )


def stored_activations(num_layers: int, segments: int) -> int:
    """Exercise 11.2 (part 1): layer outputs alive at the peak of a checkpointed training step.

    ``checkpoint_sequential`` (PyTorch's split) cuts ``num_layers`` layers into ``segments - 1``
    checkpointed segments of ``num_layers // segments`` layers, and a last, ordinary segment with
    the rest. Forward keeps the input of each checkpointed segment (``segments - 1`` tensors) and
    every output of the last segment; backward then recomputes one shorter segment at a time.
    Count one unit per stored layer output and return ``(segments - 1) + len(last segment)``.
    """
    raise NotImplementedError(
        "Exercise 11.2: (segments - 1) checkpoint inputs + the length of the last segment"
    )


def best_segments(num_layers: int) -> int:
    """Exercise 11.2 (part 2): the number of segments that minimises ``stored_activations``.

    On a tie, return the smallest such number (fewer segments, fewer checkpoint calls).
    """
    raise NotImplementedError(
        "Exercise 11.2: the segment count with the fewest stored activations (smallest on a tie)"
    )


def checkpointed_forward(blocks: Sequence[mg.nn.Module], x: mg.Tensor, segments: int) -> mg.Tensor:
    """Exercise 11.3: ``checkpoint_sequential`` by hand.

    With ``size = len(blocks) // segments``, wrap each of the first ``segments - 1`` runs of
    ``size`` consecutive blocks in an ``mg.nn.Sequential`` and call it through
    ``mg.utils.checkpoint(segment, x)``: only the segment's input is kept, its inside is
    recomputed during backward. Run the remaining blocks normally (backward needs their
    activations at once anyway). Return the output.
    """
    raise NotImplementedError(
        "Exercise 11.3: mg.utils.checkpoint each of the first segments - 1 runs, the rest plainly"
    )


def training_step_peak(model: Any, x: mg.Tensor, segments: int | None) -> int:
    """Exercise 11.4: peak traced bytes of one forward + backward of ``model`` (a Sequential).

    With ``segments=None`` run ``model(x).sum().backward()``; otherwise run the forward through
    ``mg.utils.checkpoint_sequential(model, segments, x)``. Use ``peak_bytes``. Clear the
    parameters' gradients first (``model.zero_grad()``) so every call starts equal.
    """
    raise NotImplementedError(
        "Exercise 11.4: peak_bytes of a forward + backward, with or without checkpoint_sequential"
    )


def quiz() -> dict[str, str]:
    """Exercise 11.5: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 3 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 11.5: return {'q1': letter, ...}, your answers to the self-check questions"
    )
