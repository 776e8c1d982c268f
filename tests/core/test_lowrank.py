"""mg.svd_lowrank and mg.pca_lowrank (randomized range finder, Halko et al.) against NumPy's
exact SVD in float64: on a matrix of exact rank k with q >= k, the approximation is exact up to
rounding."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _rank_k(m: int, n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)) @ rng.standard_normal((k, n))


@pytest.mark.parametrize("shape", [(30, 8), (8, 30)])
def test_svd_lowrank_recovers_the_singular_values_of_a_low_rank_matrix(shape) -> None:
    a = _rank_k(*shape, k=3)
    mg.manual_seed(0)
    U, S, V = mg.svd_lowrank(mg.tensor(a), q=4)
    assert U.shape == (shape[0], 4) and S.shape == (4,) and V.shape == (shape[1], 4)
    exact = np.linalg.svd(a, compute_uv=False)[:4]
    np.testing.assert_allclose(S.numpy(), exact, atol=1e-9)
    np.testing.assert_allclose((U.T @ U).numpy(), np.eye(4), atol=1e-9)
    np.testing.assert_allclose((V.T @ V).numpy(), np.eye(4), atol=1e-9)
    np.testing.assert_allclose((U * S @ V.T).numpy(), a, atol=1e-9)


def test_svd_lowrank_with_m_subtracts_the_matrix_m() -> None:
    a = _rank_k(20, 6, k=2) + 5.0
    mean = np.full_like(a, 5.0)
    mg.manual_seed(0)
    U, S, V = mg.svd_lowrank(mg.tensor(a), q=3, M=mg.tensor(mean[:1]))  # M broadcasts to A
    np.testing.assert_allclose(S.numpy(), np.linalg.svd(a - mean, compute_uv=False)[:3], atol=1e-9)


def test_pca_lowrank_spans_the_principal_subspace_of_the_centred_data() -> None:
    x = _rank_k(50, 7, k=2) + np.arange(7.0)
    mg.manual_seed(0)
    U, S, V = mg.pca_lowrank(mg.tensor(x), q=2)
    xc = x - x.mean(axis=0)
    _, s, vh = np.linalg.svd(xc)
    np.testing.assert_allclose(S.numpy(), s[:2], atol=1e-9)
    np.testing.assert_allclose((V @ V.T).numpy(), vh[:2].T @ vh[:2], atol=1e-9)
    np.testing.assert_allclose((U * S).numpy(), xc @ V.numpy(), atol=1e-9)


def test_pca_lowrank_default_q_and_seeded_repeats() -> None:
    x = mg.tensor(_rank_k(10, 9, k=9))
    mg.manual_seed(1)
    first = mg.pca_lowrank(x, center=False, niter=0)
    mg.manual_seed(1)
    again = mg.pca_lowrank(x, center=False, niter=0)
    assert first[1].shape == (6,)  # q = min(6, m, n)
    assert all(mg.equal(a, b) for a, b in zip(first, again))


def test_pca_lowrank_rejects_a_q_beyond_the_matrix() -> None:
    message = r"q\(=5\) must be non-negative integer and not greater than min\(m, n\)=4"
    with pytest.raises(ValueError, match=message):
        mg.pca_lowrank(mg.randn(4, 6), q=5)
    with pytest.raises(ValueError, match="niter"):
        mg.pca_lowrank(mg.randn(4, 6), niter=-1)
