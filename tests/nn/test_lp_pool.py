"""LPPool1d/2d/3d: each window's p-norm, against NumPy loops over the windows, with PyTorch's
ceil_mode rule (a window cut short is scaled like a whole one) and its repr."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_lp_pool2d_is_the_p_norm_of_each_window(p: float) -> None:
    x = np.random.default_rng(0).uniform(0.1, 2.0, (1, 2, 4, 6))
    got = mg.nn.LPPool2d(p, (2, 3))(mg.tensor(x)).numpy()
    for n, c, i, j in itertools.product(range(1), range(2), range(2), range(2)):
        window = x[n, c, 2 * i : 2 * i + 2, 3 * j : 3 * j + 3]
        np.testing.assert_allclose(got[n, c, i, j], (window**p).sum() ** (1 / p), rtol=1e-12)


def test_lp_pool1d_with_ceil_mode_scales_a_short_window_like_a_whole_one() -> None:
    x = np.array([[[1.0, 2.0, 3.0, 4.0, 5.0]]])
    got = mg.nn.LPPool1d(2, 2, ceil_mode=True)(mg.tensor(x)).numpy()[0, 0]
    # windows [1, 2], [3, 4] and the short [5]: its mean of squares 25 times the kernel size 2
    np.testing.assert_allclose(got, [np.sqrt(5), 5.0, np.sqrt(50)], rtol=1e-12)


def test_lp_pool3d_of_ones_is_the_window_size_to_the_one_over_p() -> None:
    got = mg.nn.LPPool3d(3, 2)(mg.ones(1, 1, 4, 4, 4, dtype=mg.float64)).numpy()
    np.testing.assert_allclose(got, 8 ** (1 / 3), rtol=1e-12)


def test_lp_pool_repr() -> None:
    m = mg.nn.LPPool2d(2, 3, stride=2)
    assert repr(m) == "LPPool2d(norm_type=2, kernel_size=3, stride=2, ceil_mode=False)"
