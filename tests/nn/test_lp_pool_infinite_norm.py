"""lp_pool with p = +-inf: the limit of the p-norm, each window's largest (smallest) |x|."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _windows_abs(x: np.ndarray, k: int, s: int) -> np.ndarray:
    """|x|'s windows of a (N, C, L) array: (N, C, L_out, k), no padding, floor mode."""
    n_out = (x.shape[-1] - k) // s + 1
    return np.stack([np.abs(x[..., o * s : o * s + k]) for o in range(n_out)], axis=-2)


@pytest.mark.parametrize("p, reduce", [(float("inf"), np.max), (-float("inf"), np.min)])
def test_lp_pool1d_infinite_norm_is_the_window_extreme_of_abs(p, reduce):
    x = np.random.default_rng(0).standard_normal((2, 3, 9)) * 3
    got = F.lp_pool1d(mg.tensor(x), p, 3, 2)
    np.testing.assert_array_equal(got.numpy(), reduce(_windows_abs(x, 3, 2), axis=-1))


def test_lp_pool2d_infinite_norm_matches_finite_norms_limit_and_its_gradient():
    x = np.random.default_rng(1).uniform(0.5, 2.0, (1, 2, 4, 6))
    t = mg.tensor(x, requires_grad=True)
    y = F.lp_pool2d(t, float("inf"), (2, 3))
    # the large-p norm tends to the max
    np.testing.assert_allclose(
        y.detach().numpy(), F.lp_pool2d(mg.tensor(x), 400.0, (2, 3)).numpy(), rtol=5e-3
    )
    y.sum().backward()
    # d max|x| / dx: sign(x) at each window's maximum, 0 elsewhere (windows do not overlap here)
    want = np.zeros_like(x)
    for i in range(2):
        for j in range(2):
            w = x[:, :, 2 * i : 2 * i + 2, 3 * j : 3 * j + 3].reshape(1, 2, -1)
            for c in range(2):
                a, b = divmod(int(np.argmax(np.abs(w[0, c]))), 3)
                want[0, c, 2 * i + a, 3 * j + b] = 1.0
    np.testing.assert_array_equal(t.grad.numpy(), want)


def test_lp_pool3d_module_with_infinite_norm_unbatched():
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 5))
    got = mg.nn.LPPool3d(float("inf"), 2, 1)(mg.tensor(x)).numpy()
    want = np.zeros((2, 2, 3, 4))
    for d, h, w in np.ndindex(2, 3, 4):
        want[:, d, h, w] = np.abs(x[:, d : d + 2, h : h + 2, w : w + 2]).reshape(2, -1).max(-1)
    np.testing.assert_array_equal(got, want)
