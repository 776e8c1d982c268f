"""nn.AdaptiveLogSoftmaxWithLoss against a NumPy reference built from its own weights: the
shortlist's log-probabilities from the head, each cluster's as its head log-probability plus
the log_softmax of its two-layer projection; forward's (output, loss), log_prob, predict, the
gradient of the loss (central differences in float64), and the constructor's and forward's
errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def _ref_log_prob(m: nn.AdaptiveLogSoftmaxWithLoss, x: np.ndarray) -> np.ndarray:
    head = x @ m.head.weight.detach().numpy().T
    if m.head.bias is not None:
        head = head + m.head.bias.detach().numpy()
    head = _log_softmax(head)
    cols = [head[:, : m.shortlist_size]]
    for j, proj in enumerate(m.tail):
        w1, w2 = (lin.weight.detach().numpy() for lin in proj)
        cols.append(_log_softmax(x @ w1.T @ w2.T) + head[:, m.shortlist_size + j, None])
    return np.concatenate(cols, 1)


def _module(head_bias=False, div_value=2.0):
    mg.manual_seed(0)
    return nn.AdaptiveLogSoftmaxWithLoss(
        8, 10, [3, 6], div_value=div_value, head_bias=head_bias
    ).double()


def test_sizes_follow_the_cutoffs_and_div_value():
    m = _module()
    assert m.head.weight.shape == (3 + 2, 8)
    assert [tuple(lin.weight.shape) for proj in m.tail for lin in proj] == [
        (4, 8),
        (3, 4),
        (2, 8),
        (4, 2),
    ]


@pytest.mark.parametrize("head_bias", [False, True])
def test_forward_log_prob_and_predict_match_the_reference(head_bias):
    m = _module(head_bias)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 8))
    target = np.array([0, 2, 3, 5, 6, 9, 4])
    ref = _ref_log_prob(m, x)
    np.testing.assert_allclose(np.exp(ref).sum(1), 1.0, rtol=1e-12)  # a distribution
    out, loss = m(mg.tensor(x), mg.tensor(target))
    np.testing.assert_allclose(out.detach().numpy(), ref[np.arange(7), target], rtol=1e-12)
    np.testing.assert_allclose(loss.item(), -ref[np.arange(7), target].mean(), rtol=1e-12)
    np.testing.assert_allclose(m.log_prob(mg.tensor(x)).detach().numpy(), ref, rtol=1e-12)
    np.testing.assert_array_equal(m.predict(mg.tensor(x)).numpy(), ref.argmax(1))


def test_forward_returns_a_named_tuple_and_takes_an_unbatched_row():
    m = _module()
    x = np.random.default_rng(1).standard_normal(8)
    res = m(mg.tensor(x), mg.tensor(7))
    assert res._fields == ("output", "loss") and res.output.shape == ()
    np.testing.assert_allclose(res.output.item(), _ref_log_prob(m, x[None])[0, 7], rtol=1e-12)


def test_loss_gradient_to_input_and_weights_matches_central_differences():
    m = _module(head_bias=True)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((5, 8))
    target = np.array([1, 4, 8, 9, 0])
    xt = mg.tensor(x, requires_grad=True)
    m(xt, mg.tensor(target)).loss.backward()

    def loss_of(a):
        return -_ref_log_prob(m, a)[np.arange(5), target].mean()

    eps, num = 1e-6, np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += eps
        lo[idx] -= eps
        num[idx] = (loss_of(hi) - loss_of(lo)) / (2 * eps)
    np.testing.assert_allclose(xt.grad.numpy(), num, atol=1e-8)
    w = m.tail[1][1].weight  # a cluster's output layer gets a gradient only from its rows
    assert w.grad is not None and np.abs(w.grad.numpy()).sum() > 0


def test_constructor_and_forward_errors():
    with pytest.raises(ValueError, match="length larger than 0"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [])
    for bad in ([5, 3], [0, 3], [3, 10], [3, 3], [2.5]):
        with pytest.raises(ValueError, match="unique, positive integers sorted"):
            nn.AdaptiveLogSoftmaxWithLoss(4, 10, bad)
    m = _module()
    with pytest.raises(RuntimeError, match="same size in the batch dimension"):
        m(mg.randn(3, 8).double(), mg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input"):
        m(mg.randn(2, 1, 8).double(), mg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="0D target tensor expects 1D input"):
        m(mg.randn(2, 8).double(), mg.tensor(1))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        m(mg.randn(2, 8).double(), mg.tensor([[1, 2]]))
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(mg.randn(2, 8).double(), mg.tensor([1, 10]))


def test_a_cluster_projection_of_width_zero_is_uniform_within_its_cluster():
    """in_features // div_value = 0 (PyTorch's default div_value with few features): the tail's
    hidden layer has no units, its logits are all 0, each class of the cluster gets log(1/size)."""
    mg.manual_seed(0)
    m = nn.AdaptiveLogSoftmaxWithLoss(3, 7, [2]).double()  # hidden width 3 // 4 = 0
    x = np.random.default_rng(3).standard_normal((4, 3))
    xt = mg.tensor(x, requires_grad=True)
    out, loss = m(xt, mg.tensor([0, 2, 5, 6]))
    ref = _ref_log_prob(m, x)
    np.testing.assert_allclose(ref[:, 2:] - ref[:, 2:3], 0.0, atol=1e-15)
    np.testing.assert_allclose(out.detach().numpy(), ref[np.arange(4), [0, 2, 5, 6]], rtol=1e-12)
    loss.backward()
    assert xt.grad.shape == (4, 3) and m.tail[0][0].weight.grad.shape == (0, 3)
