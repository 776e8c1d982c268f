"""``mg.testing.assert_allclose``, the deprecated form old tests call: a FutureWarning, its own
default tolerances (float64 |a - e| <= 1e-8 + 1e-5 |e|; float32 1e-5 + 1e-4 |e|; the loosest
of the two dtypes), NaNs equal by default, dtypes free to differ, lists taken as tensors."""

from __future__ import annotations

import warnings

import pytest

import minigenesis as mg
from minigenesis.testing import assert_allclose


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        yield


def test_assert_allclose_warns_that_it_is_deprecated():
    with pytest.warns(FutureWarning, match="assert_close"):
        assert_allclose(mg.tensor([1.0]), mg.tensor([1.0]))


def test_float64_default_tolerance_is_1e_5_relative_plus_1e_8():
    one = mg.tensor([1.0], dtype=mg.float64)
    assert_allclose(one, mg.tensor([1.0 + 0.9e-5], dtype=mg.float64))
    with pytest.raises(AssertionError, match="not close"):
        assert_allclose(one, mg.tensor([1.0 + 1.2e-5], dtype=mg.float64))


def test_mixed_dtypes_take_the_looser_float32_tolerance():
    one = mg.tensor([1.0], dtype=mg.float64)
    assert_allclose(one, mg.tensor([1.0001], dtype=mg.float32))  # 1e-4 apart: within 1.1e-4
    with pytest.raises(AssertionError):
        assert_allclose(one, mg.tensor([1.0003], dtype=mg.float32))


def test_nans_are_equal_by_default_and_lists_are_converted():
    assert_allclose(mg.tensor([float("nan"), 2.0]), [float("nan"), 2.0])
    assert_allclose([1, 2], [1, 2])  # exact for integers
    with pytest.raises(AssertionError):
        assert_allclose([1, 2], [1, 3])
    with pytest.raises(AssertionError):
        assert_allclose(mg.tensor([float("nan")]), [float("nan")], equal_nan=False)


def test_explicit_tolerances_replace_the_defaults():
    assert_allclose(mg.tensor([1.0]), [1.5], rtol=0.0, atol=0.6)
    with pytest.raises(AssertionError, match="custom message"):
        assert_allclose(mg.tensor([1.0]), [1.5], rtol=0.0, atol=0.1, msg="custom message")
