"""The LU family and the other less common linear algebra: linalg.lu_factor(_ex), lu, lu_solve,
solve_ex, inv_ex, tensorinv, tensorsolve, vander, householder_product. Oracles: the defining
identities (A = P L U, A X = B), NumPy's linalg and vander, the reflectors multiplied out in
NumPy, and float64 central differences for every gradient."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.gradcheck import gradcheck

rng = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 5), (5, 3), (2, 1, 4, 2)])
def test_lu_reconstructs_a_with_partial_pivoting(shape):
    a = rng.standard_normal(shape)
    p, l_, u = (t.numpy() for t in mg.linalg.lu(mg.tensor(a)))
    k = min(shape[-2:])
    assert l_.shape == shape[:-1] + (k,) and u.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_allclose(p @ l_ @ u, a, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(np.diagonal(l_, axis1=-2, axis2=-1), 1.0)
    np.testing.assert_array_equal(np.triu(l_, 1), 0.0)
    np.testing.assert_array_equal(np.tril(u, -1), 0.0)
    assert np.abs(l_).max() <= 1.0  # each pivot was its column's largest entry
    np.testing.assert_array_equal(p.sum(-1), 1.0)  # a permutation matrix


def test_lu_factor_packs_l_and_u_with_lapacks_one_based_pivots():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
    lu, piv = mg.linalg.lu_factor(mg.tensor(a))
    assert piv.dtype == mg.int32 and piv.tolist() == [3, 3, 3]
    # by hand: swap rows 1 and 3; multipliers 1/7 and 4/7; then rows 2 and 3 swap again
    l_ = np.tril(lu.numpy(), -1) + np.eye(3)
    u = np.triu(lu.numpy())
    perm = [2, 0, 1]  # rows of A in the order the swaps left them
    np.testing.assert_allclose(l_ @ u, a[perm], rtol=1e-14)
    np.testing.assert_allclose(lu.numpy()[1:, 0], [1 / 7, 4 / 7], rtol=1e-15)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2)])
def test_lu_factor_gradient_matches_central_differences(shape):
    a = mg.tensor(rng.standard_normal(shape) + 3 * np.eye(*shape), requires_grad=True)
    assert gradcheck(lambda a: mg.linalg.lu_factor(a)[0], (a,), eps=1e-6, atol=1e-7)
    assert gradcheck(lambda a: mg.linalg.lu(a).L.sum(-1) + mg.linalg.lu(a).U.sum(-2).sum(), (a,))
    v = mg.tensor(rng.standard_normal(shape))

    def first_derivative(a):  # differentiated again: the backward is made of ops
        return mg.autograd.grad((mg.linalg.lu_factor(a)[0] * v).sum(), a, create_graph=True)[0]

    assert gradcheck(first_derivative, (a,), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_solves_every_form(left, adjoint):
    a = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    lu, piv = mg.linalg.lu_factor(mg.tensor(a))
    x = mg.linalg.lu_solve(lu, piv, mg.tensor(b), left=left, adjoint=adjoint).numpy()
    m = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose(m @ x if left else x @ m, b, rtol=1e-10, atol=1e-12)


def test_lu_solve_gradients_reach_lu_and_b():
    lu, piv = mg.linalg.lu_factor(mg.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3)))
    lu = lu.detach().requires_grad_()
    b = mg.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    for adjoint in (False, True):

        def solve(lu, b, adjoint=adjoint):
            return mg.linalg.lu_solve(lu, piv, b, adjoint=adjoint)

        assert gradcheck(solve, (lu, b), atol=1e-7)


def test_solve_ex_and_inv_ex_report_a_singular_matrix_in_info():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    res, info = mg.linalg.solve_ex(mg.tensor(a), mg.ones(2, 2, dtype=mg.float64))
    assert info.dtype == mg.int32 and info.tolist() == [0, 2]
    np.testing.assert_array_equal(res.numpy()[0], [1.0, 1.0])
    assert np.isinf(res.numpy()[1]).all()  # the zero pivot divides, as LAPACK's
    inverse, info = mg.linalg.inv_ex(mg.tensor(a))
    assert info.tolist() == [0, 2] and np.isinf(inverse.numpy()[1]).all()
    with pytest.raises(mg.linalg.LinAlgError, match=r"Batch element 1"):
        mg.linalg.inv_ex(mg.tensor(a), check_errors=True)
    with pytest.raises(mg.linalg.LinAlgError, match="singular"):
        mg.linalg.solve_ex(mg.tensor(a), mg.ones(2, 2, dtype=mg.float64), check_errors=True)
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero"):
        mg.linalg.lu_factor(mg.tensor(a))


def test_solve_ex_and_inv_ex_of_regular_matrices_are_solve_and_inv_with_gradients():
    a = mg.tensor(rng.standard_normal((3, 3)) + 3 * np.eye(3), requires_grad=True)
    b = mg.tensor(rng.standard_normal(3), requires_grad=True)
    x, info = mg.linalg.solve_ex(a, b)
    assert info.item() == 0
    np.testing.assert_allclose(a.detach().numpy() @ x.detach().numpy(), b.detach().numpy())
    assert gradcheck(lambda a, b: mg.linalg.solve_ex(a, b).result, (a, b))
    assert gradcheck(lambda a: mg.linalg.inv_ex(a).inverse, (a,))


def test_tensorinv_and_tensorsolve_match_numpy():
    a = rng.standard_normal((4, 6, 8, 3))
    np.testing.assert_allclose(
        mg.linalg.tensorinv(mg.tensor(a), ind=2).numpy(), np.linalg.tensorinv(a, ind=2), rtol=1e-9
    )
    a = rng.standard_normal((2, 3, 6))
    b = rng.standard_normal((2, 3))
    np.testing.assert_allclose(
        mg.linalg.tensorsolve(mg.tensor(a), mg.tensor(b)).numpy(),
        np.linalg.tensorsolve(a, b),
        rtol=1e-9,
    )
    a = rng.standard_normal((6, 2, 3))  # dims=0: A's dim 0 moves to the end first
    np.testing.assert_allclose(
        mg.linalg.tensorsolve(mg.tensor(a), mg.tensor(b), dims=(0,)).numpy(),
        np.linalg.tensorsolve(a, b, axes=(0,)),
        rtol=1e-9,
    )
    with pytest.raises(RuntimeError, match="prod"):
        mg.linalg.tensorinv(mg.tensor(rng.standard_normal((2, 3))), ind=1)


def test_tensorinv_gradient_matches_central_differences():
    a = mg.tensor(
        rng.standard_normal((2, 2, 4)) + 2 * np.eye(4).reshape(2, 2, 4), requires_grad=True
    )
    assert gradcheck(lambda a: mg.linalg.tensorinv(a, ind=2), (a,))


def test_vander_matches_numpys_increasing_powers_and_keeps_integers():
    x = np.array([0.0, 1.5, -2.0, 3.0])
    np.testing.assert_allclose(
        mg.linalg.vander(mg.tensor(x)).numpy(), np.vander(x, increasing=True), rtol=1e-15
    )
    np.testing.assert_allclose(
        mg.linalg.vander(mg.tensor(x), N=2).numpy(), np.vander(x, 2, increasing=True)
    )
    got = mg.linalg.vander(mg.tensor([1, 2, 3]))
    assert got.dtype == mg.int64 and got.tolist() == [[1, 1, 1], [1, 2, 4], [1, 3, 9]]
    t = mg.tensor(x, requires_grad=True)  # a zero entry too: d x^1 / dx = 1 there
    assert gradcheck(lambda t: mg.linalg.vander(t, N=4), (t,))


def _householder_numpy(a, tau):
    m, n = a.shape
    q = np.eye(m)
    for i in range(len(tau)):
        v = np.concatenate([np.zeros(i), [1.0], a[i + 1 :, i]])
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q[:, :n]


def test_householder_product_multiplies_the_reflectors_out():
    a, tau = rng.standard_normal((5, 3)), rng.standard_normal(2)
    got = mg.linalg.householder_product(mg.tensor(a), mg.tensor(tau)).numpy()
    np.testing.assert_allclose(got, _householder_numpy(a, tau), rtol=1e-12, atol=1e-14)
    # with geqrf's tau = 2 / |v|^2 each reflector is orthogonal, so Q has orthonormal columns
    v_tau = []
    for i in range(3):
        v = np.concatenate([[1.0], a[i + 1 :, i]])
        v_tau.append(2 / (v @ v))
    q = mg.linalg.householder_product(mg.tensor(a), mg.tensor(v_tau)).numpy()
    np.testing.assert_allclose(q.T @ q, np.eye(3), atol=1e-12)
    at = mg.tensor(a, requires_grad=True)
    tt = mg.tensor(tau, requires_grad=True)
    assert gradcheck(mg.linalg.householder_product, (at, tt))
