"""nn.utils.parametrizations.orthogonal: the weight starts as the Q of the weight's QR (diag R >
0; rows for a wide weight), stays orthogonal through optimizer steps under each map, and each
map computes its closed form of the unconstrained tensor X: base @ expm(L - L^T), base @ the
Cayley transform of it, or the product of Householder reflectors. NumPy is the oracle (QR, a
Taylor series for expm, solve)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.utils.parametrizations import orthogonal

RNG = np.random.default_rng(0)


def qr_positive(a: np.ndarray) -> np.ndarray:
    q, r = np.linalg.qr(a)
    return q * np.sign(np.diag(r))


def expm(a: np.ndarray) -> np.ndarray:
    """exp(a) by scaling and squaring a 30-term Taylor series (float64)."""
    s = max(0, int(np.ceil(np.log2(max(np.abs(a).sum(1).max(), 1e-12)))) + 1)
    b, term, out = a / 2**s, np.eye(len(a)), np.eye(len(a))
    for k in range(1, 30):
        term = term @ b / k
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def layer(shape, **kw):
    lin = nn.Linear(shape[1], shape[0])
    w = RNG.standard_normal(shape)
    with mg.no_grad():
        lin.weight.copy_(mg.tensor(w, dtype=mg.float32))
    return orthogonal(lin, **kw), w.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
def test_weight_starts_as_the_qr_factor_of_the_original_weight(shape) -> None:
    lin, w = layer(shape)
    want = qr_positive(w) if shape[0] >= shape[1] else qr_positive(w.T).T
    np.testing.assert_allclose(lin.weight.detach().numpy(), want, atol=2e-6)
    original = lin.parametrizations.weight.original.detach().numpy()
    np.testing.assert_array_equal(original, -np.eye(*shape))  # X = -I maps to Q = I
    assert "parametrizations.weight.0.base" in lin.state_dict()


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6)])
def test_weight_stays_orthogonal_while_training(shape, orthogonal_map) -> None:
    if orthogonal_map == "householder" and shape[0] == shape[1]:
        shape = (5, 4)
    lin, _ = layer(shape, orthogonal_map=orthogonal_map)
    x = mg.tensor(RNG.standard_normal((8, shape[1])), dtype=mg.float32)
    opt = mg.optim.SGD(lin.parameters(), lr=0.2)
    before = lin.weight.detach().numpy().copy()
    for _ in range(5):
        loss = lin(x)[:, 0].sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    w = lin.weight.detach().numpy().astype(np.float64)
    gram = w.T @ w if shape[0] >= shape[1] else w @ w.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-5)
    assert np.abs(w - before).max() > 1e-3  # it moved


@pytest.mark.parametrize("orthogonal_map", ["matrix_exp", "cayley"])
def test_square_maps_are_their_closed_forms_of_x(orthogonal_map) -> None:
    lin, w = layer((4, 4), orthogonal_map=orthogonal_map)
    x = 0.3 * RNG.standard_normal((4, 4))
    with mg.no_grad():
        lin.parametrizations.weight.original.copy_(mg.tensor(x, dtype=mg.float32))
    x = x.astype(np.float32).astype(np.float64)
    a = np.tril(x) - np.tril(x).T
    if orthogonal_map == "matrix_exp":
        q = expm(a)
    else:
        q = np.linalg.solve(np.eye(4) - a / 2, np.eye(4) + a / 2)
    np.testing.assert_allclose(lin.weight.detach().numpy(), qr_positive(w) @ q, atol=1e-5)


def test_householder_without_trivialization_assigns_the_qr_factor() -> None:
    lin = orthogonal(nn.Linear(4, 6), orthogonal_map="householder", use_trivialization=False)
    a = RNG.standard_normal((6, 4))
    lin.weight = mg.tensor(a, dtype=mg.float32)
    want = qr_positive(a.astype(np.float32).astype(np.float64))
    np.testing.assert_allclose(lin.weight.detach().numpy(), want, atol=2e-6)
    assert "parametrizations.weight.0.base" not in lin.state_dict()


def test_refusals_match_pytorch() -> None:
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
    with pytest.raises(ValueError, match="matrix or batch of matrices"):
        orthogonal(nn.Linear(3, 3), name="bias")
    lin = orthogonal(nn.Linear(3, 3), use_trivialization=False)
    with pytest.raises(NotImplementedError, match="use_trivialization=False"):
        lin.weight = mg.eye(3)


def test_registration_keeps_the_original_when_right_inverse_is_not_implemented() -> None:
    """matrix_exp without the trivialization has no right inverse: at registration the weight
    itself becomes X (PyTorch catches the NotImplementedError there), so the layer's weight is
    expm(L - L^T) of the old weight."""
    lin, w = layer((3, 3), use_trivialization=False)
    np.testing.assert_array_equal(
        lin.parametrizations.weight.original.detach().numpy(), w.astype(np.float32)
    )
    a = np.tril(w) - np.tril(w).T
    np.testing.assert_allclose(lin.weight.detach().numpy(), expm(a), atol=1e-5)
