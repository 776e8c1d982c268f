"""PyTorch raises the exception types that exception_type_cases.py expects (so the table that
test_exception_types.py checks minigenesis against is PyTorch's)."""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from .exception_type_cases import CASES, raised  # noqa: E402


@pytest.mark.parametrize("call, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pytorch_raises_the_expected_exception_type(call, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        err = raised(call, torch)
    assert err is not None, "PyTorch ran without raising"
    assert type(err) is expected, f"PyTorch raised {type(err).__name__}: {err}"
