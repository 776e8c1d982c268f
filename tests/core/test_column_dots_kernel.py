"""kernels.sums.column_dots (BatchNorm's per-column sums of products) is NumPy's einsum
"nc,nc->c" without its Python wrapper: the same bits, and the sums a float64 reference gives."""

from __future__ import annotations

import numpy as np
import pytest

from minigenesis.kernels.sums import column_dots


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(32, 200), (5, 3), (1, 7)])
def test_column_dots_are_einsums_bits_and_the_float64_sums(shape, dtype):
    rng = np.random.default_rng(1)
    a = rng.standard_normal(shape).astype(dtype)
    b = rng.standard_normal(shape).astype(dtype)
    got = column_dots(a, b)
    assert got.dtype == dtype and got.shape == shape[1:]
    np.testing.assert_array_equal(got, np.einsum("nc,nc->c", a, b))
    exact = (a.astype(np.float64) * b.astype(np.float64)).sum(axis=0)
    np.testing.assert_allclose(got, exact, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_column_dots_of_a_strided_view():
    a = np.arange(24.0).reshape(4, 6)[:, ::2]  # columns 0, 2, 4
    np.testing.assert_array_equal(column_dots(a, a), (a * a).sum(axis=0))
