"""Edge cases of torch.range's element count and histogram's default edges, against closed forms
and NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg


def _range(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return mg.range(*args, **kw)


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.int8, mg.int16])
def test_integer_range_truncates_start_end_and_step_before_counting(dtype):
    # in int64: start -1, end -5, step -1 -> five values (not the three of -1, -2.5, -4)
    r = _range(-1, -5, -1.5, dtype=dtype)
    np.testing.assert_array_equal(r.numpy(), [-1, -2, -3, -4, -5])
    assert r.dtype is dtype
    # start 0.5 -> 0 and the end 3 is included
    np.testing.assert_array_equal(_range(0.5, 3, dtype=dtype).numpy(), [0, 1, 2, 3])


def test_integer_range_refuses_a_step_that_truncates_to_zero():
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        _range(0, 1, 0.1, dtype=mg.int64)


def test_float_range_keeps_fractional_steps():
    np.testing.assert_allclose(_range(-1, -5, -1.5).numpy(), [-1.0, -2.5, -4.0])
    np.testing.assert_allclose(_range(0, 1, 0.25).numpy(), [0, 0.25, 0.5, 0.75, 1.0])


def test_half_range_counts_in_float32():
    # (0.9f - 0) / 0.3f is just under 3 in float32: 3 values; in float64 it is just over: 4
    n32 = int((np.float32(0.9) - np.float32(0)) / np.float32(0.3)) + 1
    assert n32 == 3
    assert _range(0, 0.9, 0.3, dtype=mg.float16).shape == (n32,)
    assert _range(0, 0.9, 0.3, dtype=mg.float32).shape == (4,)


@pytest.mark.parametrize("bins", [1, 3])
@pytest.mark.parametrize("dtype", [mg.float32, mg.float64])
def test_histogram_of_no_elements_spans_zero_to_one(bins, dtype):
    hist, edges = mg.histogram(mg.tensor([], dtype=dtype), bins=bins)
    np_hist, np_edges = np.histogram(np.array([]), bins=bins)
    np.testing.assert_allclose(edges.numpy(), np_edges, rtol=1e-6)
    np.testing.assert_array_equal(hist.numpy(), np_hist)


def test_histogram_edges_are_the_symmetric_linspace():
    # float32 edges of [0, 1] in 3 bins: step = 1/3 rounded to float32; the upper half counts
    # down from the end: 1 - step, which is one ulp under float32(2/3)
    step = np.float32(1) / np.float32(3)
    hist, edges = mg.histogram(mg.tensor([], dtype=mg.float32), bins=3)
    np.testing.assert_array_equal(
        edges.numpy(), np.array([0, step, np.float32(1) - step, 1], dtype=np.float32)
    )
    np.testing.assert_array_equal(edges.numpy(), mg.linspace(0, 1, 4).numpy())


@pytest.mark.parametrize("data", [[1.0, float("nan")], [1.0, float("inf")]])
def test_histogram_refuses_a_range_that_is_not_finite(data):
    with pytest.raises(RuntimeError, match="not finite"):
        mg.histogram(mg.tensor(data), bins=2)
    # with a finite range given, a NaN is simply not counted (NumPy agrees)
    hist, _ = mg.histogram(mg.tensor(data), bins=2, range=(0.0, 3.0))
    np_hist, _ = np.histogram(np.array(data), bins=2, range=(0.0, 3.0))
    np.testing.assert_array_equal(hist.numpy(), np_hist)


def test_histogramdd_returns_a_named_tuple_with_a_tuple_of_edges():
    pts = np.array([[0.0, 1.0], [0.5, 0.5], [1.0, 0.0]])
    out = mg.histogramdd(mg.tensor(pts), bins=[2, 2])
    np_hist, np_edges = np.histogramdd(pts, bins=[2, 2])
    assert type(out).__name__ == "histogramdd"
    assert isinstance(out.bin_edges, tuple) and len(out.bin_edges) == 2
    np.testing.assert_array_equal(out.hist.numpy(), np_hist)
    for got, want in zip(out.bin_edges, np_edges, strict=True):
        np.testing.assert_allclose(got.numpy(), want)


def test_bincount_of_no_elements_is_int64_zeros_even_with_weights():
    # PyTorch's kernel returns zeros(minlength, int64) for an empty input before it looks at
    # the weights; with elements, float64 sums (float32 for float32 weights)
    out = mg.bincount(mg.tensor([], dtype=mg.int64), weights=mg.tensor([]), minlength=3)
    assert out.dtype is mg.int64 and out.tolist() == [0, 0, 0]
    out = mg.bincount(mg.tensor([1, 1]), weights=mg.tensor([0.5, 0.25]))
    assert out.dtype is mg.float32 and out.tolist() == [0.0, 0.75]
