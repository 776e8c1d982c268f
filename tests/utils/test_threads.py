"""blas_threads limits the BLAS thread pools for a block and restores them (threadpoolctl's own
report is the oracle)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from minigenesis.utils.threads import blas_threads


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_blas_threads_limits_and_restores() -> None:
    np.ones((2, 2)) @ np.ones((2, 2))  # NumPy's BLAS is loaded
    before = _blas_threads()
    if not before:
        pytest.skip("threadpoolctl finds no BLAS library in this process")
    with blas_threads(1):
        assert _blas_threads() == [1] * len(before)
        np.testing.assert_array_equal(np.ones((3, 4)) @ np.ones((4, 2)), np.full((3, 2), 4.0))
    assert _blas_threads() == before


@pytest.mark.parametrize("n", [0, -1, 1.5, True, "2"])
def test_blas_threads_rejects_a_bad_count(n) -> None:
    with pytest.raises(ValueError, match="positive int"):
        with blas_threads(n):
            pass
