"""A character bigram model of names written as a PyTorch program (in the manner of the
makemore lectures: a count table filled with N[ix1, ix2] += 1, probabilities normalised with
sum(1, keepdims=True), sampling with torch.multinomial and a Generator, then the same model as a
one-layer network on one-hot inputs trained by hand-written gradient descent), run unchanged on
minigenesis. Only PyTorch's names are used.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as torch
import minigenesis.nn.functional as F

WORDS = ["emma", "olivia", "ava", "isabella", "sophia", "charlotte", "mia", "amelia", "harper"]


def build_vocabulary(words):
    chars = sorted(set("".join(words)))
    stoi = {s: i + 1 for i, s in enumerate(chars)}
    stoi["."] = 0
    itos = {i: s for s, i in stoi.items()}
    return stoi, itos


def bigram_pairs(words, stoi):
    xs, ys = [], []
    for w in words:
        chs = ["."] + list(w) + ["."]
        for ch1, ch2 in zip(chs, chs[1:]):
            xs.append(stoi[ch1])
            ys.append(stoi[ch2])
    return xs, ys


def count_model(torch, words):
    """The probability table from counts (add-one smoothing) and its mean negative
    log-likelihood."""
    stoi, _ = build_vocabulary(words)
    v = len(stoi)
    N = torch.zeros((v, v), dtype=torch.int32)
    xs, ys = bigram_pairs(words, stoi)
    for ix1, ix2 in zip(xs, ys):
        N[ix1, ix2] += 1
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    logprob = P[torch.tensor(xs), torch.tensor(ys)].log()
    return P, -logprob.mean()


def train_network(torch, F, words, W0, steps=30, lr=20.0):
    """A single linear layer on one-hot characters, softmax by hand, plain gradient descent."""
    stoi, _ = build_vocabulary(words)
    xs, ys = bigram_pairs(words, stoi)
    xs, ys = torch.tensor(xs), torch.tensor(ys)
    num = xs.nelement()
    W = torch.tensor(W0, dtype=torch.float32, requires_grad=True)
    losses = []
    for _ in range(steps):
        xenc = F.one_hot(xs, num_classes=len(stoi)).float()
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[range(num), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -lr * W.grad
        losses.append(loss.item())
    return losses


def sample_names(torch, P, itos, count, seed):
    g = torch.Generator().manual_seed(seed)
    names = []
    for _ in range(count):
        out, ix = [], 0
        while True:
            ix = torch.multinomial(P[ix], num_samples=1, replacement=True, generator=g).item()
            if ix == 0:
                break
            out.append(itos[ix])
        names.append("".join(out))
    return names


def test_count_model_normalises_rows_and_samples_names_from_its_letters():
    P, nll = count_model(torch, WORDS)
    np.testing.assert_allclose(P.sum(1).numpy(), 1.0, rtol=1e-6)
    assert 1.5 < nll.item() < 3.3  # better than uniform over the letters, log(V) ~ 3.0+
    _, itos = build_vocabulary(WORDS)
    letters = set("".join(WORDS))
    for name in sample_names(torch, P, itos, 5, seed=2147483647):
        assert set(name) <= letters


def test_network_learns_the_bigrams():
    stoi, _ = build_vocabulary(WORDS)
    W0 = np.random.default_rng(0).standard_normal((len(stoi), len(stoi))).astype(np.float32)
    losses = train_network(torch, F, WORDS, W0)
    assert losses[-1] < 0.5 * losses[0]
    _, count_nll = count_model(torch, WORDS)
    assert losses[-1] < count_nll.item() + 0.5  # approaches the counting model's likelihood


def test_same_numbers_as_pytorch():
    real = pytest.importorskip("torch")
    import torch.nn.functional as real_F

    P, nll = count_model(torch, WORDS)
    P_t, nll_t = count_model(real, WORDS)
    np.testing.assert_allclose(P.numpy(), P_t.numpy(), rtol=1e-6)
    np.testing.assert_allclose(nll.item(), nll_t.item(), rtol=1e-6)
    stoi, _ = build_vocabulary(WORDS)
    W0 = np.random.default_rng(1).standard_normal((len(stoi), len(stoi))).astype(np.float32)
    ours = train_network(torch, F, WORDS, W0, steps=15)
    theirs = train_network(real, real_F, WORDS, W0, steps=15)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
