"""scaled_dot_product_attention and MultiheadAttention: NumPy references, masks, dropout, finite
differences, PyTorch parity with copied weights (when importable), and argument errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(99)


def t64(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def softmax_ref(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def sdpa_ref(q, k, v, allowed=None, add=None, scale=None):
    """softmax(q k^T scale + mask) v, with rows that allow no key giving 0."""
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if add is not None:
        s = s + add
    if allowed is not None:
        s = np.where(allowed, s, -np.inf)
    dead = np.isneginf(s).all(-1, keepdims=True)
    w = softmax_ref(np.where(dead, 0.0, s)) * ~dead
    return w @ v


# ------------------------------------------------------------------------------------------------
# F.scaled_dot_product_attention
# ------------------------------------------------------------------------------------------------
def qkv(b=2, h=3, L=4, S=5, e=6, ev=7):
    return (
        RNG.standard_normal((b, h, L, e)),
        RNG.standard_normal((b, h, S, e)),
        RNG.standard_normal((b, h, S, ev)),
    )


def test_sdpa_plain_and_scale():
    q, k, v = qkv()
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v))
    np.testing.assert_allclose(got.numpy(), sdpa_ref(q, k, v), atol=1e-13)
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), scale=0.3)
    np.testing.assert_allclose(got.numpy(), sdpa_ref(q, k, v, scale=0.3), atol=1e-13)


def test_sdpa_boolean_mask_true_takes_part():
    q, k, v = qkv()
    allowed = RNG.random((4, 5)) < 0.6
    allowed[:, 0] = True
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), attn_mask=mg.tensor(allowed))
    np.testing.assert_allclose(got.numpy(), sdpa_ref(q, k, v, allowed=allowed), atol=1e-13)


def test_sdpa_float_mask_is_added():
    q, k, v = qkv()
    add = RNG.standard_normal((2, 1, 4, 5))
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), attn_mask=t64(add))
    np.testing.assert_allclose(got.numpy(), sdpa_ref(q, k, v, add=add), atol=1e-13)


@pytest.mark.parametrize("L,S", [(4, 4), (3, 5), (5, 3)])
def test_sdpa_causal_is_top_left_aligned(L, S):
    q, k, v = qkv(L=L, S=S)
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), is_causal=True)
    allowed = np.tril(np.ones((L, S), dtype=bool))
    np.testing.assert_allclose(got.numpy(), sdpa_ref(q, k, v, allowed=allowed), atol=1e-13)


def test_sdpa_query_with_no_allowed_key_gets_zeros_and_finite_grads():
    q, k, v = (t64(a, grad=True) for a in qkv(b=1, h=1))
    allowed = np.ones((4, 5), dtype=bool)
    allowed[2] = False
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(allowed))
    np.testing.assert_array_equal(out.detach().numpy()[0, 0, 2], np.zeros(7))
    out.sum().backward()
    for t in (q, k, v):
        assert np.isfinite(t.grad.numpy()).all()
    np.testing.assert_array_equal(q.grad.numpy()[0, 0, 2], np.zeros(6))


def test_sdpa_gradcheck_with_mask_and_causal():
    q, k, v = (t64(a, grad=True) for a in qkv(b=1, h=2, L=3, S=3, e=2, ev=2))
    add = t64(RNG.standard_normal((3, 3)))
    assert gradcheck(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=add), (q, k, v)
    )
    assert gradcheck(
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), (q, k, v)
    )


def test_sdpa_dropout_is_seeded_and_rescaled():
    q, k, v = (mg.tensor(a.astype(np.float32)) for a in qkv(b=4, h=4, L=16, S=16))
    plain = F.scaled_dot_product_attention(q, k, v).numpy()
    mg.manual_seed(3)
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    mg.manual_seed(3)
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    np.testing.assert_array_equal(a, b)  # the minigenesis RNG decides, so a seed replays it
    assert not np.allclose(a, plain)
    # E[dropout(w)] = w: averaged over many draws the output approaches the plain one
    mean = np.mean(
        [F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy() for _ in range(200)], axis=0
    )
    assert np.abs(mean - plain).mean() < 0.1 * np.abs(plain).mean()


def test_sdpa_grouped_query_heads():
    q = RNG.standard_normal((2, 4, 3, 5))
    k, v = RNG.standard_normal((2, 2, 6, 5)), RNG.standard_normal((2, 2, 6, 5))
    got = F.scaled_dot_product_attention(t64(q), t64(k), t64(v), enable_gqa=True)
    ref = sdpa_ref(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1))
    np.testing.assert_allclose(got.numpy(), ref, atol=1e-13)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_sdpa_with_a_mask_and_is_causal_applies_both(kind: str):
    # PyTorch accepts both: the causal mask applies on top of attn_mask
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((1, 2, 3, 4)) for _ in range(3))
    causal = np.tril(np.ones((3, 3), dtype=bool))
    if kind == "bool":
        mask = np.array([[True, False, True], [True, True, False], [False, True, True]])
        ref = sdpa_ref(q, k, v, allowed=mask & causal)
        attn_mask = mg.tensor(mask)
    else:
        mask = rng.standard_normal((3, 3))
        ref = sdpa_ref(q, k, v, allowed=causal, add=mask)
        attn_mask = t64(mask)
    got = F.scaled_dot_product_attention(
        t64(q), t64(k), t64(v), attn_mask=attn_mask, is_causal=True
    )
    np.testing.assert_allclose(got.numpy(), ref, atol=1e-13)


def test_sdpa_errors():
    q, k, v = (mg.randn(1, 2, 3, 4) for _ in range(3))
    with pytest.raises(RuntimeError, match="same embedding size"):
        F.scaled_dot_product_attention(q, mg.randn(1, 2, 3, 5), v)
    with pytest.raises(RuntimeError, match="same sequence length"):
        F.scaled_dot_product_attention(q, k, mg.randn(1, 2, 6, 4))
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \(3, 5\) does not broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=mg.ones(3, 5))


# ------------------------------------------------------------------------------------------------
# nn.MultiheadAttention
# ------------------------------------------------------------------------------------------------
def mha_ref(m, q, k, v, kpm=None, attn_mask=None):
    """Multi-head attention in NumPy from the module's own weights, (L, N, E) layout."""
    E, H = m.embed_dim, m.num_heads
    hd = E // H
    W = m.in_proj_weight.detach().numpy()
    b = m.in_proj_bias.detach().numpy()
    Q, K, V = q @ W[:E].T + b[:E], k @ W[E : 2 * E].T + b[E : 2 * E], v @ W[2 * E :].T + b[2 * E :]
    L, N, S = q.shape[0], q.shape[1], k.shape[0]
    out = np.zeros((L, N, E))
    weights = np.zeros((N, H, L, S))
    for n in range(N):
        for h in range(H):
            sl = slice(h * hd, (h + 1) * hd)
            s = Q[:, n, sl] @ K[:, n, sl].T / math.sqrt(hd)
            if attn_mask is not None:
                s = np.where(attn_mask, -np.inf, s)
            if kpm is not None:
                s = np.where(kpm[n][None, :], -np.inf, s)
            w = softmax_ref(s)
            weights[n, h] = w
            out[:, n, sl] = w @ V[:, n, sl]
    out = out @ m.out_proj.weight.detach().numpy().T + m.out_proj.bias.detach().numpy()
    return out, weights


def test_mha_matches_numpy_reference_with_masks():
    mg.manual_seed(0)
    m = nn.MultiheadAttention(8, 2).double()
    with mg.no_grad():  # non-zero biases, so the reference checks where they go
        m.in_proj_bias.copy_(t64(RNG.standard_normal(24)))
    q, k, v = (RNG.standard_normal(s) for s in ((3, 2, 8), (5, 2, 8), (5, 2, 8)))
    kpm = np.zeros((2, 5), dtype=bool)
    kpm[0, 3:] = True
    am = np.triu(np.ones((3, 5), dtype=bool), k=3)
    out, w = m(
        t64(q),
        t64(k),
        t64(v),
        key_padding_mask=mg.tensor(kpm),
        attn_mask=mg.tensor(am),
        average_attn_weights=False,
    )
    ref_out, ref_w = mha_ref(m, q, k, v, kpm, am)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, atol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), ref_w, atol=1e-12)
    _, w_avg = m(t64(q), t64(k), t64(v), key_padding_mask=mg.tensor(kpm), attn_mask=mg.tensor(am))
    np.testing.assert_allclose(w_avg.detach().numpy(), ref_w.mean(1), atol=1e-12)


def test_mha_layouts_batch_first_unbatched_and_self_attention():
    mg.manual_seed(1)
    m = nn.MultiheadAttention(6, 3).double()
    x = RNG.standard_normal((4, 2, 6))
    ref, ref_w = m(t64(x), t64(x), t64(x))  # (L, N, E)
    xt = t64(x)
    self_out, _ = m(xt, xt, xt)  # query is key is value: one fused projection
    np.testing.assert_allclose(self_out.detach().numpy(), ref.detach().numpy(), atol=1e-13)
    mb = nn.MultiheadAttention(6, 3, batch_first=True).double()
    mb.load_state_dict(m.state_dict())
    xb = t64(x.transpose(1, 0, 2))
    out_b, w_b = mb(xb, xb, xb)
    np.testing.assert_allclose(
        out_b.detach().numpy(), ref.detach().numpy().transpose(1, 0, 2), atol=1e-13
    )
    np.testing.assert_allclose(w_b.detach().numpy(), ref_w.detach().numpy(), atol=1e-13)
    out_u, w_u = m(t64(x[:, 0]), t64(x[:, 0]), t64(x[:, 0]))
    assert out_u.shape == (4, 6) and w_u.shape == (4, 4)
    np.testing.assert_allclose(out_u.detach().numpy(), ref.detach().numpy()[:, 0], atol=1e-13)
    out, w = m(t64(x), t64(x), t64(x), need_weights=False)
    assert w is None
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), atol=1e-13)


def test_mha_is_causal_equals_explicit_causal_mask():
    m = nn.MultiheadAttention(4, 2).double()
    x = t64(RNG.standard_normal((5, 1, 4)))
    future = mg.tensor(np.triu(np.ones((5, 5), dtype=bool), k=1))
    a, _ = m(x, x, x, attn_mask=future)
    b, _ = m(x, x, x, is_causal=True)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-14)


def test_mha_parameters_init_and_state_dict_names():
    mg.manual_seed(0)
    m = nn.MultiheadAttention(16, 4)
    assert list(m.state_dict()) == [
        "in_proj_weight",
        "in_proj_bias",
        "out_proj.weight",
        "out_proj.bias",
    ]
    w = m.in_proj_weight.detach().numpy()
    bound = math.sqrt(6 / (16 + 48))  # xavier_uniform on the (3E, E) matrix
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not m.in_proj_bias.detach().numpy().any() and not m.out_proj.bias.detach().numpy().any()
    m2 = nn.MultiheadAttention(8, 2, bias=False, add_bias_kv=True, kdim=3, vdim=5)
    assert list(m2.state_dict()) == [
        "q_proj_weight",
        "k_proj_weight",
        "v_proj_weight",
        "bias_k",
        "bias_v",
        "out_proj.weight",
    ]
    assert m2.k_proj_weight.shape == (8, 3) and m2.v_proj_weight.shape == (8, 5)


def test_mha_gradcheck():
    m = nn.MultiheadAttention(4, 2, add_bias_kv=True).double()
    q = t64(RNG.standard_normal((2, 1, 4)), grad=True)
    k = t64(RNG.standard_normal((3, 1, 4)), grad=True)
    kpm = mg.tensor(np.array([[False, False, True]]))
    assert gradcheck(lambda q, k: m(q, k, k, key_padding_mask=kpm)[0], (q, k))
    params = list(m.parameters())
    x = t64(RNG.standard_normal((2, 1, 4)))
    assert gradcheck(lambda *p: m(x, x, x)[0], params)


def test_mha_dropout_only_in_training():
    mg.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = mg.randn(6, 3, 8)
    m.eval()
    with mg.no_grad():
        a, _ = m(x, x, x)
        b, _ = m(x, x, x)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        m.train()
        c, _ = m(x, x, x)
    assert not np.allclose(c.numpy(), a.numpy())


def test_mha_errors_name_the_shapes():
    m = nn.MultiheadAttention(8, 2)
    x = mg.randn(3, 2, 8)
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        nn.MultiheadAttention(8, 3)
    with pytest.raises(AssertionError, match=r"query of shape \(3, 2, 6\) has embedding size 6"):
        m(mg.randn(3, 2, 6), x, x)
    with pytest.raises(RuntimeError, match=r"2-d attn_mask has shape \(3, 4\).*\(3, 3\)"):
        m(x, x, x, attn_mask=mg.zeros(3, 4, dtype=mg.bool))
    with pytest.raises(RuntimeError, match=r"3-d attn_mask.*\(4, 3, 3\)"):
        m(x, x, x, attn_mask=mg.zeros(2, 3, 3))
    with pytest.raises(AssertionError, match=r"key_padding_mask has shape \(3, 2\).*\(2, 3\)"):
        m(x, x, x, key_padding_mask=mg.zeros(3, 2, dtype=mg.bool))
    with pytest.raises(AssertionError, match="all be 3-d"):
        m(x, mg.randn(3, 8), x)


# ------------------------------------------------------------------------------------------------
# PyTorch parity (optional oracle)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mask", ["none", "bool", "float", "causal"])
def test_sdpa_torch_parity(mask):
    torch = pytest.importorskip("torch")
    q, k, v = qkv(L=5, S=5)
    kw, kwt = {}, {}
    if mask == "bool":
        m = RNG.random((5, 5)) < 0.7
        m[:, 0] = True
        kw["attn_mask"], kwt["attn_mask"] = mg.tensor(m), torch.tensor(m)
    elif mask == "float":
        m = RNG.standard_normal((2, 1, 5, 5))
        kw["attn_mask"], kwt["attn_mask"] = t64(m), torch.tensor(m)
    elif mask == "causal":
        kw["is_causal"] = kwt["is_causal"] = True
    ours = [t64(a, grad=True) for a in (q, k, v)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    a = F.scaled_dot_product_attention(*ours, **kw)
    b = torch.nn.functional.scaled_dot_product_attention(*theirs, **kwt)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-13)
    g = RNG.standard_normal(a.shape)
    a.backward(t64(g))
    b.backward(torch.tensor(g))
    for x, y in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "ctor",
    [
        dict(),
        dict(batch_first=True),
        dict(add_bias_kv=True, add_zero_attn=True),
        dict(kdim=5, vdim=3),
        dict(bias=False),
    ],
)
def test_mha_torch_parity_with_copied_weights(ctor):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    ref = torch.nn.MultiheadAttention(8, 2, **ctor).double()
    ours = nn.MultiheadAttention(8, 2, **ctor).double()
    assert list(ours.state_dict()) == list(ref.state_dict())
    ours.load_state_dict({k: t64(v.detach().numpy()) for k, v in ref.state_dict().items()})
    L, S, N = 3, 4, 2
    bf = ctor.get("batch_first", False)

    def shape(n, e):
        return (N, n, e) if bf else (n, N, e)

    q = RNG.standard_normal(shape(L, 8))
    k = RNG.standard_normal(shape(S, ctor.get("kdim", 8)))
    v = RNG.standard_normal(shape(S, ctor.get("vdim", 8)))
    kpm = np.zeros((N, S), dtype=bool)
    kpm[1, 2:] = True
    am = RNG.standard_normal((N * 2, L, S))
    for opts in (
        {},
        {"key_padding_mask": kpm, "average_attn_weights": False},
        {"attn_mask": am, "need_weights": False},
    ):
        o = {a: (mg.tensor(b) if isinstance(b, np.ndarray) else b) for a, b in opts.items()}
        ot = {a: (torch.tensor(b) if isinstance(b, np.ndarray) else b) for a, b in opts.items()}
        ours.zero_grad()
        ref.zero_grad()
        a, aw = ours(t64(q), t64(k), t64(v), **o)
        b, bw = ref(torch.tensor(q), torch.tensor(k), torch.tensor(v), **ot)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
        if bw is not None:
            np.testing.assert_allclose(aw.detach().numpy(), bw.detach().numpy(), atol=1e-12)
        a.sum().backward()
        b.sum().backward()
        theirs = dict(ref.named_parameters())
        for name, p in ours.named_parameters():
            np.testing.assert_allclose(
                p.grad.numpy(), theirs[name].grad.numpy(), atol=1e-11, err_msg=name
            )


# ------------------------------------------------------------------------------------------------
# The fused op (F.scaled_dot_product_attention) against the composed ops (ops.attention.attention)
# ------------------------------------------------------------------------------------------------
def _masks(L, S):
    allowed = RNG.random((L, S)) < 0.6
    allowed[1] = False  # a query that may attend no key: weights 0, output 0, finite gradients
    return {
        "none": ({}, None, False),
        "causal": ({"is_causal": True}, None, True),
        "bool": ({"attn_mask": mg.tensor(allowed)}, allowed, False),
        "float": ({"attn_mask": t64(RNG.standard_normal((L, S)))}, "float", False),
    }


@pytest.mark.parametrize("dropout_p", [0.0, 0.3])
@pytest.mark.parametrize("kind", ["none", "causal", "bool", "float"])
def test_fused_sdpa_matches_composed_ops_forward_and_backward(kind, dropout_p):
    from minigenesis.ops.attention import attention

    kw, _, causal = _masks(4, 6)[kind]
    q, k, v = qkv(b=2, h=2, L=4, S=6, e=3, ev=5)
    g = t64(RNG.standard_normal((2, 2, 4, 5)))
    results = []
    for fused in (True, False):
        ts = [t64(a, grad=True) for a in (q, k, v)]
        mg.manual_seed(7)  # the same dropout draw on both sides
        if fused:
            out = F.scaled_dot_product_attention(*ts, dropout_p=dropout_p, **kw)
        else:
            mask = kw.get("attn_mask")
            if mask is not None and mask.dtype == mg.bool:
                mask = mask._data
            out = attention(*ts, mask, dropout_p, causal)[0]
        out.backward(g)
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dropout_p", [0.0, 0.3])
@pytest.mark.parametrize("kind", ["causal", "bool", "float"])
def test_fused_sdpa_gradients_and_second_derivatives_match_finite_differences(kind, dropout_p):
    kw, _, _ = _masks(3, 4)[kind]
    q, k, v = (t64(a, grad=True) for a in qkv(b=1, h=2, L=3, S=4, e=2, ev=3))

    def f(q, k, v):
        mg.manual_seed(5)  # every evaluation draws the same dropout mask
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p, **kw)

    def first(q, k, v):
        out = f(q, k, v)
        return mg.autograd.grad((out * out).sum(), [q, k, v], create_graph=True)

    assert gradcheck(f, (q, k, v))
    assert gradcheck(first, (q, k, v))


def test_fused_sdpa_bfloat16_and_autocast_match_pytorch():
    torch = pytest.importorskip("torch")
    q, k, v = (a.astype(np.float32) for a in qkv(b=2, h=2, L=8, S=8, e=16, ev=16))
    ours = [mg.tensor(a, requires_grad=True) for a in (q, k, v)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    with mg.autocast("cpu", dtype=mg.bfloat16):
        a = F.scaled_dot_product_attention(*ours, is_causal=True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        b = torch.nn.functional.scaled_dot_product_attention(*theirs, is_causal=True)
    assert a.dtype == mg.bfloat16 and b.dtype == torch.bfloat16
    np.testing.assert_allclose(a.float().detach().numpy(), b.float().detach().numpy(), atol=3e-2)
    a.float().sum().backward()
    b.float().sum().backward()
    for x, y in zip(ours, theirs):
        assert x.grad.dtype == mg.float32
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=5e-2)


def test_fused_sdpa_on_transposed_head_views_matches_pytorch():
    # heads as a GPT makes them: (B, T, H, E) viewed as (B, H, T, E), not contiguous
    torch = pytest.importorskip("torch")
    B, T, H, E = 2, 7, 3, 4
    data = [RNG.standard_normal((B, T, H, E)).astype(np.float32) for _ in range(4)]
    ours = [mg.tensor(a, requires_grad=True) for a in data[:3]]
    theirs = [torch.tensor(a, requires_grad=True) for a in data[:3]]
    a = F.scaled_dot_product_attention(*(t.transpose(1, 2) for t in ours), is_causal=True)
    b = torch.nn.functional.scaled_dot_product_attention(
        *(t.transpose(1, 2) for t in theirs), is_causal=True
    )
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-6)
    a.backward(mg.tensor(data[3]).transpose(1, 2))
    b.backward(torch.tensor(data[3]).transpose(1, 2))
    for x, y in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), atol=1e-5)


@pytest.mark.parametrize("is_causal", [False, True])
def test_mha_without_weights_gives_the_same_output_and_gradients(is_causal):
    # need_weights=False runs the fused op; need_weights=True the composed ops
    mg.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, dtype=mg.float64)
    x = RNG.standard_normal((3, 5, 8))
    padding = mg.tensor(np.array([[False] * 5, [False] * 3 + [True] * 2, [False] * 5]))
    causal = nn.Transformer.generate_square_subsequent_mask(5, dtype=mg.float64)
    results = []
    for need_weights in (False, True):
        mha.zero_grad()
        xt = t64(x, grad=True)
        out, weights = mha(
            xt,
            xt,
            xt,
            key_padding_mask=padding,
            need_weights=need_weights,
            attn_mask=causal if is_causal else None,
            is_causal=is_causal,
        )
        assert (weights is None) == (not need_weights)
        out.sum().backward()
        results.append([out.detach().numpy(), xt.grad.numpy(), mha.in_proj_weight.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_output_of_heads_cut_from_one_projection_is_laid_out_as_the_query(dtype):
    """q, k, v as transposed views of (B, L, H, E) memory: the output comes back in that memory
    order (PyTorch's CPU kernel does the same), so out.transpose(1, 2).view(B, L, H * E) needs no
    copy; the values are the float64 reference's, and contiguous heads give a contiguous output."""
    B, L, H, E = 2, 5, 3, 4
    qkv = RNG.standard_normal((B, L, 3 * H * E))
    x = mg.tensor(qkv.astype(np.float32)).to(getattr(mg, dtype))
    q, k, v = (t.reshape(B, L, H, E).transpose(1, 2) for t in x.split(H * E, dim=2))
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert out.stride() == (L * H * E, E, H * E, 1)
    merged = out.transpose(1, 2).view(B, L, H * E)
    q64, k64, v64 = (x.float().numpy().astype(np.float64)[..., i * H * E : (i + 1) * H * E]
                     .reshape(B, L, H, E).transpose(0, 2, 1, 3) for i in range(3))  # fmt: skip
    ref = sdpa_ref(q64, k64, v64, allowed=np.tril(np.ones((L, L), bool)))
    tol = {"float32": 1e-6, "float64": 1e-13, "bfloat16": 1e-2}[dtype]
    np.testing.assert_allclose(
        merged.float().numpy(), ref.transpose(0, 2, 1, 3).reshape(B, L, H * E), atol=tol
    )
    contiguous = F.scaled_dot_product_attention(q.contiguous(), k.contiguous(), v.contiguous())
    assert contiguous.is_contiguous()


@pytest.mark.parametrize("name", ["attn_mask", "key_padding_mask"])
def test_multihead_attention_refuses_an_integer_mask(name):
    # an integer 0/1 mask would be added to the scores as numbers, neither masking nor allowed
    m = nn.MultiheadAttention(4, 2)
    x = mg.ones(3, 2, 4)
    mask = mg.zeros(3, 3, dtype=mg.int64) if name == "attn_mask" else mg.zeros(2, 3, dtype=mg.int64)
    with pytest.raises(AssertionError, match=f"only bool and floating types of {name}"):
        m(x, x, x, **{name: mask})
