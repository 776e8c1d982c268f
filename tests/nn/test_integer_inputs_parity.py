"""PyTorch does what integer_input_cases.py expects with integer and bool inputs (so the table
that test_integer_inputs.py checks minigenesis against is PyTorch's)."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from .integer_input_cases import CASES, outcome  # noqa: E402


@pytest.mark.parametrize("call, dtype, want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pytorch_refuses_or_keeps_integer_inputs_as_the_table_says(call, dtype, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = outcome(call, torch, dtype)
    if want == "same":
        assert got == dtype, f"PyTorch: expected a {dtype} result, got {got!r}"
    else:
        assert type(got) is want, f"PyTorch: expected {want.__name__}, got {got!r}"
