"""Chapter 12 exercises: smoothing and reading loss curves, NaN hunting, TensorBoard's files."""

from __future__ import annotations

import math  # noqa: F401
import struct  # noqa: F401
from collections.abc import Sequence
from pathlib import Path

from tensorboardX.record_writer import masked_crc32c  # noqa: F401

import minigenesis as mg


def ema_smooth(values: Sequence[float], weight: float = 0.6) -> list[float]:
    """Exercise 12.1: TensorBoard's "Smoothing" slider: a debiased exponential moving average.

    Keep ``last = weight * last + (1 - weight) * value`` (starting from ``last = 0``) and report
    ``last / (1 - weight^k)`` after the k-th value (k = 1, 2, ...): the division removes the pull
    towards the starting 0. ``weight = 0`` returns the values unchanged.
    """
    raise NotImplementedError(
        "Exercise 12.1: last = weight * last + (1 - weight) * value; report last / (1 - weight**k)"
    )


def diagnose(
    train_losses: Sequence[float],
    val_losses: Sequence[float],
    window: int = 10,
    high_loss: float = 0.5,
    gap: float = 0.1,
    converge_tol: float = 0.01,
) -> list[str]:
    """Exercise 12.2: read the loss curves. Return the findings, in this order:

    - a NaN/Inf anywhere in either list: return ``["diverging"]`` and nothing else;
    - fewer than ``window`` train losses: return ``["too_short"]``;
    - otherwise, with ``t`` and ``v`` the last ``window`` train and validation losses:
      "diverging" if ``t[-1] > t[0]`` and ``t[-1] > 1.5 * min(train_losses)``;
      "overfitting" if ``t[-1] < t[0]`` and ``v[-1] > v[0]``;
      "underfitting" if ``t[-1] > high_loss`` and ``|t[-1] - v[-1]| < gap``;
      "converged" if ``|t[-1] - t[0]| < converge_tol``.
    """
    raise NotImplementedError(
        "Exercise 12.2: NaN check, window check, then the four rules of the docstring in order"
    )


def first_nonfinite_module(model: mg.nn.Module, x: mg.Tensor) -> str | None:
    """Exercise 12.3: run ``model(x)`` and name the first module whose output holds NaN or Inf.

    Register a forward hook (``module.register_forward_hook(hook)``, with
    ``hook(module, inputs, output)``) on every module of ``model.named_modules()``. A hook runs
    when its module's forward has finished, so an inner layer reports before the block holding
    it. Return the name (as ``named_modules`` gives it) of the first module, in that order, whose
    output is not finite, or None. Remove the hooks before returning, whatever happens.
    """
    raise NotImplementedError(
        "Exercise 12.3: a forward hook on every module; the first non-finite output wins"
    )


def read_tfrecords(path: str | Path) -> list[bytes]:
    """Exercise 12.4: the records of a TensorBoard event file (TFRecord framing).

    The file is a sequence of records, each::

        uint64 length        (little-endian)
        uint32 masked CRC of the 8 length bytes
        bytes  data[length]
        uint32 masked CRC of data

    Return the list of ``data`` payloads. Check both CRCs with ``masked_crc32c`` (imported above)
    and raise ``ValueError`` on a bad CRC or a truncated record.
    """
    raise NotImplementedError(
        "Exercise 12.4: length, its CRC, data, its CRC: loop over the file and check both CRCs"
    )


def quiz() -> dict[str, str]:
    """Exercise 12.5: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 3 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 12.5: return {'q1': letter, ...}, your answers to the self-check questions"
    )
