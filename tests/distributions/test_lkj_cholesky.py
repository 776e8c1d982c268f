"""LKJCholesky and CorrCholeskyTransform against closed forms and float64 central differences:
the 2 x 2 density (1 - r^2)^(eta - 1) / (2^(2 eta - 1) B(eta, eta)) integrating to 1, the
off-diagonal's second moment 1 / (2 eta + dim - 1), unit-length rows, the transform's inverse and
its log |det J|, and the tril <-> vector helpers against NumPy's tril_indices."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.distributions import LKJCholesky, biject_to, constraints, transform_to
from minigenesis.distributions.transforms import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
)
from minigenesis.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix


@pytest.mark.parametrize("eta", [0.5, 1.0, 3.0])
def test_lkj_density_of_two_by_two_factors_is_the_closed_form_and_integrates_to_one(eta):
    r = np.linspace(-0.999, 0.999, 4001)
    factors = np.zeros((r.size, 2, 2))
    factors[:, 0, 0], factors[:, 1, 0], factors[:, 1, 1] = 1.0, r, np.sqrt(1 - r**2)
    log_p = LKJCholesky(2, mg.tensor(eta, dtype=mg.float64)).log_prob(mg.tensor(factors)).numpy()
    log_beta = 2 * math.lgamma(eta) - math.lgamma(2 * eta)
    closed = (eta - 1) * np.log1p(-(r**2)) - (2 * eta - 1) * math.log(2) - log_beta
    np.testing.assert_allclose(log_p, closed, rtol=1e-10, atol=1e-10)
    if eta >= 1:  # (eta < 1 has integrable poles at +-1 the grid cannot resolve)
        assert abs(np.trapezoid(np.exp(log_p), r) - 1.0) < 2e-3


@pytest.mark.parametrize("dim, eta", [(2, 1.0), (3, 2.0), (5, 0.7)])
def test_lkj_samples_are_correlation_factors_with_the_known_second_moment(dim, eta):
    mg.manual_seed(0)
    s = LKJCholesky(dim, mg.tensor(eta, dtype=mg.float64)).sample((4000,))
    assert s.shape == (4000, dim, dim)
    assert bool(constraints.corr_cholesky.check(s).all())
    corr = (s @ s.mT).numpy()
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, atol=1e-12)
    r2 = corr[:, dim - 1, 0] ** 2  # every off-diagonal entry has marginal Beta on (-1, 1)
    expected = 1 / (2 * eta + dim - 1)
    assert abs(r2.mean() - expected) < 4 * r2.std() / math.sqrt(r2.size)


def test_lkj_shapes_expand_and_bad_dim():
    d = LKJCholesky(3, mg.tensor([1.0, 2.0]))
    assert d.batch_shape == (2,) and d.event_shape == (3, 3)
    assert d.sample((5,)).shape == (5, 2, 3, 3)
    e = d.expand((4, 2))
    assert e.sample().shape == (4, 2, 3, 3) and e.log_prob(e.sample()).shape == (4, 2)
    with pytest.raises(ValueError, match="greater than or equal to 2"):
        LKJCholesky(1)


def test_corr_cholesky_transform_gives_unit_rows_and_inverts():
    x = mg.tensor(np.random.default_rng(0).standard_normal((3, 10)))
    t = CorrCholeskyTransform()
    y = t(x)
    assert y.shape == (3, 5, 5) and bool(constraints.corr_cholesky.check(y).all())
    np.testing.assert_allclose(t.inv(y).numpy(), x.numpy(), atol=1e-10)
    assert t.forward_shape((3, 10)) == (3, 5, 5) and t.inverse_shape((3, 5, 5)) == (3, 10)
    assert isinstance(biject_to(constraints.corr_cholesky), CorrCholeskyTransform)
    assert isinstance(transform_to(constraints.corr_cholesky), CorrCholeskyTransform)


def test_corr_cholesky_log_det_is_the_jacobian_of_the_free_entries():
    x0 = np.random.default_rng(1).standard_normal(6)  # a 4 x 4 factor

    def free(x):
        return tril_matrix_to_vec(CorrCholeskyTransform()(mg.tensor(x)), diag=-1).numpy()

    h = 1e-6
    jac = np.stack([(free(x0 + h * e) - free(x0 - h * e)) / (2 * h) for e in np.eye(6)], 1)
    x = mg.tensor(x0)
    log_det = CorrCholeskyTransform().log_abs_det_jacobian(x, CorrCholeskyTransform()(x)).item()
    assert abs(log_det - np.linalg.slogdet(jac)[1]) < 1e-7


def test_tril_vector_helpers_follow_numpy_row_major_order():
    for diag in (0, -1):
        rows, cols = np.tril_indices(4, k=diag)
        vec = np.arange(1.0, rows.size + 1)
        mat = vec_to_tril_matrix(mg.tensor(vec), diag=diag).numpy()
        expected = np.zeros((4, 4))
        expected[rows, cols] = vec
        np.testing.assert_array_equal(mat, expected)
        np.testing.assert_array_equal(tril_matrix_to_vec(mg.tensor(mat), diag=diag).numpy(), vec)
    with pytest.raises(ValueError, match="lower triangular part"):
        vec_to_tril_matrix(mg.ones(4))


def test_the_matrix_transforms_are_importable_from_the_transforms_module():
    assert LowerCholeskyTransform is mg.distributions.LowerCholeskyTransform
    assert PositiveDefiniteTransform is mg.distributions.PositiveDefiniteTransform
