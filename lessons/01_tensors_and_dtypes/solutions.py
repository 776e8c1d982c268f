"""Chapter 1 solutions: tensors, floating-point formats and memory layout."""

from __future__ import annotations

import numpy as np

FORMATS: dict[str, tuple[int, int]] = {
    "float32": (8, 23),
    "float16": (5, 10),
    "bfloat16": (8, 7),
}

CATEGORY: dict[str, int] = {
    "bool": 0,
    "uint8": 1, "int8": 1, "int16": 1, "int32": 1, "int64": 1,
    "float16": 2, "bfloat16": 2, "float32": 2, "float64": 2,
}  # fmt: skip

# Bits of each dtype: the "width" used inside a category.
_WIDTH = {"bool": 1, "uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64,
          "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}  # fmt: skip


def float_fields(bits: int, fmt: str) -> tuple[int, int, int]:
    """Exercise 1.1: split a bit pattern into its (sign, exponent, mantissa) fields."""
    e_bits, m_bits = FORMATS[fmt]
    sign = bits >> (e_bits + m_bits)
    exponent = (bits >> m_bits) & ((1 << e_bits) - 1)
    mantissa = bits & ((1 << m_bits) - 1)
    return sign, exponent, mantissa


def decode(sign: int, exponent: int, mantissa: int, fmt: str) -> float:
    """Exercise 1.2: the value a (sign, exponent, mantissa) triple stands for, as a Python float."""
    e_bits, m_bits = FORMATS[fmt]
    bias = 2 ** (e_bits - 1) - 1
    s = -1.0 if sign else 1.0
    if exponent == 2**e_bits - 1:
        return s * float("inf") if mantissa == 0 else float("nan")
    fraction = mantissa / 2**m_bits
    if exponent == 0:  # subnormal: no hidden 1, the smallest exponent
        return s * 2.0 ** (1 - bias) * fraction
    return s * 2.0 ** (exponent - bias) * (1.0 + fraction)


def round_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """Exercise 1.3: round float32 values to the nearest bfloat16, returned as float32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    # 0x7FFF rounds halves down; the lowest kept bit adds 1 more on a tie when it is odd. Finite
    # inputs are at most 0xFF7FFFFF, so the sum never wraps around 2**32.
    bits = bits + np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1))
    return (bits & np.uint32(0xFFFF0000)).view(np.float32)


def format_limits(fmt: str) -> dict[str, float]:
    """Exercise 1.4: the limits of a format, from its bit counts alone."""
    e_bits, m_bits = FORMATS[fmt]
    bias = 2 ** (e_bits - 1) - 1
    return {
        "max": (2.0 - 2.0**-m_bits) * 2.0**bias,
        "tiny": 2.0 ** (1 - bias),
        "eps": 2.0**-m_bits,
    }


def contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Exercise 1.5: the byte strides of a C-contiguous (row-major) array of ``shape``."""
    strides = []
    step = itemsize
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def promote(a: str, b: str) -> str:
    """Exercise 1.6: PyTorch's result dtype for an op between tensors of dtypes ``a`` and ``b``."""
    if a == b:
        return a
    if CATEGORY[a] != CATEGORY[b]:
        return a if CATEGORY[a] > CATEGORY[b] else b
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    if "uint8" in (a, b):
        other = b if a == "uint8" else a
        return "int16" if other == "int8" else other
    return a if _WIDTH[a] >= _WIDTH[b] else b


def quiz() -> dict[str, str]:
    """Exercise 1.7: the answers to the self-check questions, each with the reason."""
    return {
        # A Python scalar takes part in promotion by category only: int64 tensor + float scalar
        # gives the default float dtype, float32, not float64.
        "q1": "a",
        # Range (the smallest normal, 1.2e-38) is not precision: near 1.0 the next float32 is 1 +
        # 2^-23, and anything below half of that spacing is lost in the sum.
        "q2": "b",
        # x's strides are (12, 4) bytes (a row is 3 floats of 4 bytes); .t() swaps them to (4, 12)
        # and shares the storage.
        "q3": "d",
        # Truncation is rounding towards zero: its errors all have one sign and add up; round to
        # nearest even has errors of both signs that cancel on average.
        "q4": "a",
    }
