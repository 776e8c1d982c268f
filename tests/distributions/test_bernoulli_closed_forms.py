"""Bernoulli's log_prob, entropy and KL, and Categorical's, against their float64 closed forms:
values, first derivatives (at logit 0 too, where a kinked softplus gave the wrong slope) and the
second derivative of log_prob."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.distributions import Bernoulli, Categorical, kl_divergence


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


LOGITS = [0.0, -2.0, 3.5, 40.0, -40.0]


@pytest.mark.parametrize("logit", LOGITS)
@pytest.mark.parametrize("value", [0.0, 1.0])
def test_bernoulli_log_prob_gradient_in_logits_is_value_minus_sigmoid(logit, value):
    lt = mg.tensor([logit], dtype=mg.float64, requires_grad=True)
    lp = Bernoulli(logits=lt).log_prob(mg.tensor([value], dtype=mg.float64))
    expected = value * logit - np.logaddexp(0.0, logit)
    np.testing.assert_allclose(lp.item(), expected, rtol=1e-14, atol=1e-300)
    (g,) = mg.autograd.grad(lp.sum(), lt, create_graph=True)
    np.testing.assert_allclose(g.item(), value - _sigmoid(logit), rtol=1e-12, atol=1e-300)
    (h,) = mg.autograd.grad(g.sum(), lt)
    s = _sigmoid(logit)
    np.testing.assert_allclose(h.item(), -s * (1 - s), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("p", [0.5, 0.1, 0.9, 0.3])
def test_bernoulli_entropy_and_its_gradient_in_probs(p):
    pt = mg.tensor(p, dtype=mg.float64, requires_grad=True)
    h = Bernoulli(probs=pt).entropy()
    np.testing.assert_allclose(h.item(), -p * np.log(p) - (1 - p) * np.log1p(-p), rtol=1e-13)
    h.backward()
    np.testing.assert_allclose(pt.grad.item(), np.log((1 - p) / p), atol=1e-12)


@pytest.mark.parametrize("logit", LOGITS[:3])
def test_bernoulli_entropy_gradient_in_logits(logit):
    lt = mg.tensor(logit, dtype=mg.float64, requires_grad=True)
    Bernoulli(logits=lt).entropy().backward()
    s = _sigmoid(logit)
    np.testing.assert_allclose(lt.grad.item(), -logit * s * (1 - s), atol=1e-14)


@pytest.mark.parametrize("p, q", [(0.5, 0.5), (0.2, 0.7), (0.9, 0.4), (0.5, 0.01)])
def test_bernoulli_kl_value_and_gradients_match_the_closed_form(p, q):
    pt = mg.tensor(p, dtype=mg.float64, requires_grad=True)
    qt = mg.tensor(q, dtype=mg.float64, requires_grad=True)
    kl = kl_divergence(Bernoulli(probs=pt), Bernoulli(probs=qt))
    expected = p * np.log(p / q) + (1 - p) * np.log((1 - p) / (1 - q))
    np.testing.assert_allclose(kl.item(), expected, rtol=1e-12, atol=1e-15)
    kl.backward()
    np.testing.assert_allclose(
        pt.grad.item(), np.log(p / q) - np.log((1 - p) / (1 - q)), atol=1e-12
    )
    np.testing.assert_allclose(qt.grad.item(), -p / q + (1 - p) / (1 - q), rtol=1e-12)


def test_bernoulli_kl_at_the_edges_is_infinite_or_uses_zero_log_zero():
    def kl(p, q):
        return kl_divergence(
            Bernoulli(probs=mg.tensor(p, dtype=mg.float64)),
            Bernoulli(probs=mg.tensor(q, dtype=mg.float64)),
        ).item()

    assert kl(0.5, 0.0) == np.inf
    assert kl(0.5, 1.0) == np.inf
    np.testing.assert_allclose(kl(0.0, 0.25), np.log(1 / 0.75), rtol=1e-12)
    np.testing.assert_allclose(kl(1.0, 0.25), np.log(4.0), rtol=1e-12)


def test_categorical_log_prob_entropy_and_kl_gradients_in_logits():
    """log p_k = l_k - logsumexp(l): d/dl = e_k - softmax(l); entropy H: dH/dl_j =
    -p_j (log p_j + H); KL(p || q) with both from logits: d/dl_p = p * (log p - log q - KL)."""
    lp = np.array([0.0, 0.0, 1.5, -0.5])
    lq = np.array([0.3, -1.0, 0.0, 0.0])

    def softmax(v):
        e = np.exp(v - v.max())
        return e / e.sum()

    p, q = softmax(lp), softmax(lq)
    a = mg.tensor(lp, requires_grad=True)
    Categorical(logits=a).log_prob(mg.tensor(2)).backward()
    np.testing.assert_allclose(a.grad.numpy(), np.eye(4)[2] - p, atol=1e-14)
    a = mg.tensor(lp, requires_grad=True)
    Categorical(logits=a).entropy().backward()
    h = -(p * np.log(p)).sum()
    np.testing.assert_allclose(a.grad.numpy(), -p * (np.log(p) + h), atol=1e-14)
    a, b = mg.tensor(lp, requires_grad=True), mg.tensor(lq, requires_grad=True)
    kl = kl_divergence(Categorical(logits=a), Categorical(logits=b))
    expected = (p * (np.log(p) - np.log(q))).sum()
    np.testing.assert_allclose(kl.item(), expected, rtol=1e-13)
    kl.backward()
    np.testing.assert_allclose(a.grad.numpy(), p * (np.log(p) - np.log(q) - expected), atol=1e-14)
    np.testing.assert_allclose(b.grad.numpy(), q - p, atol=1e-14)
