"""Chapter 1 exercises: tensors, floating-point formats and memory layout.

Replace each ``raise NotImplementedError(...)`` with your code, then check your work with

    python -m pytest lessons/01_tensors_and_dtypes

Work with plain Python integers and NumPy here: the point is to see the bits yourself.
"""

from __future__ import annotations

import numpy as np

# Each binary floating-point format: (exponent bits, mantissa bits). One sign bit comes first.
FORMATS: dict[str, tuple[int, int]] = {
    "float32": (8, 23),
    "float16": (5, 10),
    "bfloat16": (8, 7),
}

# PyTorch's dtypes, grouped for type promotion: category 0 bool, 1 integer, 2 floating.
CATEGORY: dict[str, int] = {
    "bool": 0,
    "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
    "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2,
}  # fmt: skip


def float_fields(bits: int, fmt: str) -> tuple[int, int, int]:
    """Exercise 1.1: split a bit pattern into its (sign, exponent, mantissa) fields.

    ``bits`` is the whole number stored in memory (e.g. ``0x3F800000`` is 1.0 in float32) and
    ``fmt`` a key of ``FORMATS``. The layout, most significant bit first, is
    ``[sign: 1 bit][exponent: E bits][mantissa: M bits]``.

    >>> float_fields(0x3F800000, "float32")
    (0, 127, 0)
    """
    raise NotImplementedError("Exercise 1.1: shift and mask the sign, exponent and mantissa bits")


def decode(sign: int, exponent: int, mantissa: int, fmt: str) -> float:
    """Exercise 1.2: the value a (sign, exponent, mantissa) triple stands for, as a Python float.

    With bias = 2**(E-1) - 1:

    - exponent all ones: infinity if mantissa == 0, else NaN (``float("nan")``);
    - exponent 0 (subnormal): (-1)**sign * 2**(1 - bias) * (mantissa / 2**M);
    - otherwise (normal):     (-1)**sign * 2**(exponent - bias) * (1 + mantissa / 2**M).

    Keep the sign of zero: decode(1, 0, 0, fmt) is -0.0.
    """
    raise NotImplementedError("Exercise 1.2: apply the normal / subnormal / inf-nan formulas")


def round_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """Exercise 1.3: round float32 values to the nearest bfloat16, returned as float32.

    bfloat16 is the top 16 bits of a float32. Truncating would always round towards zero;
    instead round to nearest, ties to even: view the array as ``np.uint32``, add
    ``0x7FFF + ((bits >> 16) & 1)``, clear the low 16 bits, and view the result as float32.
    (Inputs are finite; values that round past the largest bfloat16 become inf, as they should.)
    """
    raise NotImplementedError("Exercise 1.3: add the rounding bias to the uint32 view, mask")


def format_limits(fmt: str) -> dict[str, float]:
    """Exercise 1.4: the limits of a format, from its bit counts alone.

    Return ``{"max": ..., "tiny": ..., "eps": ...}``:

    - max: the largest finite value, (2 - 2**-M) * 2**bias;
    - tiny: the smallest positive normal value, 2**(1 - bias);
    - eps: the gap between 1.0 and the next representable number, 2**-M.
    """
    raise NotImplementedError("Exercise 1.4: compute max, tiny and eps from E and M")


def contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Exercise 1.5: the byte strides of a C-contiguous (row-major) array of ``shape``.

    The last axis has stride ``itemsize``; each earlier axis steps over a whole block of the
    axes after it. Example: shape (2, 3, 4) of float32 (itemsize 4) has strides (48, 16, 4).
    """
    raise NotImplementedError("Exercise 1.5: multiply the sizes of the later axes, right to left")


def promote(a: str, b: str) -> str:
    """Exercise 1.6: PyTorch's result dtype for an op between tensors of dtypes ``a`` and ``b``.

    The rules (names as in ``CATEGORY``):

    - the higher category wins: bool < integers < floating;
    - inside a category the wider type wins (int8 < int16 < int32 < int64;
      float16, bfloat16 < float32 < float64);
    - two quirks: float16 with bfloat16 gives float32 (neither holds the other's values), and
      uint8 with int8 gives int16 (uint8 with a wider signed integer gives that integer).
    """
    raise NotImplementedError("Exercise 1.6: compare categories, then widths, then the quirks")


def quiz() -> dict[str, str]:
    """Exercise 1.7: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 4 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 1.7: return {'q1': letter, ...}, your answers to the self-check questions"
    )
