"""F.normalize, F.cosine_similarity / nn.CosineSimilarity, F.pairwise_distance /
nn.PairwiseDistance and mg.cdist (direct and matmul forms): values against NumPy, float64
finite-difference gradients, the zero-vector / zero-distance cases, and torch side by side."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _np_cdist(a, b, p):
    diff = np.abs(a[..., :, None, :] - b[..., None, :, :])
    if p == np.inf:
        return diff.max(-1)
    if p == 0:
        return (diff != 0).sum(-1).astype(a.dtype)
    return (diff**p).sum(-1) ** (1 / p)


# ---------------------------------------------------------------------------------- normalize
@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, -1), (3.0, 0)])
def test_normalize_divides_by_the_p_norm(p, dim):
    x = _rand(3, 4)
    expected = x / np.maximum((np.abs(x) ** p).sum(dim, keepdims=True) ** (1 / p), 1e-12)
    np.testing.assert_allclose(F.normalize(mg.tensor(x), p, dim).numpy(), expected, rtol=1e-12)


def test_normalize_leaves_a_zero_vector_zero_and_has_finite_gradients():
    x = mg.tensor(np.zeros((2, 3)), requires_grad=True)
    y = F.normalize(x, dim=1)
    np.testing.assert_array_equal(y.detach().numpy(), 0)
    y.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_normalize_gradient_matches_finite_differences():
    x = mg.tensor(_rand(3, 4, seed=1), requires_grad=True)
    assert gradcheck(lambda t: F.normalize(t, 2.0, 1), (x,), atol=1e-8, rtol=1e-6)


# ------------------------------------------------------------------------- cosine similarity
def test_cosine_similarity_broadcasts_and_matches_the_formula():
    a, b = _rand(5, 1, 4), _rand(1, 3, 4, seed=1)
    y = F.cosine_similarity(mg.tensor(a), mg.tensor(b), dim=-1)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    expected = (a * b).sum(-1) / (na * nb)
    assert y.shape == (5, 3)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)


def test_cosine_similarity_clamps_each_norm_separately():
    a = np.array([[1e-10, 0.0]])
    b = np.array([[3.0, 4.0]])
    y = F.cosine_similarity(mg.tensor(a), mg.tensor(b), eps=1e-8)
    # ||a|| = 1e-10 is raised to eps on its own: (a / eps) . (b / 5)
    np.testing.assert_allclose(y.numpy(), [1e-10 / 1e-8 * 3 / 5], rtol=1e-12)


def test_cosine_similarity_gradient_matches_finite_differences():
    a = mg.tensor(_rand(4, 3), requires_grad=True)
    b = mg.tensor(_rand(4, 3, seed=1), requires_grad=True)
    assert gradcheck(lambda x, y: F.cosine_similarity(x, y, 1), (a, b), atol=1e-8, rtol=1e-6)


# ------------------------------------------------------------------------- pairwise distance
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_is_the_norm_of_the_shifted_difference(p, keepdim):
    a, b = _rand(4, 5), _rand(4, 5, seed=1)
    y = F.pairwise_distance(mg.tensor(a), mg.tensor(b), p, 1e-6, keepdim)
    expected = (np.abs(a - b + 1e-6) ** p).sum(-1, keepdims=keepdim) ** (1 / p)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("p, expected", [(0.0, 1.0), (1.0, 1.999999), (np.inf, 1.999999)])
def test_pairwise_distance_of_two_numbers_is_the_p_norm_of_their_difference(p, expected):
    # |1 - 3 + 1e-6| = 1.999999; the 0-norm counts the nonzero entries: 1
    y = F.pairwise_distance(mg.tensor(1.0, dtype=mg.float64), mg.tensor(3.0, dtype=mg.float64), p)
    assert y.shape == () and y.item() == pytest.approx(expected, rel=1e-12)


def test_pairwise_distance_gradient_matches_finite_differences():
    a = mg.tensor(_rand(4, 3), requires_grad=True)
    b = mg.tensor(_rand(4, 3, seed=1), requires_grad=True)
    assert gradcheck(lambda x, y: F.pairwise_distance(x, y), (a, b), atol=1e-8, rtol=1e-6)


# ---------------------------------------------------------------------------------------- cdist
@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, np.inf])
def test_cdist_matches_numpy_pairwise_norms(p):
    a, b = _rand(2, 6, 3), _rand(2, 4, 3, seed=1)
    y = mg.cdist(mg.tensor(a), mg.tensor(b), p)
    assert y.shape == (2, 6, 4)
    np.testing.assert_allclose(y.numpy(), _np_cdist(a, b, p), rtol=1e-10)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist", None])
def test_cdist_euclidean_forms_agree_on_many_points(mode):
    a, b = _rand(30, 5), _rand(40, 5, seed=1)  # > 25 rows: the default takes the matmul form
    y = mg.cdist(mg.tensor(a), mg.tensor(b), compute_mode=mode)
    np.testing.assert_allclose(y.numpy(), _np_cdist(a, b, 2), rtol=1e-9)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_gradient_matches_finite_differences(mode):
    a = mg.tensor(_rand(3, 4, 2), requires_grad=True)
    b = mg.tensor(_rand(5, 2, seed=1), requires_grad=True)  # broadcast over the batch dim
    assert gradcheck(lambda x, y: mg.cdist(x, y, compute_mode=mode), (a, b), atol=1e-7, rtol=1e-5)


@pytest.mark.parametrize("mode", ["use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist"])
def test_cdist_gradient_is_zero_at_zero_distance(mode):
    pts = np.array([[0.0, 0.0], [3.0, 4.0]])
    a = mg.tensor(pts, requires_grad=True)
    b = mg.tensor(pts[:1], requires_grad=True)
    d = mg.cdist(a, b, compute_mode=mode)
    d.sum().backward()
    # row 0 coincides with b: zero gradient; row 1 is 5 away along (3, 4)
    np.testing.assert_allclose(a.grad.numpy(), [[0, 0], [0.6, 0.8]], atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), [[-0.6, -0.8]], atol=1e-12)


def test_cdist_rejects_bad_arguments():
    with pytest.raises(RuntimeError, match="same M"):
        mg.cdist(mg.zeros(3, 2), mg.zeros(3, 4))
    with pytest.raises(ValueError, match="compute_mode"):
        mg.cdist(mg.zeros(3, 2), mg.zeros(3, 2), compute_mode="fast")
    with pytest.raises(RuntimeError, match="non-negative p"):
        mg.cdist(mg.zeros(3, 2), mg.zeros(3, 2), p=-1.0)


# ------------------------------------------------------------------------------ side by side
def test_modules_match_torch_values_gradients_and_repr():
    torch = pytest.importorskip("torch")
    a, b = _rand(4, 6), _rand(4, 6, seed=1)
    a[0] = 1e-9  # a near-zero vector: the eps clamp is active
    for ours, theirs in [
        (nn.CosineSimilarity(), torch.nn.CosineSimilarity()),
        (nn.CosineSimilarity(dim=0, eps=1e-6), torch.nn.CosineSimilarity(dim=0, eps=1e-6)),
        (nn.PairwiseDistance(), torch.nn.PairwiseDistance()),
        (nn.PairwiseDistance(1.0, 1e-4, True), torch.nn.PairwiseDistance(1.0, 1e-4, True)),
    ]:
        assert repr(ours) == repr(theirs)
        xa, ya = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
        xb, yb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
        out_a, out_b = ours(xa, ya), theirs(xb, yb)
        np.testing.assert_allclose(out_a.detach().numpy(), out_b.detach().numpy(), rtol=1e-12)
        out_a.sum().backward()
        out_b.sum().backward()
        np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(ya.grad.numpy(), yb.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_normalize_matches_torch():
    torch = pytest.importorskip("torch")
    x = _rand(3, 5)
    x[1] = 0.0
    for p, dim in [(2.0, 1), (1.0, 0)]:
        a, b = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ya, yb = F.normalize(a, p, dim), torch.nn.functional.normalize(b, p, dim)
        np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12)
        g = _rand(3, 5, seed=2)
        ya.backward(mg.tensor(g))
        yb.backward(torch.tensor(g))
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, np.inf])
@pytest.mark.parametrize("rows", [4, 30])
def test_cdist_matches_torch_values_and_gradients(p, rows):
    torch = pytest.importorskip("torch")
    a, b = _rand(2, rows, 3), _rand(2, 5, 3, seed=1)
    b[0, 0] = a[0, 0]  # one pair at zero distance
    xa, ya = mg.tensor(a, requires_grad=True), mg.tensor(b, requires_grad=True)
    xb, yb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    da, db = mg.cdist(xa, ya, p), torch.cdist(xb, yb, p)
    np.testing.assert_allclose(da.detach().numpy(), db.detach().numpy(), rtol=1e-9, atol=1e-7)
    g = _rand(*da.shape, seed=3)
    da.backward(mg.tensor(g))
    db.backward(torch.tensor(g))
    if p == 0:  # counting nonzero differences is flat: no gradient (None or zeros)
        assert xa.grad is None or not xa.grad.numpy().any()
        assert not xb.grad.numpy().any()
        return
    if p == 2 and rows > 25:
        # the matmul form's zero distance is only zero up to rounding in both libraries (the
        # ratio g/d there is large and differs): compare the other rows
        np.testing.assert_allclose(xa.grad.numpy()[:, 1:], xb.grad.numpy()[:, 1:], rtol=1e-6)
        return
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ya.grad.numpy(), yb.grad.numpy(), rtol=1e-9, atol=1e-12)
