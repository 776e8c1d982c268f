"""Transformer layers and stacks: the encoder layer against a NumPy reference (post- and pre-norm,
with a mask), float64 finite-difference gradients, causal hints, independent layer copies,
dropout in train/eval mode, and clear errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _np_layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _np_self_attention(x, in_w, in_b, out_w, out_b, heads, mask):
    """x (S, N, E); mask (S, S) bool, True = may not attend."""
    S, N, E = x.shape
    hd = E // heads
    q, k, v = np.split(x @ in_w.T + in_b, 3, axis=-1)

    def split(t):  # (S, N, E) -> (N, H, S, hd)
        return t.reshape(S, N, heads, hd).transpose(1, 2, 0, 3)

    scores = split(q) @ split(k).transpose(0, 1, 3, 2) / np.sqrt(hd)
    scores = np.where(mask, -np.inf, scores)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    out = (w @ split(v)).transpose(2, 0, 1, 3).reshape(S, N, E)
    return out @ out_w.T + out_b


def _np_encoder_layer(layer, x, mask):
    p = {k: v.numpy() for k, v in layer.state_dict().items()}

    def sa(t):
        return _np_self_attention(
            t,
            p["self_attn.in_proj_weight"],
            p["self_attn.in_proj_bias"],
            p["self_attn.out_proj.weight"],
            p["self_attn.out_proj.bias"],
            layer.self_attn.num_heads,
            mask,
        )

    def ff(t):
        h = np.maximum(t @ p["linear1.weight"].T + p["linear1.bias"], 0)
        return h @ p["linear2.weight"].T + p["linear2.bias"]

    def n1(t):
        return _np_layer_norm(t, p["norm1.weight"], p["norm1.bias"])

    def n2(t):
        return _np_layer_norm(t, p["norm2.weight"], p["norm2.bias"])

    if layer.norm_first:
        x = x + sa(n1(x))
        return x + ff(n2(x))
    x = n1(x + sa(x))
    return n2(x + ff(x))


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_matches_a_numpy_reference(norm_first):
    mg.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, norm_first=norm_first, dtype=mg.float64).eval()
    for p in layer.parameters():  # non-trivial norms and biases
        p.data.copy_(mg.randn(*p.shape, dtype=mg.float64) * 0.5)
    x = np.random.default_rng(1).standard_normal((5, 3, 8))
    mask = np.triu(np.ones((5, 5), dtype=bool), 1)
    out = layer(mg.tensor(x), src_mask=mg.tensor(mask))
    np.testing.assert_allclose(out.detach().numpy(), _np_encoder_layer(layer, x, mask), rtol=1e-10)


def test_decoder_layer_gradients_match_finite_differences():
    mg.manual_seed(2)
    layer = nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, dtype=mg.float64)
    tgt = mg.randn(3, 1, 4, dtype=mg.float64, requires_grad=True)
    memory = mg.randn(2, 1, 4, dtype=mg.float64, requires_grad=True)
    w1 = layer.linear1.weight
    mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=mg.float64)

    def f(t, m, w):
        return (
            layer(t, m, tgt_mask=mask) * mg.arange(12.0, dtype=mg.float64).reshape(3, 1, 4)
        ).sum()

    assert gradcheck(f, (tgt, memory, w1))


def test_square_subsequent_mask_is_zero_on_and_below_the_diagonal():
    m = nn.Transformer.generate_square_subsequent_mask(4).numpy()
    np.testing.assert_array_equal(m, np.where(np.triu(np.ones((4, 4)), 1) > 0, -np.inf, 0.0))


def test_is_causal_without_a_mask_applies_the_causal_mask():
    mg.manual_seed(3)
    layer = nn.TransformerDecoderLayer(8, 2, 16).eval()
    tgt, memory = mg.randn(4, 2, 8), mg.randn(3, 2, 8)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    expected = layer(tgt, memory, tgt_mask=mask)
    np.testing.assert_allclose(
        layer(tgt, memory, tgt_is_causal=True).detach().numpy(), expected.detach().numpy()
    )
    # a later position does not change an earlier one's output
    changed = tgt.clone()
    changed[3] = 0.0
    out = layer(changed, memory, tgt_mask=mask)
    np.testing.assert_allclose(out[:3].detach().numpy(), expected[:3].detach().numpy(), rtol=1e-6)


def test_stacks_hold_independent_copies_of_the_layer():
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    enc = nn.TransformerEncoder(layer, 3)
    assert len(enc.layers) == 3 and enc.layers[0] is not layer
    with mg.no_grad():
        enc.layers[0].linear1.weight.fill_(1.0)
    assert not bool((enc.layers[1].linear1.weight == 1.0).all())
    assert len(enc.state_dict()) == 3 * len(layer.state_dict())


def test_dropout_acts_in_train_mode_only():
    mg.manual_seed(4)
    model = nn.Transformer(8, 2, 1, 1, 16, dropout=0.5)
    src, tgt = mg.randn(5, 2, 8), mg.randn(4, 2, 8)
    a, b = model(src, tgt), model(src, tgt)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    model.eval()
    np.testing.assert_array_equal(
        model(src, tgt).detach().numpy(), model(src, tgt).detach().numpy()
    )


def test_transformer_weights_are_xavier_uniform():
    model = nn.Transformer(16, 2, 1, 1, 32)
    w = model.encoder.layers[0].linear1.weight.detach().numpy()  # (32, 16)
    bound = np.sqrt(6.0 / (16 + 32))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound


def test_transformer_refuses_mismatched_batches_and_feature_sizes():
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match=r"batch number of src \(5, 2, 8\) and tgt \(4, 3, 8\)"):
        model(mg.randn(5, 2, 8), mg.randn(4, 3, 8))
    with pytest.raises(RuntimeError, match=r"feature number.*d_model=8"):
        model(mg.randn(5, 2, 6), mg.randn(4, 2, 6))


def test_layers_refuse_bad_activation_and_integer_masks():
    with pytest.raises(RuntimeError, match="relu/gelu"):
        nn.TransformerEncoderLayer(8, 2, activation="swish")
    layer = nn.TransformerEncoderLayer(8, 2, 16)
    with pytest.raises(AssertionError, match="only bool and floating types of src_mask"):
        layer(mg.randn(3, 1, 8), src_mask=mg.zeros(3, 3, dtype=mg.int64))
    with pytest.raises(RuntimeError, match=r"attn_mask has shape \(2, 2\).*\(3, 3\)"):
        layer(mg.randn(3, 1, 8), src_mask=mg.zeros(2, 2))
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        nn.TransformerEncoderLayer(8, 3)


def test_transformer_gives_the_cpu_numbers_on_each_device(device):
    mg.manual_seed(5)
    model = nn.Transformer(8, 2, 1, 1, 16).eval()
    src, tgt = mg.randn(5, 2, 8), mg.randn(4, 2, 8)
    padding = mg.tensor([[False] * 4 + [True], [False] * 5])
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    ref = model(src, tgt, tgt_mask=mask, src_key_padding_mask=padding).detach().numpy()
    model.to(device)
    out = model(
        src.to(device),
        tgt.to(device),
        tgt_mask=mask.to(device),
        src_key_padding_mask=padding.to(device),
    )
    out.sum().backward()
    assert out.device.type == device
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-4, atol=1e-5)
