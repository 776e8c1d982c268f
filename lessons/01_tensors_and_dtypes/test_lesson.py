"""Checks for chapter 1. Oracles: NumPy's and ml_dtypes' own float types, np.finfo, NumPy strides,
and minigenesis's promotion table (PyTorch's rules)."""

from __future__ import annotations

import math
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 1.3  the bias added in place into the caller's array's uint32 view -> input untouched
#      x.astype(ml_dtypes.bfloat16) or mg's cast (the oracles)      -> by-hand watch
# 1.4  np.finfo / ml_dtypes.finfo (the oracles)                     -> by-hand watch
# 1.5  np.empty(shape, dtype).strides (the oracle)                  -> a shape too big to allocate
# 1.6  mg.promote_types (the oracle)                                -> by-hand watch


def _by_hand(call, function, what: str) -> None:
    """``call()`` runs neither minigenesis nor ml_dtypes (nor NumPy's finfo), and ``function``
    names neither: the chapter's point is to work the bits out by hand."""
    with watch_calls() as seen:
        call()
    used = [Path(u).name for u in seen.used(mg) + seen.used(ml_dtypes)]
    used += [Path(u).name for u in seen.ran_code_under(Path(np.__file__).parent / "_core")
             if Path(u).name == "getlimits.py"]  # fmt: skip
    names = set(function.__code__.co_names) & {"ml_dtypes", "bfloat16", "mg", "minigenesis",
                                                "torch", "finfo"}  # fmt: skip
    assert not used and not names, (
        f"{function.__name__} uses {sorted(set(used) | names)}, which the check compares it with: "
        f"{what}"
    )


STORAGE = {"float32": (np.float32, np.uint32), "float16": (np.float16, np.uint16),
           "bfloat16": (ml_dtypes.bfloat16, np.uint16)}  # fmt: skip


def _bits_of(values: np.ndarray, fmt: str) -> list[int]:
    float_type, uint_type = STORAGE[fmt]
    return [int(b) for b in np.asarray(values, dtype=float_type).view(uint_type)]


@pytest.mark.exercise("1.1")
@pytest.mark.parametrize("fmt", ["float32", "float16", "bfloat16"])
def test_float_fields_rebuild_the_value(impl, fmt):
    values = np.array([1.0, -2.0, 0.1, 3.140625, 1000.0, -0.007812, 6.0e-5], dtype=np.float32)
    e_bits, m_bits = impl.FORMATS[fmt]
    bias = 2 ** (e_bits - 1) - 1
    for bits, value in zip(_bits_of(values, fmt), np.asarray(values, STORAGE[fmt][0])):
        sign, exponent, mantissa = impl.float_fields(bits, fmt)
        assert 0 <= exponent < 2**e_bits and 0 <= mantissa < 2**m_bits and sign in (0, 1)
        if exponent == 0:
            rebuilt = (-1) ** sign * 2.0 ** (1 - bias) * mantissa / 2**m_bits
        else:
            rebuilt = (-1) ** sign * 2.0 ** (exponent - bias) * (1 + mantissa / 2**m_bits)
        assert rebuilt == float(value), (fmt, hex(bits))


@pytest.mark.exercise("1.1")
def test_float_fields_known_patterns(impl):
    assert impl.float_fields(0x3F800000, "float32") == (0, 127, 0)  # 1.0
    assert impl.float_fields(0xC000, "float16") == (1, 16, 0)  # -2.0
    assert impl.float_fields(0x7F80, "bfloat16") == (0, 255, 0)  # inf


@pytest.mark.exercise("1.2")
@pytest.mark.parametrize("fmt", ["float16", "bfloat16"])
def test_decode_every_16_bit_pattern(impl, fmt):
    float_type = STORAGE[fmt][0]
    patterns = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    with np.errstate(invalid="ignore"):  # NaN patterns
        expected = patterns.view(float_type).astype(np.float64)
    e_bits, m_bits = impl.FORMATS[fmt]
    for bits in range(0, 2**16, 7):  # a third of a million calls is too slow; every 7th is plenty
        sign, exponent = bits >> 15, (bits >> m_bits) & ((1 << e_bits) - 1)
        got = impl.decode(sign, exponent, bits & ((1 << m_bits) - 1), fmt)
        want = float(expected[bits])
        case = (
            "NaN: exponent all ones, mantissa not 0" if math.isnan(want)
            else "an infinity: exponent all ones, mantissa 0" if math.isinf(want)
            else "a subnormal: exponent 0 means 2**(1 - bias) * (mantissa / 2**M), no leading 1"
            if exponent == 0 else "a normal number: 2**(exponent - bias) * (1 + mantissa / 2**M)"
        )  # fmt: skip
        where = f"decode({sign}, {exponent}, {bits & ((1 << m_bits) - 1)}, {fmt!r}) gave {got!r}"
        if math.isnan(want):
            assert math.isnan(got), f"{where}; the pattern {hex(bits)} is {case}"
        else:
            assert got == want and math.copysign(1, got) == math.copysign(1, want), (
                f"{where}, not {want!r}: the pattern {hex(bits)} is {case}"
            )


@pytest.mark.exercise("1.2")
def test_decode_float32_specials(impl):
    assert impl.decode(0, 0, 1, "float32") == float(np.finfo(np.float32).smallest_subnormal)
    assert impl.decode(1, 255, 0, "float32") == -math.inf
    assert math.copysign(1, impl.decode(1, 0, 0, "float32")) == -1.0


@pytest.mark.exercise("1.3")
def test_round_to_bfloat16_matches_minigenesis_cast(impl):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000)).astype(np.float32)
    # exact ties (the low 16 bits are 0x8000), with even and odd kept parts
    ties = (np.arange(1, 65, dtype=np.uint32) << 16 | 0x3F800000 | 0x8000).view(np.float32)
    x = np.concatenate([x, ties, -ties, [np.finfo(np.float32).max, 0.0, -0.0]]).astype(np.float32)
    want = mg.tensor(x).to(mg.bfloat16).float().numpy()
    got = impl.round_to_bfloat16(x)
    assert got.dtype == np.float32 and got.shape == x.shape
    wrong = got != want
    ties_only = wrong.any() and (x.view(np.uint32)[wrong] & 0xFFFF == 0x8000).all()
    np.testing.assert_array_equal(
        got, want, err_msg="every wrong value is an exact tie (low 16 bits 0x8000): ties round "
        "to EVEN, so add 0x7FFF + ((bits >> 16) & 1), not 0x8000" if ties_only else "",
    )  # fmt: skip


@pytest.mark.exercise("1.3")
def test_round_to_bfloat16_is_not_truncation(impl):
    x = np.array([1.0 + 2.0**-7 * 0.75], dtype=np.float32)  # 3/4 of the way to the next bf16
    assert impl.round_to_bfloat16(x)[0] == np.float32(1.0 + 2.0**-7)


@pytest.mark.exercise("1.3")
def test_round_to_bfloat16_leaves_its_input_alone(impl):
    x = np.array([1.0 + 2.0**-7 * 0.75, -3.3, 1e-3], dtype=np.float32)
    kept = x.copy()
    impl.round_to_bfloat16(x)
    assert np.array_equal(x, kept), (
        "round_to_bfloat16 changed the caller's array: x.view(np.uint32) shares x's memory, so "
        "`bits += ...` writes into x; use `bits = bits + ...` (a new array)"
    )


@pytest.mark.exercise("1.3")
def test_round_to_bfloat16_is_written_by_hand(impl):
    x = np.array([1.0, 1.0 + 2.0**-7 * 0.75, -3.3], dtype=np.float32)
    _by_hand(
        lambda: impl.round_to_bfloat16(x),
        impl.round_to_bfloat16,
        "add the rounding bias to the uint32 view yourself",
    )


@pytest.mark.exercise("1.4")
def test_format_limits_are_worked_out_by_hand(impl):
    _by_hand(
        lambda: impl.format_limits("bfloat16"), impl.format_limits, "compute them from E and M"
    )


@pytest.mark.exercise("1.4")
@pytest.mark.parametrize("fmt", ["float32", "float16", "bfloat16"])
def test_format_limits_match_finfo(impl, fmt):
    info = ml_dtypes.finfo(STORAGE[fmt][0]) if fmt == "bfloat16" else np.finfo(STORAGE[fmt][0])
    limits = impl.format_limits(fmt)
    assert limits["max"] == float(info.max)
    assert limits["tiny"] == float(info.smallest_normal)
    assert limits["eps"] == float(info.eps)


@pytest.mark.exercise("1.5")
@pytest.mark.parametrize("shape", [(5,), (2, 3), (2, 3, 4), (4, 1, 7, 2), (1,), ()])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
def test_contiguous_strides_match_numpy(impl, shape, dtype):
    want = np.empty(shape, dtype=dtype).strides
    got = tuple(impl.contiguous_strides(shape, np.dtype(dtype).itemsize))
    assert got == want, (
        f"contiguous_strides({shape}, {np.dtype(dtype).itemsize}) gave {got}, NumPy's are {want}: "
        "the last axis steps by the itemsize, and each axis by the itemsize times the sizes of "
        "the axes AFTER it (not including its own)"
    )


@pytest.mark.exercise("1.5")
def test_contiguous_strides_of_a_shape_too_big_to_allocate(impl):
    # 2**60 float64 elements (8 EiB): strides are arithmetic on the shape, no array is needed
    try:
        got = impl.contiguous_strides((2**20, 2**20, 2**20), 8)
    except (MemoryError, ValueError) as err:
        raise AssertionError(
            f"contiguous_strides made an array of the shape ({type(err).__name__}: {err}): "
            "compute the strides from the shape alone, right to left"
        ) from err
    assert tuple(got) == (8 * 2**40, 8 * 2**20, 8)


NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64",
         "float16", "bfloat16", "float32", "float64"]  # fmt: skip


@pytest.mark.exercise("1.6")
def test_promote_matches_minigenesis_for_every_pair(impl):
    for a in NAMES:
        for b in NAMES:
            want = mg.promote_types(getattr(mg, a), getattr(mg, b)).name
            assert impl.promote(a, b) == want, (a, b)


@pytest.mark.exercise("1.6")
def test_promote_is_written_by_hand(impl):
    _by_hand(
        lambda: impl.promote("uint8", "int8"), impl.promote, "apply the docstring's rules yourself"
    )


@pytest.mark.exercise("1.6")
def test_promote_quirks_documented_by_pytorch(impl):
    assert impl.promote("float16", "bfloat16") == "float32"
    assert impl.promote("uint8", "int8") == "int16"
    assert impl.promote("bool", "uint8") == "uint8"
    assert impl.promote("int64", "float16") == "float16"  # any float beats any integer


# ----------------------------------------------------------------------------- 1.7
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("b69c22504c68b35d", "83745ce13d240f0e77f1c58bc092d7f25cc8dc19aac335c495cc500c5f3c66a4"),
    "q2": ("6cd99a6e2a4c28be", "92f1cda2d4442b2151b2372fc14096a0824a59a0e76504d2b476a1a8daec1bb8"),
    "q3": ("6960dd1864315161", "37e376e1d995d184b88b001a30884b2e5c599f5b691c2f7315306de426cdb939"),
    "q4": ("efff2afc3ba83666", "8ce7e7d845ff8da47694d4e3bf6c36f954f1052d94b84d41d797ad28802faa48"),
}
QUIZ_HINTS = {
    "q1": (
        "Re-read 'Mixing dtypes: type promotion': what does a Python number contribute, its "
        "dtype or only its kind?"
    ),
    "q2": (
        "Compare the smallest positive float32 with the spacing of float32 values near 1.0 "
        "('Range and precision, side by side')."
    ),
    "q3": (
        "Work out x's own strides in bytes first ('Memory layout: shape and strides'), then "
        "what a transpose changes."
    ),
    "q4": ("Re-read 'Rounding to bfloat16': what is the sign of the error truncation makes?"),
}


@pytest.mark.exercise("1.7")
@pytest.mark.parametrize("question", list(QUIZ))
def test_1_7_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
