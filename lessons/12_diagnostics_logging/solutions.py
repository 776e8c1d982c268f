"""Chapter 12 solutions: smoothing and reading loss curves, NaN hunting, TensorBoard's files."""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from pathlib import Path

from tensorboardX.record_writer import masked_crc32c

import minigenesis as mg


def ema_smooth(values: Sequence[float], weight: float = 0.6) -> list[float]:
    """Exercise 12.1: TensorBoard's "Smoothing" slider: a debiased exponential moving average.

    Keep ``last = weight * last + (1 - weight) * value`` (starting from ``last = 0``) and report
    ``last / (1 - weight^k)`` after the k-th value (k = 1, 2, ...): the division removes the pull
    towards the starting 0. ``weight = 0`` returns the values unchanged.
    """
    if not 0.0 <= weight < 1.0:
        raise ValueError(f"weight must be in [0, 1), got {weight}")
    last, out = 0.0, []
    for k, value in enumerate(values, start=1):
        last = weight * last + (1.0 - weight) * float(value)
        out.append(last / (1.0 - weight**k))
    return out


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
    train = [float(x) for x in train_losses]
    val = [float(x) for x in val_losses]
    if any(not math.isfinite(x) for x in train + val):
        return ["diverging"]
    if len(train) < window:
        return ["too_short"]
    t, v = train[-window:], val[-window:]
    found = []
    if t[-1] > t[0] and t[-1] > 1.5 * min(train):
        found.append("diverging")
    if t[-1] < t[0] and v[-1] > v[0]:
        found.append("overfitting")
    if t[-1] > high_loss and abs(t[-1] - v[-1]) < gap:
        found.append("underfitting")
    if abs(t[-1] - t[0]) < converge_tol:
        found.append("converged")
    return found


def first_nonfinite_module(model: mg.nn.Module, x: mg.Tensor) -> str | None:
    """Exercise 12.3: run ``model(x)`` and name the first module whose output holds NaN or Inf.

    Register a forward hook (``module.register_forward_hook(hook)``, with
    ``hook(module, inputs, output)``) on every module of ``model.named_modules()``. A hook runs
    when its module's forward has finished, so an inner layer reports before the block holding
    it. Return the name (as ``named_modules`` gives it) of the first module, in that order, whose
    output is not finite, or None. Remove the hooks before returning, whatever happens.
    """
    first: list[str] = []

    def make_hook(name: str):
        def hook(module, inputs, output) -> None:
            if not first and not bool(mg.isfinite(output).all()):
                first.append(name)

        return hook

    handles = [
        module.register_forward_hook(make_hook(name)) for name, module in model.named_modules()
    ]
    try:
        with mg.no_grad():
            model(x)
    finally:
        for handle in handles:
            handle.remove()
    return first[0] if first else None


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
    blob = Path(path).read_bytes()
    records, pos = [], 0
    while pos < len(blob):
        if pos + 12 > len(blob):
            raise ValueError(f"truncated record header at byte {pos}")
        header = blob[pos : pos + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", blob[pos + 8 : pos + 12])
        if header_crc != masked_crc32c(header):
            raise ValueError(f"bad length CRC at byte {pos}")
        start, end = pos + 12, pos + 12 + length
        if end + 4 > len(blob):
            raise ValueError(f"truncated record at byte {pos}: {length} bytes announced")
        data = blob[start:end]
        (data_crc,) = struct.unpack("<I", blob[end : end + 4])
        if data_crc != masked_crc32c(data):
            raise ValueError(f"bad data CRC in the record at byte {pos}")
        records.append(data)
        pos = end + 4
    return records


def quiz() -> dict[str, str]:
    """Exercise 12.5: the answers to the self-check questions, each with the reason."""
    return {
        # A falling train loss with a rising validation loss means the model is learning what does
        # not generalize.
        "q1": "c",
        # Any arithmetic with NaN gives NaN; the origin is the first output that turns non-finite
        # (often a log of 0 or an exp that overflowed).
        "q2": "a",
        # An EMA started at 0 has total weight 1 - beta^t on the data after t points; dividing by it
        # gives a true weighted average from the first step (Adam does the same).
        "q3": "b",
    }
