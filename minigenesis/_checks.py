"""Argument checks shared by the optimizers, the schedulers, GradScaler, the normalization layers
and gradient clipping: a hyper-parameter is a real number, finite, and in its range.

PyTorch checks the ranges of some of these arguments with ``not 0.0 <= lr``-style comparisons;
NaN fails every comparison, so a test written the other way round (``if lr < 0: raise``) lets NaN
through, and none of them refuses infinity. ``check_real`` writes the whole test once::

    check_real(lr, "lr", ge=0, label="learning rate")
    # ValueError: Invalid learning rate: nan (lr must be a finite number >= 0)

The message starts as PyTorch's does ("Invalid learning rate: -0.1"), then names the argument
and what it must be. A value that is not a number at all (a string, None) is a TypeError, as
PyTorch's comparison would raise.
"""

from __future__ import annotations

import math
import numbers
from typing import Any


def _as_float(value: Any, name: str) -> float:
    """``value`` as a Python float: a real number, a NumPy scalar or a one-element tensor.
    Strings are refused even though ``float("1e-3")`` would read them."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if isinstance(value, numbers.Real):
        return float(value)
    try:
        return float(value)  # a 0-d (or one-element) tensor or array
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}") from None


def _describe(finite: bool, ge: float | None, gt: float | None, le: float | None, lt: float | None):
    """The requirement in words: "a finite number in [0, 1)", "a finite number > 1", ..."""
    kind = "a finite number" if finite else "a number (not NaN)"
    low = None if ge is None and gt is None else ("[", ge) if ge is not None else ("(", gt)
    high = None if le is None and lt is None else ("]", le) if le is not None else (")", lt)
    if low and high:
        return f"{kind} in {low[0]}{low[1]:g}, {high[1]:g}{high[0]}"
    if low:
        return f"{kind} {'>=' if low[0] == '[' else '>'} {low[1]:g}"
    if high:
        return f"{kind} {'<=' if high[0] == ']' else '<'} {high[1]:g}"
    return kind


def check_real(
    value: Any,
    name: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
    finite: bool = True,
    label: str | None = None,
) -> float:
    """Refuse ``value`` unless it is a real number, not NaN, finite (unless ``finite=False``)
    and within the bounds given: ``ge <= value``, ``gt < value``, ``value <= le``,
    ``value < lt``. ``name`` is the argument's name; ``label`` how the message's first words
    name it (default ``name``). Returns the value as a float (the caller keeps what it was
    given where that matters: a tensor learning rate stays a tensor)."""
    x = _as_float(value, name)
    ok = not math.isnan(x) and (math.isfinite(x) or not finite)
    ok = ok and (ge is None or x >= ge) and (gt is None or x > gt)
    ok = ok and (le is None or x <= le) and (lt is None or x < lt)
    if not ok:
        need = _describe(finite, ge, gt, le, lt)
        raise ValueError(f"Invalid {label or name}: {value} ({name} must be {need})")
    return x


def check_int(value: Any, name: str, *, ge: int) -> int:
    """Refuse ``value`` unless it is an integer (an integral float such as 5.0 counts) and
    ``>= ge``; NaN and infinity are refused with a message, not Python's conversion error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and value == int(value) and value >= ge):
        raise ValueError(f"Invalid {name}: {value} ({name} must be an integer >= {ge})")
    return int(value)
