"""How a tensor prints: ``repr(t)`` and ``print(t)``, character for character as PyTorch.

The rules, for a floating tensor (ints print as ``str(int)``, bools as ``True``/``False``):

1. Look only at the finite, nonzero values (NaN, inf and zeros say nothing about the scale).
2. *int mode*: every one of them is a whole number. They print with no decimals and a trailing
   dot (``tensor([1., 2.])``), so the reader still sees a float tensor.
3. *scientific mode*: the values span more than three decades (max / min > 1000), or one is
   above 1e8, or one is below 1e-4. They print as ``1.0000e-05``. Otherwise fixed point,
   ``precision`` decimals (4 by default): ``tensor(5.5000)``.
4. Every element is padded on the left to the widest one, so columns line up; a row wraps when
   it would pass ``linewidth`` (80) characters.
5. Past ``threshold`` elements (1000), each dimension shows only its first and last
   ``edgeitems`` (3) entries around a ``...``; the width and mode are then decided on what is
   shown.
6. After the numbers come the suffixes: ``device=`` (off the CPU), ``dtype=`` (when the dtype is
   not the default float, int64 or bool, which the numbers already tell apart),
   ``grad_fn=<MulBackward0>`` or ``requires_grad=True``. A suffix that would pass ``linewidth``
   goes on its own line.

``set_printoptions`` changes the rules' numbers; ``profile="short"`` / ``"full"`` are PyTorch's
presets.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

import numpy as np

from . import dtypes as _dt
from .backend import get_default_device, to_numpy


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4  # decimals in fixed and scientific mode
    threshold: float = 1000  # more elements than this: summarize with ...
    edgeitems: int = 3  # entries kept at each end of a summarized dimension
    linewidth: int = 80  # characters per line before a row wraps
    sci_mode: bool | None = None  # None: chosen from the values (rule 3)


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print. ``profile`` (``"default"``, ``"short"``, ``"full"``) first sets all
    four numbers, then any number given overrides it. ``sci_mode`` is always set: leaving it out
    (None) goes back to choosing scientific notation from the values."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(
                f"set_printoptions: unknown profile {profile!r}, expected one of {list(_PROFILES)}"
            )
        for name, value in _PROFILES[profile].items():
            setattr(PRINT_OPTS, name, value)
    for name, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(PRINT_OPTS, name, value)
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments ``set_printoptions`` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs: Any):
    """``with mg.printoptions(precision=2):`` changes the options for the block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


# ---------------------------------------------------------------------- one element
class _Formatter:
    """Decides, from the values that will be shown, the mode (rules 2, 3) and the column width
    (rule 4); ``format`` then writes one element."""

    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind in "fV"  # 'V': ml_dtypes' bfloat16
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not self.floating:
            for v in values.ravel().tolist():
                self.max_width = max(self.max_width, len(str(v)))
            return
        flat = values.ravel().astype(np.float64)  # exact for every float dtype
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown)
        low, high = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode
        p = PRINT_OPTS.precision
        for v in shown.tolist():
            if self.sci_mode:
                width = len(f"{v:.{p}e}")
            elif self.int_mode:
                width = len(f"{v:.0f}") + 1  # the trailing dot
            else:
                width = len(f"{v:.{p}f}")
            self.max_width = max(self.max_width, width)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = f"{value:.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{PRINT_OPTS.precision}f}"
        return text.rjust(self.max_width)


# ---------------------------------------------------------------------- the nested brackets
def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (rule 5): each dimension cut to its first and last
    ``edgeitems`` entries. (With edgeitems 0 a matrix shows nothing; a vector's ``[-0:]`` end is
    all of it, a quirk PyTorch has too.)"""
    n = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        return np.concatenate((values[:n], values[-n:])) if len(values) > 2 * n else values
    if not n:
        return values[(slice(0, 0),) * values.ndim]
    rows = range(len(values))
    if len(values) > 2 * n:
        rows = [*range(n), *range(len(values) - n, len(values))]
    return np.stack([_summarized(values[i]) for i in rows])


def _vector_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    """One row: ``[a, b, c]``, wrapped so each line fits ``linewidth``."""
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.max_width + 2))
    n = PRINT_OPTS.edgeitems
    items = values.tolist()
    if summarize and not n:
        texts = ["..."]
    elif summarize and len(items) > 2 * n:
        texts = [fmt.format(v) for v in items[:n]] + [" ..."]
        texts += [fmt.format(v) for v in items[-n:]]
    else:
        texts = [fmt.format(v) for v in items]
    lines = [", ".join(texts[i : i + per_line]) for i in range(0, len(texts), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    """Brackets inside brackets; blocks of a 3-d tensor are separated by a blank line (one more
    per extra dimension)."""
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector_str(values, indent, summarize, fmt)
    n = PRINT_OPTS.edgeitems
    rows = range(len(values))
    if summarize and len(values) > 2 * n:
        rows = [*range(n), None, *range(len(values) - n, len(values))]
    parts = [
        "..." if i is None else _nested_str(values[i], indent + 1, summarize, fmt) for i in rows
    ]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _host_values(t: Any) -> np.ndarray:
    """The tensor's values as a NumPy array on the host (bfloat16 stays bfloat16)."""
    return np.asarray(to_numpy(t._data))


def tensor_str(values: np.ndarray, indent: int) -> str:
    """The bracketed numbers of ``values`` (what follows ``tensor(``, ``indent`` columns in)."""
    if values.size == 0:
        return "[]"
    summarize = values.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized(values) if summarize else values)
    return _nested_str(values, indent, summarize, fmt)


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """``, dtype=...`` after the numbers; a suffix that would pass linewidth starts a line."""
    parts = [text]
    # (PyTorch counts the last line two characters long when there is no newline; kept, as it
    # decides where the line breaks.)
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def grad_fn_name(grad_fn: Any) -> str:
    """The name a tensor's repr shows for its grad_fn: its type's name, as in PyTorch."""
    return type(grad_fn).__name__


def tensor_repr(t: Any) -> str:
    """``repr(t)``: ``tensor(<numbers>, <suffixes>)``."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t.device != get_default_device():
        suffixes.append(f"device='{t.device}'")
    default_float = _dt.get_default_dtype()
    if t.device.type == "meta":  # no values to show: "..." and the size, as PyTorch prints it
        suffixes.append(f"size={tuple(t.shape)}")
        if t.dtype is not default_float:
            suffixes.append(f"dtype={t.dtype!r}")
        values, text = None, "..."
    else:
        values = _host_values(t)
    if values is None:
        pass
    elif values.size == 0:
        if values.ndim != 1:  # [] alone reads as shape (0,)
            suffixes.append(f"size={tuple(values.shape)}")
        if t.dtype is not default_float:  # no numbers to tell an int tensor by
            suffixes.append(f"dtype={t.dtype!r}")
        text = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(values.shape)}")
        if t.dtype not in (default_float, _dt.int64, _dt.bool_):
            suffixes.append(f"dtype={t.dtype!r}")
        text = tensor_str(values, indent)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name(t.grad_fn)}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + text, suffixes, indent)
