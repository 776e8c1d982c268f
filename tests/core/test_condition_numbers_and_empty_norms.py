"""linalg.cond of singular matrices (inf in the norms that need the inverse, as PyTorch, where
inv raises), of empty matrices (0), and the norms' refusals and values on empty input. The
oracle is the definition ||A|| ||A^-1|| with NumPy's norms."""

import math

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("p", [1, -1, math.inf, -math.inf, "fro"])
def test_cond_of_a_singular_matrix_is_inf_in_a_batch(p):
    a = np.random.default_rng(0).standard_normal((3, 4, 4))
    a[1] = np.outer(np.ones(4), [1.0, 2.0, 3.0, 4.0])  # equal rows: exact zero pivots
    a[2] = 0
    got = mg.linalg.cond(mg.tensor(a), p).numpy()
    want = np.linalg.norm(a[0], p) * np.linalg.norm(np.linalg.inv(a[0]), p)
    np.testing.assert_allclose(got[0], want, rtol=1e-10)
    assert got[1] == math.inf and got[2] == math.inf


def test_cond_nuc_is_the_sum_of_singular_values_times_the_sum_of_their_reciprocals():
    a = np.random.default_rng(1).standard_normal((2, 3, 3))
    s = np.linalg.svd(a, compute_uv=False)
    got = mg.linalg.cond(mg.tensor(a), "nuc").numpy()
    np.testing.assert_allclose(got, s.sum(-1) * (1 / s).sum(-1), rtol=1e-12)


def test_cond_gradient_through_the_inverse_matches_central_differences():
    a = np.random.default_rng(2).standard_normal((3, 3)) + 3 * np.eye(3)
    x = mg.tensor(a, requires_grad=True)
    (g,) = mg.autograd.grad(mg.linalg.cond(x, 1), x)

    def f(m):
        return np.linalg.norm(m, 1) * np.linalg.norm(np.linalg.inv(m), 1)

    num = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[i] = 1e-6
        num[i] = (f(a + e) - f(a - e)) / 2e-6
    np.testing.assert_allclose(g.numpy(), num, rtol=1e-5, atol=1e-7)


def test_cond_and_norms_of_empty_matrices():
    assert mg.linalg.cond(mg.zeros(2, 0, 0), 1).tolist() == [0.0, 0.0]
    assert mg.linalg.cond(mg.zeros(0, 0)).item() == 0.0
    assert mg.linalg.matrix_norm(mg.zeros(0, 3), ord=2).item() == 0.0
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        mg.linalg.matrix_norm(mg.zeros(3))
    with pytest.raises(RuntimeError, match="identity"):
        mg.linalg.vector_norm(mg.zeros(0), ord=-1)
    with pytest.raises(RuntimeError, match="identity"):
        mg.linalg.vector_norm(mg.zeros(2, 0), ord=math.inf, dim=1)
    assert mg.linalg.vector_norm(mg.zeros(2, 0), ord=-1, dim=0).shape == (0,)
