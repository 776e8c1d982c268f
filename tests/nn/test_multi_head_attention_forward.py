"""F.multi_head_attention_forward: multi-head attention from weights passed as arguments, against a
NumPy reference (separate q/k/v weights as OpenAI CLIP's attention pooling passes them, stacked
in_proj_weight, masks), equal to nn.MultiheadAttention given the module's own weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(0)


def t64(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def attention_ref(q, k, v, wq, wk, wv, b, wo, bo, H, kpm=None):
    """(L, N, E) multi-head attention in NumPy, one head and one batch element at a time."""
    E = wq.shape[0]
    hd = E // H
    Q, K, V = q @ wq.T + b[:E], k @ wk.T + b[E : 2 * E], v @ wv.T + b[2 * E :]
    L, N, S = q.shape[0], q.shape[1], k.shape[0]
    out, weights = np.zeros((L, N, E)), np.zeros((N, H, L, S))
    for n in range(N):
        for h in range(H):
            sl = slice(h * hd, (h + 1) * hd)
            s = Q[:, n, sl] @ K[:, n, sl].T / math.sqrt(hd)
            if kpm is not None:
                s = np.where(kpm[n][None, :], -np.inf, s)
            w = np.exp(s - s.max(-1, keepdims=True))
            w /= w.sum(-1, keepdims=True)
            weights[n, h] = w
            out[:, n, sl] = w @ V[:, n, sl]
    return out @ wo.T + bo, weights


def test_separate_projection_weights_match_numpy_with_other_key_and_value_sizes():
    E, H, kd, vd = 8, 2, 5, 3
    q, k, v = (
        RNG.standard_normal((3, 2, E)),
        RNG.standard_normal((4, 2, kd)),
        RNG.standard_normal((4, 2, vd)),
    )
    wq, wk, wv = (
        RNG.standard_normal((E, E)),
        RNG.standard_normal((E, kd)),
        RNG.standard_normal((E, vd)),
    )
    b, wo, bo = RNG.standard_normal(3 * E), RNG.standard_normal((E, E)), RNG.standard_normal(E)
    kpm = np.zeros((2, 4), dtype=bool)
    kpm[1, 2:] = True
    out, w = F.multi_head_attention_forward(
        t64(q), t64(k), t64(v), E, H, None, t64(b), None, None, False, 0.0, t64(wo), t64(bo),
        key_padding_mask=mg.tensor(kpm), use_separate_proj_weight=True,
        q_proj_weight=t64(wq), k_proj_weight=t64(wk), v_proj_weight=t64(wv),
        average_attn_weights=False,
    )  # fmt: skip
    ref_out, ref_w = attention_ref(q, k, v, wq, wk, wv, b, wo, bo, H, kpm)
    np.testing.assert_allclose(out.numpy(), ref_out, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), ref_w, atol=1e-12)


def test_clip_attention_pooling_call_matches_numpy():
    """OpenAI CLIP's AttentionPool2d: the mean token (plus positions) attends over all tokens."""
    E, H, HW, N = 8, 4, 6, 2
    x = RNG.standard_normal((HW, N, E))
    x = np.concatenate([x.mean(0, keepdims=True), x], 0)
    q_proj, k_proj, v_proj, c_proj = (nn.Linear(E, E).double() for _ in range(4))
    tx = t64(x)
    out, weights = F.multi_head_attention_forward(
        query=tx[:1], key=tx, value=tx, embed_dim_to_check=E, num_heads=H,
        q_proj_weight=q_proj.weight, k_proj_weight=k_proj.weight, v_proj_weight=v_proj.weight,
        in_proj_weight=None, in_proj_bias=mg.cat([q_proj.bias, k_proj.bias, v_proj.bias]),
        bias_k=None, bias_v=None, add_zero_attn=False, dropout_p=0, out_proj_weight=c_proj.weight,
        out_proj_bias=c_proj.bias, use_separate_proj_weight=True, training=True, need_weights=False,
    )  # fmt: skip
    assert weights is None and out.shape == (1, N, E)
    np_w = [m.weight.detach().numpy() for m in (q_proj, k_proj, v_proj, c_proj)]
    b = np.concatenate([m.bias.detach().numpy() for m in (q_proj, k_proj, v_proj)])
    ref, _ = attention_ref(x[:1], x, x, *np_w[:3], b, np_w[3], c_proj.bias.detach().numpy(), H)
    np.testing.assert_allclose(out.detach().numpy(), ref, atol=1e-12)
    out.sum().backward()  # gradients reach the projection weights passed in
    assert q_proj.weight.grad is not None and c_proj.bias.grad is not None


def test_equals_multihead_attention_module_with_its_weights():
    mg.manual_seed(0)
    m = nn.MultiheadAttention(6, 3, add_bias_kv=True, add_zero_attn=True).double()
    with mg.no_grad():
        m.in_proj_bias.normal_()
    q, k = t64(RNG.standard_normal((4, 2, 6))), t64(RNG.standard_normal((5, 2, 6)))
    mask = mg.tensor(np.triu(np.ones((4, 5), dtype=bool), k=2))
    expected = m(q, k, k, attn_mask=mask)
    got = F.multi_head_attention_forward(
        q, k, k, 6, 3, m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, True, 0.0,
        m.out_proj.weight, m.out_proj.bias, attn_mask=mask,
    )  # fmt: skip
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)


def test_dropout_only_when_training():
    E = 4
    x = t64(RNG.standard_normal((3, 1, E)))
    w, wo, bo = t64(RNG.standard_normal((3 * E, E))), t64(np.eye(E)), t64(np.zeros(E))
    args = (x, x, x, E, 2, w, None, None, None, False, 0.9, wo, bo)
    a, _ = F.multi_head_attention_forward(*args, training=False)
    b, _ = F.multi_head_attention_forward(*args[:10], 0.0, wo, bo)
    np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)
    mg.manual_seed(1)
    _, dropped = F.multi_head_attention_forward(*args, training=True, average_attn_weights=False)
    assert (dropped.numpy() == 0).any()  # weights are dropped (and rescaled) in training


def test_gradcheck_through_the_passed_weights():
    E = 4
    x = t64(RNG.standard_normal((2, 2, E)))
    w, b = t64(RNG.standard_normal((3 * E, E)), True), t64(RNG.standard_normal(3 * E), True)
    wo, bo = t64(RNG.standard_normal((E, E)), True), t64(RNG.standard_normal(E), True)

    def f(w, b, wo, bo):
        return F.multi_head_attention_forward(x, x, x, E, 2, w, b, None, None, False, 0.0, wo, bo)[
            0
        ]

    assert gradcheck(f, (w, b, wo, bo))


def test_errors_name_what_is_wrong():
    x = t64(RNG.standard_normal((2, 1, 4)))
    w, wo = t64(RNG.standard_normal((12, 4))), t64(np.eye(4))
    with pytest.raises(AssertionError, match="embed_dim_to_check"):
        F.multi_head_attention_forward(x, x, x, 5, 2, w, None, None, None, False, 0.0, wo, None)
    with pytest.raises(AssertionError, match="divisible"):
        F.multi_head_attention_forward(x, x, x, 4, 3, w, None, None, None, False, 0.0, wo, None)
    with pytest.raises(AssertionError, match="q_proj_weight"):
        F.multi_head_attention_forward(
            x,
            x,
            x,
            4,
            2,
            None,
            None,
            None,
            None,
            False,
            0.0,
            wo,
            None,
            use_separate_proj_weight=True,
        )
    with pytest.raises(NotImplementedError, match="static_k"):
        F.multi_head_attention_forward(
            x, x, x, 4, 2, w, None, None, None, False, 0.0, wo, None, static_k=x
        )
