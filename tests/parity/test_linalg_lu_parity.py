"""PyTorch parity: linalg.lu_factor(_ex), lu, lu_solve, solve_ex, inv_ex, tensorinv,
tensorsolve, vander and householder_product: values, pivots, info and gradients in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

rng = np.random.default_rng(3)


def _grads(fn_mg, fn_torch, *arrays, seed=0):
    """Outputs (a tensor or a tuple's first element) and the gradients of a random projection."""
    m = [mg.tensor(a, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    ym, yt = fn_mg(*m), fn_torch(*t)
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = np.random.default_rng(seed).standard_normal(tuple(yt.shape))
    (ym * mg.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    for a, b in zip(m, t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (3, 5), (5, 3)])
def test_lu_factor_and_lu_match_pytorch(shape):
    a = rng.standard_normal(shape)
    _, piv = mg.linalg.lu_factor(mg.tensor(a))
    np.testing.assert_array_equal(piv.numpy(), torch.linalg.lu_factor(torch.tensor(a))[1].numpy())
    _grads(lambda x: mg.linalg.lu_factor(x)[0], lambda x: torch.linalg.lu_factor(x)[0], a)
    p = mg.linalg.lu(mg.tensor(a)).P.numpy()
    np.testing.assert_array_equal(p, torch.linalg.lu(torch.tensor(a)).P.numpy())
    _grads(lambda x: mg.linalg.lu(x).L, lambda x: torch.linalg.lu(x).L, a, seed=1)
    _grads(lambda x: mg.linalg.lu(x).U, lambda x: torch.linalg.lu(x).U, a, seed=2)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False)])
def test_lu_solve_matches_pytorch(left, adjoint):
    a = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4))
    lu_t, piv_t = torch.linalg.lu_factor(torch.tensor(a))
    piv = mg.tensor(piv_t.numpy())
    _grads(
        lambda lu, b: mg.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
        lambda lu, b: torch.linalg.lu_solve(lu, piv_t, b, left=left, adjoint=adjoint),
        lu_t.numpy(),
        b,
    )


def test_singular_solve_ex_inv_ex_and_lu_factor_ex_match_pytorch():
    a = np.stack([np.eye(3), [[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]])
    b = rng.standard_normal((2, 3))
    m, t = mg.linalg, torch.linalg
    for ours, theirs in [
        (m.solve_ex(mg.tensor(a), mg.tensor(b)), t.solve_ex(torch.tensor(a), torch.tensor(b))),
        (mg.linalg.inv_ex(mg.tensor(a)), torch.linalg.inv_ex(torch.tensor(a))),
        (mg.linalg.lu_factor_ex(mg.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))),
    ]:  # fmt: skip
        assert type(ours).__name__ == type(theirs).__name__
        for x, y in zip(ours, theirs):
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-12)
            assert x.dtype.name == str(y.dtype)[6:]


def test_tensorinv_tensorsolve_vander_householder_match_pytorch():
    _grads(lambda x: mg.linalg.tensorinv(x, ind=1), lambda x: torch.linalg.tensorinv(x, ind=1),
           rng.standard_normal((6, 2, 3)))  # fmt: skip
    _grads(mg.linalg.tensorsolve, torch.linalg.tensorsolve,
           rng.standard_normal((2, 3, 6)), rng.standard_normal((2, 3)))  # fmt: skip
    x = np.array([0.0, 1.5, -2.0, 3.0])
    _grads(lambda x: mg.linalg.vander(x, N=5), lambda x: torch.linalg.vander(x, N=5), x)
    _grads(mg.linalg.householder_product, torch.linalg.householder_product,
           rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 3)))  # fmt: skip
