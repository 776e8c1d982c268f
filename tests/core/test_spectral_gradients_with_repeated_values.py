"""Gradients of functions of the singular values or eigenvalues alone at matrices where some of
them repeat: dS_i = u_i^T dA v_i needs no 1/(s_i^2 - s_j^2), so the gradient is finite and, for a
symmetric function of the values, the closed form Q1 diag(f'(s)) Q2^T (and float64 central
differences) whatever basis the decomposition picked."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _orthogonal(n: int, seed: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    return q


S = np.array([2.0, 2.0, 1.0])
# (Q1, Q2): rotations (the computed values then differ in the last bits) and signed permutations
# (the values come out exactly equal: the case that divided 0 by 0)
BASES = {
    "rotated": (_orthogonal(3, 0), _orthogonal(3, 1)),
    "permuted": (np.eye(3)[[2, 0, 1]] * [1.0, -1.0, 1.0], np.eye(3)[[1, 2, 0]]),
}


def _central_differences(f, a: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(a)
    for k in np.ndindex(a.shape):
        e = np.zeros_like(a)
        e[k] = h
        g[k] = (f(a + e) - f(a - e)) / (2 * h)
    return g


def _grad(f, a: np.ndarray) -> np.ndarray:
    t = mg.tensor(a, requires_grad=True)
    f(t).backward()
    return t.grad.numpy()


@pytest.mark.parametrize(
    "name, f, f_np, slope",
    [
        (
            "svdvals cubed",
            lambda t: (mg.linalg.svdvals(t) ** 3).sum(),
            lambda a: (np.linalg.svd(a, compute_uv=False) ** 3).sum(),
            lambda s: 3 * s**2,
        ),
        (
            "svd values",
            lambda t: mg.linalg.svd(t)[1].sum(),
            lambda a: np.linalg.svd(a, compute_uv=False).sum(),
            np.ones_like,
        ),
        (
            "nuclear norm",
            lambda t: mg.linalg.matrix_norm(t, "nuc"),
            lambda a: np.linalg.norm(a, "nuc"),
            np.ones_like,
        ),
    ],
)
@pytest.mark.parametrize("basis", list(BASES))
def test_singular_value_functions_have_the_closed_form_gradient_at_a_repeated_value(
    name, f, f_np, slope, basis
):
    q1, q2 = BASES[basis]
    a = q1 @ np.diag(S) @ q2.T  # singular values 2, 2, 1
    got = _grad(f, a)
    np.testing.assert_allclose(got, q1 @ np.diag(slope(S)) @ q2.T, atol=1e-10)
    np.testing.assert_allclose(got, _central_differences(f_np, a), atol=1e-6)


def test_svdvals_of_twice_the_identity_has_the_identity_as_gradient():
    np.testing.assert_allclose(
        _grad(lambda t: mg.linalg.svdvals(t).sum(), 2 * np.eye(2)), np.eye(2)
    )


@pytest.mark.parametrize("ord_, shared", [(2, 0.5), (-2, 0.5)])
def test_spectral_norm_of_a_multiple_of_the_identity_shares_the_gradient(ord_, shared):
    """||cI||_2 = c with every singular value the largest (and smallest): the gradient is shared
    evenly among them (amax / amin), shared * I, as PyTorch."""
    got = _grad(lambda t: mg.linalg.matrix_norm(t, ord_), 3 * np.eye(2))
    np.testing.assert_allclose(got, shared * np.eye(2), atol=1e-12)


def test_condition_number_gradient_with_a_repeated_middle_singular_value():
    q1, q2 = _orthogonal(4, 2), _orthogonal(4, 3)
    s = np.array([3.0, 2.0, 2.0, 0.5])
    a = q1 @ np.diag(s) @ q2.T
    got = _grad(lambda t: mg.linalg.cond(t), a)
    expected = q1 @ np.diag([1 / s[3], 0.0, 0.0, -s[0] / s[3] ** 2]) @ q2.T
    np.testing.assert_allclose(got, expected, atol=1e-10)


@pytest.mark.parametrize("basis", ["rotated", "permuted"])
def test_eigvalsh_function_gradient_with_a_repeated_eigenvalue(basis):
    """f = sum exp(w) = trace expm(A): gradient Q diag(e^w) Q^T (symmetric), finite."""
    q = _orthogonal(3, 4) if basis == "rotated" else np.eye(3)[[1, 2, 0]]
    w = np.array([1.0, 1.0, 3.0])
    a = q @ np.diag(w) @ q.T
    got = _grad(lambda t: mg.linalg.eigvalsh(t).exp().sum(), a)
    np.testing.assert_allclose(got, q @ np.diag(np.exp(w)) @ q.T, atol=1e-10)
