"""Attention's Q, K, V gradients on the CPU written where their inputs live (kernels/attention.py):
the heads cut from one projection get their gradients in one array, and Split's backward takes
that array as the concatenation without a copy. The values must be those of separate inputs, and
inputs that overlap (q = k = v) must never share one gradient buffer."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import attention

B, T, H, E = 2, 5, 3, 4
C = H * E


def _heads(t):
    return t.reshape(B, T, H, E).transpose(1, 2)


def flat(a):
    """(n, H, T, E) heads back to (n, T, H * E)."""
    return a.transpose(0, 2, 1, 3).reshape(a.shape[0], T, C)


def _separate_grads(q, k, v, g, causal: bool) -> list:
    """dL/dq, dL/dk, dL/dv with q, k, v as three contiguous leaves (no shared memory)."""
    leaves = [mg.tensor(np.ascontiguousarray(a), requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*leaves, is_causal=causal)
    out.backward(mg.tensor(g))
    return [t.grad.numpy() for t in leaves]


def test_split_projection_gradient_equals_concatenated_separate_gradients(monkeypatch):
    made = []
    real = attention.shared_gradients
    monkeypatch.setattr(attention, "shared_gradients", lambda *a: made.append(real(*a)) or made[-1])
    rng = np.random.default_rng(0)
    qkv = mg.tensor(rng.standard_normal((B, T, 3 * C)), requires_grad=True)
    q, k, v = (_heads(t) for t in qkv.split(C, dim=2))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    parts = _separate_grads(q.detach().numpy(), k.detach().numpy(), v.detach().numpy(), g, True)
    expected = np.concatenate([p.transpose(0, 2, 1, 3).reshape(B, T, C) for p in parts], axis=2)
    np.testing.assert_allclose(qkv.grad.numpy(), expected, rtol=1e-12, atol=1e-14)
    assert made and made[0] is not None  # the shared path was taken


def test_retained_head_gradients_keep_their_values():
    rng = np.random.default_rng(1)
    qkv = mg.tensor(rng.standard_normal((B, T, 3 * C)), requires_grad=True)
    heads = [_heads(t) for t in qkv.split(C, dim=2)]
    for t in heads:
        t.retain_grad()
    out = F.scaled_dot_product_attention(*heads)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    parts = _separate_grads(*(t.detach().numpy() for t in heads), g, False)
    for t, p in zip(heads, parts):
        np.testing.assert_allclose(t.grad.numpy(), p, rtol=1e-12, atol=1e-14)


def test_one_view_as_query_key_and_value_gets_the_sum_of_three_gradients():
    rng = np.random.default_rng(2)
    big = mg.tensor(rng.standard_normal((B, T, 2 * C)), requires_grad=True)
    x = _heads(big[:, :, :C])  # a view of a larger array, passed three times
    out = F.scaled_dot_product_attention(x, x, x, is_causal=True)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    xs = x.detach().numpy()
    total = sum(_separate_grads(xs, xs, xs, g, True)).transpose(0, 2, 1, 3).reshape(B, T, C)
    np.testing.assert_allclose(big.grad.numpy()[:, :, :C], total, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(big.grad.numpy()[:, :, C:], 0.0)


def test_shared_gradients_refuses_overlapping_views():
    base = np.zeros((B, T, 2 * C))
    x = base[:, :, :C].reshape(B, T, H, E).transpose(0, 2, 1, 3)
    assert attention.shared_gradients((x, x, x), base.dtype) is None
    y = base[:, :, 2:].reshape(B, T, 2 * C - 2)[:, :, :C]  # overlaps x without being it
    assert attention.shared_gradients((x[..., :2], y[:, None, :, :2]), base.dtype) is None


def test_adjacent_pieces_only_when_they_tile_one_array():
    base = np.arange(24.0).reshape(2, 12)
    pieces = np.split(base, [4, 8], axis=1)
    whole = attention.adjacent_pieces(tuple(pieces), 1)
    np.testing.assert_array_equal(whole, base)
    assert attention.adjacent_pieces(tuple(pieces[:2]), 1) is None  # not all of it
    assert attention.adjacent_pieces((pieces[1], pieces[0], pieces[2]), 1) is None  # order
    assert attention.adjacent_pieces((pieces[0], None, pieces[2]), 1) is None


def test_expanded_key_view_of_the_projection_gets_the_sum_over_its_copies():
    rng = np.random.default_rng(3)
    qkv = mg.tensor(rng.standard_normal((B, T, 3 * C)), requires_grad=True)
    q = _heads(qkv[:, :, :C])
    k = qkv[:1, :, C : 2 * C].reshape(1, T, H, E).transpose(1, 2).expand(B, H, T, E)  # stride 0
    v = _heads(qkv[:, :, 2 * C :])
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    g = rng.standard_normal(out.shape)
    out.backward(mg.tensor(g))
    gq, gk, gv = _separate_grads(
        q.detach().numpy(), k.detach().numpy(), v.detach().numpy(), g, True
    )
    got = qkv.grad.numpy()
    np.testing.assert_allclose(got[:, :, :C], flat(gq), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[:1, :, C : 2 * C], flat(gk.sum(0, keepdims=True)), rtol=1e-12)
    np.testing.assert_array_equal(got[1:, :, C : 2 * C], 0.0)
    np.testing.assert_allclose(got[:, :, 2 * C :], flat(gv), rtol=1e-12, atol=1e-14)
