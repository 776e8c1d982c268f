"""Bad input to nn layers raises PyTorch's exception type (the table: exception_type_cases.py),
checked without PyTorch; test_exception_types_parity.py checks the table against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
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


def test_batch_norm_without_per_channel_tensors_takes_any_channel_count() -> None:
    """affine=False and track_running_stats=False: nothing is sized by num_features, so PyTorch
    normalises whatever channels come (each over its batch); with a weight or running buffers
    the count must match (RuntimeError)."""
    x = mg.randn(5, 3, 2)
    y = mg.nn.BatchNorm1d(4, affine=False, track_running_stats=False)(x)
    a = np.asarray(x._data, np.float64)
    mean, var = a.mean(axis=(0, 2), keepdims=True), a.var(axis=(0, 2), keepdims=True)
    np.testing.assert_allclose(y._data, (a - mean) / np.sqrt(var + 1e-5), rtol=1e-5, atol=1e-5)
    for layer in (mg.nn.BatchNorm1d(4), mg.nn.BatchNorm1d(4, track_running_stats=False)):
        with pytest.raises(RuntimeError):
            layer(x)
