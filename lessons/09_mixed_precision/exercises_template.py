"""Chapter 9 exercises: rounding in 16 bits, the autocast policy, GradScaler by hand, underflow."""

from __future__ import annotations

import math  # noqa: F401

import minigenesis as mg


def accumulate(start: float, update: float, steps: int, dtype: mg.DType) -> float:
    """Exercise 9.1: why the master weights stay float32.

    Make a one-element tensor holding ``start`` in ``dtype``, add ``update`` to it in place
    (``w.add_(update)``) ``steps`` times, and return the final value as a Python float. Each
    addition rounds to ``dtype``: an update smaller than half the gap between ``w`` and its next
    representable neighbour is rounded away every single time.
    """
    raise NotImplementedError(
        "Exercise 9.1: add update to a one-element dtype tensor, steps times, in place"
    )


def autocast_predictions() -> dict[str, tuple[mg.DType, str]]:
    """Exercise 9.2: predict the dtype of each expression of the lesson's autocast quiz.

    Inside ``mg.autocast("cpu", dtype=mg.bfloat16)``, with float32 tensors ``x`` (8, 4), ``w``
    (4, 3) and an int64 tensor ``labels`` (8,), the expressions are:

    - "matmul":   ``h = x @ w``
    - "relu":     ``h.relu()``
    - "add":      ``h + x[:, :3]``
    - "softmax":  ``h.softmax(dim=-1)``
    - "sum":      ``h.sum()``
    - "loss":     ``mg.nn.functional.cross_entropy(h, labels)``

    Return a dict from those names to ``(dtype, rule)``: the DType each produces (e.g.
    ``mg.float32``) and the rule of the CPU's policy that decides it, one of ``"lower"`` (the
    low-precision list), ``"float32"`` (the float32 list), ``"promote"`` (mixed inputs become the
    widest) or ``"none"`` (no rule on the CPU: the op keeps its input's dtype). A prediction from
    the rules, not a measurement: the check fails an answer that runs minigenesis to find out.
    """
    raise NotImplementedError(
        "Exercise 9.2: return {name: (the DType you predict, the rule)} for the six expressions"
    )


def fp16_weight_grad(x_value: float, upstream: float, loss_scale: float) -> float:
    """Exercise 9.3: the underflow demonstration.

    A float32 master weight ``w`` = [1.0] is cast to float16 and multiplied by a float16 input
    ``x`` = [x_value]: ``h = w.half() * x`` is a float16 activation. The loss is computed in
    float32, as autocast does: ``loss = (h.float() * upstream).sum()``. Back-propagate
    ``loss * loss_scale``, then return ``w.grad`` divided by ``loss_scale`` (unscaled in float32)
    as a Python float. The true gradient is ``x_value * upstream``.

    Build this graph with tensors and let each step round in its own dtype: the checks include
    cases where the float16 steps differ from rounding the final product once (a ``loss_scale``
    so large that the float16 gradient of ``h`` overflows to inf, an ``x_value`` that is already
    0 in float16).
    """
    raise NotImplementedError(
        "Exercise 9.3: float16 activation, float32 loss, backward of loss * loss_scale, unscale"
    )


FP16_SMALLEST_NORMAL = 2.0**-14
FP16_MAX = 65504.0


def loss_scale_range(grad_min: float, grad_max: float) -> tuple[int, int]:
    """Exercise 9.4: the static loss scales 2^k that fit a run's gradients into float16.

    Return ``(k_low, k_high)``: ``k_low`` is the smallest integer k with
    ``grad_min * 2^k >= FP16_SMALLEST_NORMAL`` (the smallest gradient keeps float16's full
    precision), ``k_high`` the largest k with ``grad_max * 2^k <= FP16_MAX`` (the largest one
    does not overflow). Both gradients are positive magnitudes. Raise ``ValueError`` when
    ``k_low > k_high``: then no single scale fits, the gradients span more than float16's range.
    """
    raise NotImplementedError(
        "Exercise 9.4: smallest k lifting grad_min to 2^-14, largest k keeping grad_max <= 65504"
    )


class ManualGradScaler:
    """Exercise 9.5: dynamic loss scaling by hand, with GradScaler's rules.

    - ``scale(loss)`` returns ``loss * S`` (S = the current scale, starting at ``init_scale``);
    - ``unscale_(optimizer)`` multiplies every gradient by 1/S and records whether any gradient
      holds inf or NaN (an error if called twice for one optimizer before ``update``);
    - ``step(optimizer)`` unscales first if needed, then calls ``optimizer.step()`` only when no
      gradient was inf/NaN; it returns True when the step ran;
    - ``update()``: after an inf/NaN, S *= backoff_factor and the count of good steps restarts
      at 0; otherwise the count grows, and when it reaches ``growth_interval`` S *= growth_factor
      and the count restarts. Then forget which optimizers were unscaled.
    """

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
    ) -> None:
        raise NotImplementedError(
            "Exercise 9.5: store the settings, the current scale and a count of good steps"
        )

    def scale(self, loss: mg.Tensor) -> mg.Tensor:
        raise NotImplementedError("Exercise 9.5: return the loss times the current scale")

    def unscale_(self, optimizer) -> None:
        raise NotImplementedError(
            "Exercise 9.5: multiply the gradients by 1/scale and record any inf/NaN"
        )

    def step(self, optimizer) -> bool:
        raise NotImplementedError(
            "Exercise 9.5: unscale if not done yet; step only when every gradient is finite"
        )

    def update(self) -> None:
        raise NotImplementedError(
            "Exercise 9.5: back off after an inf/NaN, grow after growth_interval good steps"
        )

    def get_scale(self) -> float:
        raise NotImplementedError("Exercise 9.5: return the current scale")


def quiz() -> dict[str, str]:
    """Exercise 9.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 9.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
