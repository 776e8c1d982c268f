"""Bad input to nn layers raises PyTorch's exception type (the table: exception_type_cases.py),
checked without PyTorch; test_exception_types_parity.py checks the table against PyTorch."""

from __future__ import annotations

import warnings

import pytest

import minigenesis as mg

from .exception_type_cases import CASES, raised


@pytest.mark.parametrize("call, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_pytorchs_exception_type(call, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the broadcasting losses warn before they raise
        err = raised(call, mg)
    assert err is not None, "ran without raising"
    assert type(err) is expected, f"raised {type(err).__name__}: {err}"
    assert str(err), "the message is empty"
