"""The UserWarnings PyTorch's transformers give: TransformerEncoder names the first reason its
nested-tensor fast path is ruled out, and a bool key padding mask beside a float attention mask
(or the reverse) is deprecated, warned once where the pair first meets."""

import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

NESTED = "enable_nested_tensor is True, but self.use_nested_tensor is False because "


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught if w.category is UserWarning]


def _layer(**kw):
    args = {"d_model": 4, "nhead": 2, "dim_feedforward": 8, "batch_first": True} | kw
    return nn.TransformerEncoderLayer(**args)


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"norm_first": True}, "encoder_layer.norm_first was True"),
        (
            {"batch_first": False},
            "encoder_layer.self_attn.batch_first was not True(use batch_first for better "
            "inference performance)",
        ),
        ({"bias": False}, "encoder_layer.self_attn was passed bias=False"),
        ({"activation": mg.tanh}, "encoder_layer.activation_relu_or_gelu was not True"),
        ({"nhead": 1}, "encoder_layer.self_attn.num_heads is odd"),
        ({"norm_first": True, "nhead": 1}, "encoder_layer.norm_first was True"),  # the first
    ],
)
def test_encoder_warns_the_first_reason_the_nested_tensor_path_is_ruled_out(kw, reason):
    layer = _layer(**kw)
    assert _messages(lambda: nn.TransformerEncoder(layer, 2)) == [NESTED + reason]
    enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    assert not enc.use_nested_tensor
    assert _messages(lambda: nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)) == []


def test_encoder_with_a_fast_path_layer_does_not_warn():
    for act in ("relu", "gelu", mg.nn.functional.gelu, nn.ReLU()):
        layer = _layer(activation=act)
        assert _messages(lambda layer=layer: nn.TransformerEncoder(layer, 2)) == []
        assert nn.TransformerEncoder(layer, 1).use_nested_tensor
    other = nn.Linear(4, 4)
    assert _messages(lambda: nn.TransformerEncoder(other, 1)) == [
        NESTED + "encoder_layer was not TransformerEncoderLayer"
    ]


def test_default_transformer_warns_its_encoder_is_not_batch_first():
    msgs = _messages(lambda: nn.Transformer(4, 2, 1, 1, 8))
    assert msgs == [NESTED + "encoder_layer.self_attn.batch_first was not True(use batch_first "
                    "for better inference performance)"]  # fmt: skip


def _mismatch(a, b):
    return f"Support for mismatched {a} and {b} is deprecated. Use same type for both instead."


def test_mismatched_mask_types_warn_once_where_they_first_meet_and_values_are_unchanged():
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((2, 5, 4)), dtype=mg.float32)
    causal = nn.Transformer.generate_square_subsequent_mask(5)  # float 0 / -inf
    pad = mg.tensor([[False] * 5, [False, False, False, True, True]])
    layer = _layer(dropout=0.0)
    mha = layer.self_attn
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        enc = nn.TransformerEncoder(layer, 2)
    assert _messages(lambda: mha(x, x, x, attn_mask=causal, key_padding_mask=pad)) == [
        _mismatch("key_padding_mask", "attn_mask")
    ]
    assert _messages(lambda: layer(x, src_mask=causal, src_key_padding_mask=pad)) == [
        _mismatch("src_key_padding_mask", "src_mask")
    ]
    assert _messages(lambda: enc(x, mask=causal, src_key_padding_mask=pad)) == [
        _mismatch("src_key_padding_mask", "mask")
    ]
    assert _messages(lambda: enc(x, mask=causal != 0, src_key_padding_mask=pad)) == []
    # the float form of the padding mask (-inf where True) gives the same numbers
    float_pad = mg.zeros(2, 5).masked_fill(pad, float("-inf"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mixed = enc(x, mask=causal, src_key_padding_mask=pad)
    same = enc(x, mask=causal, src_key_padding_mask=float_pad)
    np.testing.assert_array_equal(mixed.detach().numpy(), same.detach().numpy())
