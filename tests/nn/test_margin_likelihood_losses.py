"""The margin losses and the Poisson / Gaussian negative log-likelihoods against their
definitions written as NumPy loops over samples and classes, and their gradients against
float64 central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck

rng = np.random.default_rng(1)
X = rng.standard_normal((4, 3))
Y = rng.integers(0, 3, 4)


def test_multi_margin_loss_is_the_hinge_over_the_wrong_classes():
    w = np.array([0.5, 1.0, 2.0])
    for p in (1, 2):
        want = []
        for x, y in zip(X, Y):
            terms = [max(0.0, 0.8 - x[y] + x[i]) ** p for i in range(3) if i != y]
            want.append(w[y] * sum(terms) / 3)
        got = F.multi_margin_loss(
            mg.tensor(X), mg.tensor(Y), p, 0.8, mg.tensor(w), reduction="none"
        )
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize(
    "x_shape, target, out_shape",
    [((3,), [1], (1,)), ((3,), 1, ()), ((1, 3), 1, ()), ((1, 3), [1], (1,)), ((), 0, ())],
)
def test_multi_margin_loss_unreduced_is_shaped_as_its_target(x_shape, target, out_shape):
    x = np.arange(1.0, 1.0 + math.prod(x_shape)).reshape(x_shape) * 0.3
    got = F.multi_margin_loss(mg.tensor(x), mg.tensor(target), reduction="none")
    row, y = x.reshape(-1), int(np.asarray(target).reshape(-1)[0])
    want = sum(max(0.0, 1 - row[y] + v) for i, v in enumerate(row) if i != y) / row.size
    assert tuple(got.shape) == out_shape
    np.testing.assert_allclose(got.numpy(), np.full(out_shape, want), rtol=1e-12)


def test_multi_margin_loss_refuses_a_two_dim_target():
    with pytest.raises(RuntimeError, match="target"):
        F.multi_margin_loss(mg.tensor(X), mg.tensor(Y).reshape(-1, 1), reduction="none")


def test_multilabel_margin_loss_reads_targets_up_to_the_first_minus_one():
    target = np.array([[2, -1, 0], [0, 1, -1], [1, 0, 2], [-1, 1, 1]])
    want = []
    for x, t in zip(X, target):
        ts = []
        for j in t:
            if j < 0:
                break
            ts.append(j)
        others = [i for i in range(3) if i not in ts]
        want.append(sum(max(0.0, 1 - (x[j] - x[i])) for j in ts for i in others) / 3)
    got = F.multilabel_margin_loss(mg.tensor(X), mg.tensor(target), reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_embedding_and_ranking_losses_follow_their_cases():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    x1, x2 = X, rng.standard_normal((4, 3))
    cos = (x1 * x2).sum(1) / np.sqrt(((x1**2).sum(1) + 1e-12) * ((x2**2).sum(1) + 1e-12))
    want = np.where(y == 1, 1 - cos, np.maximum(0, cos - 0.2))
    got = F.cosine_embedding_loss(mg.tensor(x1), mg.tensor(x2), mg.tensor(y), 0.2, reduction="none")
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    got = F.margin_ranking_loss(
        mg.tensor(x1[:, 0]), mg.tensor(x2[:, 0]), mg.tensor(y), 0.3, reduction="none"
    )
    np.testing.assert_allclose(got.numpy(), np.maximum(0, -y * (x1[:, 0] - x2[:, 0]) + 0.3))
    yy = np.where(X > 0, 1.0, -1.0)
    got = F.hinge_embedding_loss(mg.tensor(X), mg.tensor(yy), 0.5, reduction="none")
    np.testing.assert_allclose(got.numpy(), np.where(yy == 1, X, np.maximum(0, 0.5 - X)))


def test_triplet_losses_use_the_p_norm_distance_and_the_swap():
    a, p, n = X, rng.standard_normal((4, 3)), rng.standard_normal((4, 3))

    def dist(u, v, q=2):
        return (np.abs(u - v + 1e-6) ** q).sum(1) ** (1 / q)

    d_neg = np.minimum(dist(a, n), dist(p, n))
    want = np.maximum(0, 1.0 + dist(a, p) - d_neg)
    got = F.triplet_margin_loss(
        mg.tensor(a), mg.tensor(p), mg.tensor(n), swap=True, reduction="none"
    )
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    cosine = nn.CosineSimilarity(dim=1)
    loss = nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1 - cosine(u, v), margin=0.5, reduction="sum"
    )
    cos = lambda u, v: (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)  # noqa: E731
    want = np.maximum(0, 0.5 + (1 - cos(a, p)) - (1 - cos(a, n))).sum()
    np.testing.assert_allclose(
        loss(mg.tensor(a), mg.tensor(p), mg.tensor(n)).item(), want, rtol=1e-10
    )
    with pytest.raises(ValueError, match="margin"):
        nn.TripletMarginWithDistanceLoss(margin=0)


def test_soft_margin_losses_are_logistic_losses():
    y = np.where(X > 0.3, 1.0, -1.0)
    np.testing.assert_allclose(
        F.soft_margin_loss(mg.tensor(X), mg.tensor(y)).item(), np.log1p(np.exp(-y * X)).mean()
    )
    labels = (y > 0).astype(float)
    s = 1 / (1 + np.exp(-X))
    want = -(labels * np.log(s) + (1 - labels) * np.log(1 - s)).mean(1).mean()
    got = nn.MultiLabelSoftMarginLoss()(mg.tensor(X), mg.tensor(labels))
    np.testing.assert_allclose(got.item(), want, rtol=1e-12)


def test_poisson_nll_loss_with_stirlings_term():
    k = np.array([0.0, 1.0, 2.0, 7.0])
    rate = np.array([0.5, 1.5, 2.0, 6.0])
    got = F.poisson_nll_loss(
        mg.tensor(rate), mg.tensor(k), log_input=False, full=True, reduction="none"
    )
    stirling = np.where(
        k > 1, k * np.log(np.maximum(k, 1)) - k + 0.5 * np.log(2 * np.pi * np.maximum(k, 1)), 0
    )
    np.testing.assert_allclose(got.numpy(), rate - k * np.log(rate + 1e-8) + stirling, rtol=1e-12)
    got = nn.PoissonNLLLoss()(mg.tensor(np.log(rate)), mg.tensor(k))
    np.testing.assert_allclose(got.item(), (rate - k * np.log(rate)).mean(), rtol=1e-12)


def test_gaussian_nll_loss_is_the_normal_log_density_and_clamps_var():
    mu, y, var = X, rng.standard_normal((4, 3)), rng.uniform(0.2, 2, (4, 3))
    got = nn.GaussianNLLLoss(full=True, reduction="none")(
        mg.tensor(mu), mg.tensor(y), mg.tensor(var)
    )
    want = 0.5 * (np.log(var) + (mu - y) ** 2 / var) + 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    tiny = F.gaussian_nll_loss(
        mg.tensor([0.0]), mg.tensor([0.0]), mg.tensor([0.0]), reduction="sum"
    )
    np.testing.assert_allclose(tiny.item(), 0.5 * math.log(1e-6))  # var clamped to eps


@pytest.mark.parametrize(
    "fn,args",
    [
        (lambda x: F.multi_margin_loss(x, mg.tensor(Y), p=2), (X,)),
        (lambda x: F.multilabel_soft_margin_loss(x, mg.tensor((X > 0).astype(float))), (X,)),
        (
            lambda a, b: F.cosine_embedding_loss(a, b, mg.tensor([1.0, -1, 1, -1]), -0.9),
            (X, X[::-1].copy()),
        ),
        (lambda a, b: F.triplet_margin_loss(a, b, b.flip(0), margin=3.0), (X, X[:, ::-1].copy())),
        (lambda x: F.poisson_nll_loss(x, mg.tensor(np.abs(X).round()), full=True), (X,)),
        (lambda x, v: F.gaussian_nll_loss(x, mg.tensor(X[::-1].copy()), v), (X, np.abs(X) + 0.5)),
    ],
)
def test_margin_and_likelihood_loss_gradients_match_central_differences(fn, args):
    tensors = tuple(mg.tensor(a, requires_grad=True) for a in args)
    assert gradcheck(fn, tensors, eps=1e-6, atol=1e-7)
