"""LowerCholeskyTransform, PositiveDefiniteTransform and CumulativeDistributionTransform
against NumPy: the maps and their inverses (on the lower triangle, all a non-injective map
keeps), the codomains, transform_to's registrations, and the cdf transform's Jacobian as the
density (central differences of the cdf)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

D = mg.distributions
X = np.random.default_rng(0).normal(size=(2, 3, 3))


def _lower_cholesky(x: np.ndarray) -> np.ndarray:
    return np.tril(x, -1) + np.exp(np.diagonal(x, 0, -2, -1))[..., None] * np.eye(x.shape[-1])


def test_lower_cholesky_transform_maps_onto_cholesky_factors_and_back():
    t = D.LowerCholeskyTransform()
    y = t(mg.tensor(X))
    np.testing.assert_allclose(y.numpy(), _lower_cholesky(X), rtol=1e-15)
    assert bool(t.codomain.check(y).all())
    kept = np.tril(X)  # the upper triangle is dropped: the inverse recovers the rest
    np.testing.assert_allclose(t.inv(y).numpy(), kept, rtol=1e-12, atol=1e-15)
    assert t == D.LowerCholeskyTransform() and t != D.PositiveDefiniteTransform()


def test_positive_definite_transform_is_l_l_transpose_and_inverts_by_cholesky():
    t = D.PositiveDefiniteTransform()
    y = t(mg.tensor(X))
    lower = _lower_cholesky(X)
    np.testing.assert_allclose(y.numpy(), lower @ np.swapaxes(lower, -1, -2), rtol=1e-12)
    assert (np.linalg.eigvalsh(y.numpy()) > 0).all() and bool(t.codomain.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), np.tril(X), rtol=1e-10, atol=1e-12)
    with pytest.raises(NotImplementedError):
        t.log_abs_det_jacobian(mg.tensor(X), y)


def test_transform_to_the_matrix_constraints():
    assert isinstance(D.transform_to(D.constraints.lower_cholesky), D.LowerCholeskyTransform)
    assert isinstance(D.transform_to(D.constraints.positive_definite), D.PositiveDefiniteTransform)


def test_cumulative_distribution_transform_is_the_cdf_with_the_density_as_jacobian():
    normal = D.Normal(mg.tensor(0.3, dtype=mg.float64), mg.tensor(1.7, dtype=mg.float64))
    t = D.CumulativeDistributionTransform(normal)
    x = np.array([-2.0, 0.1, 1.5])
    y = t(mg.tensor(x))
    cdf = np.array([0.5 * (1 + math.erf((v - 0.3) / (1.7 * math.sqrt(2)))) for v in x])
    np.testing.assert_allclose(y.numpy(), cdf, rtol=1e-12)
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-10)
    h = 1e-6
    slope = (t(mg.tensor(x + h)).numpy() - t(mg.tensor(x - h)).numpy()) / (2 * h)
    np.testing.assert_allclose(
        np.exp(t.log_abs_det_jacobian(mg.tensor(x), y).numpy()), slope, rtol=1e-7
    )
    assert t.sign == 1 and t.domain is normal.support and t.with_cache(1) is not t
    # a copula: a Gaussian pushed through its own cdf is uniform
    u = D.TransformedDistribution(normal, [t])
    np.testing.assert_allclose(u.log_prob(mg.tensor([0.2, 0.7])).numpy(), 0.0, atol=1e-12)
