"""PyTorch parity: TransformerEncoderLayer, TransformerDecoderLayer, the stacks and Transformer
with the same weights (torch's state_dict loaded into minigenesis, and back), each kind of mask,
norm_first, batch_first, activations, bias=False; outputs and gradients of inputs and weights,
in eval mode and in train mode with dropout=0."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

torch = pytest.importorskip("torch")
tnn = torch.nn
# torch's notes about its own fast inference path and mixed mask types
pytestmark = [
    pytest.mark.filterwarnings("ignore:enable_nested_tensor is True"),
    pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask"),
]

E, H, FF = 8, 2, 16


def _copy_state(m_module, t_module):
    t_state = t_module.state_dict()
    assert sorted(m_module.state_dict()) == sorted(t_state)
    m_module.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in t_state.items()})


def _inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    m = [mg.tensor(a, requires_grad=True) for a in arrays]
    t = [torch.tensor(a, requires_grad=True) for a in arrays]
    return m, t


def _masks(kind, L, S, N, seed=1):
    """(mg attn_mask, torch attn_mask, mg key padding mask, torch key padding mask)."""
    rng = np.random.default_rng(seed)
    am = kpm = None
    if kind == "bool":
        am = rng.random((L, S)) < 0.3
        am[:, 0] = False  # every query keeps a key (a fully masked row is NaN in PyTorch)
    elif kind == "float":
        am = rng.standard_normal((L, S))
    elif kind == "causal":
        am = np.triu(np.full((L, S), -np.inf), 1)
    elif kind == "per_head":
        am = rng.random((N * H, L, S)) < 0.3
        am[..., 0] = False
    elif kind in ("padding", "float_padding"):
        kpm = np.zeros((N, S), dtype=bool)
        kpm[0, -2:] = True
        kpm[-1, -1] = True
        if kind == "float_padding":
            kpm = np.where(kpm, -np.inf, 0.0)

    def both(a):
        return (None, None) if a is None else (mg.tensor(a), torch.tensor(a))

    return (*both(am), *both(kpm))


def _assert_close(m, t, rtol=1e-9, atol=1e-10):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _check_grads(m_out, t_out, m_leaves, t_leaves, m_mod, t_mod):
    g = np.random.default_rng(9).standard_normal(tuple(t_out.shape))
    m_out.backward(mg.tensor(g))
    t_out.backward(torch.tensor(g))
    for a, b in zip(m_leaves, t_leaves):
        _assert_close(a.grad, b.grad)
    t_grads = {k: p.grad for k, p in t_mod.named_parameters()}
    for k, p in m_mod.named_parameters():
        _assert_close(p.grad, t_grads[k])


MASKS = ["none", "bool", "float", "causal", "per_head", "padding", "float_padding"]


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_layer_matches_torch(mask, norm_first, batch_first):
    S, N = 5, 3
    kw = dict(dim_feedforward=FF, norm_first=norm_first, batch_first=batch_first)
    t_layer = tnn.TransformerEncoderLayer(E, H, dtype=torch.float64, **kw).eval()
    m_layer = nn.TransformerEncoderLayer(E, H, dtype=mg.float64, **kw).eval()
    _copy_state(m_layer, t_layer)
    shape = (N, S, E) if batch_first else (S, N, E)
    (mx,), (tx,) = _inputs(shape)
    m_am, t_am, m_kpm, t_kpm = _masks(mask, S, S, N)
    causal = mask == "causal"
    m_out = m_layer(mx, src_mask=m_am, src_key_padding_mask=m_kpm, is_causal=causal)
    t_out = t_layer(tx, src_mask=t_am, src_key_padding_mask=t_kpm, is_causal=causal)
    _assert_close(m_out, t_out)
    _check_grads(m_out, t_out, [mx], [tx], m_layer, t_layer)


@pytest.mark.parametrize("mask", ["none", "bool", "causal", "padding"])
@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_matches_torch_in_train_mode_without_dropout(mask, norm_first):
    T, S, N = 4, 6, 2
    kw = dict(dim_feedforward=FF, dropout=0.0, norm_first=norm_first, activation="gelu")
    t_layer = tnn.TransformerDecoderLayer(E, H, dtype=torch.float64, **kw).train()
    m_layer = nn.TransformerDecoderLayer(E, H, dtype=mg.float64, **kw).train()
    _copy_state(m_layer, t_layer)
    (mt, mm), (tt, tm) = _inputs((T, N, E), (S, N, E), seed=2)
    m_tm, t_tm, m_tk, t_tk = _masks(mask, T, T, N, seed=3)
    m_mm, t_mm, m_mk, t_mk = _masks(mask if mask != "causal" else "float", T, S, N, seed=4)
    m_out = m_layer(mt, mm, m_tm, m_mm, m_tk, m_mk, tgt_is_causal=mask == "causal")
    t_out = t_layer(tt, tm, t_tm, t_mm, t_tk, t_mk, tgt_is_causal=mask == "causal")
    _assert_close(m_out, t_out)
    _check_grads(m_out, t_out, [mt, mm], [tt, tm], m_layer, t_layer)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_with_every_mask_matches_torch(batch_first, norm_first):
    S, T, N = 6, 5, 3
    kw = dict(
        d_model=E,
        nhead=H,
        num_encoder_layers=2,
        num_decoder_layers=2,
        dim_feedforward=FF,
        batch_first=batch_first,
        norm_first=norm_first,
    )
    t_model = tnn.Transformer(dtype=torch.float64, **kw).eval()
    m_model = nn.Transformer(dtype=mg.float64, **kw).eval()
    _copy_state(m_model, t_model)
    shapes = [(N, S, E), (N, T, E)] if batch_first else [(S, N, E), (T, N, E)]
    (ms, mt), (ts, tt) = _inputs(*shapes, seed=5)
    m_sm, t_sm, m_sk, t_sk = _masks("bool", S, S, N, seed=6)
    _, _, m_sk, t_sk = _masks("padding", S, S, N)
    m_mm, t_mm, m_tk, t_tk = _masks("float", T, S, N, seed=7)
    _, _, m_tk, t_tk = _masks("padding", T, T, N)
    m_tm = nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64)
    t_tm = tnn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
    m_out = m_model(ms, mt, m_sm, m_tm, m_mm, m_sk, m_tk, m_sk)
    t_out = t_model(ts, tt, t_sm, t_tm, t_mm, t_sk, t_tk, t_sk)
    _assert_close(m_out, t_out)
    _check_grads(m_out, t_out, [ms, mt], [ts, tt], m_model, t_model)


def test_unbatched_encoder_stack_with_bias_false_and_callable_activation_matches_torch():
    kw = dict(dim_feedforward=FF, bias=False)
    t_layer = tnn.TransformerEncoderLayer(E, H, activation=torch.tanh, dtype=torch.float64, **kw)
    m_layer = nn.TransformerEncoderLayer(E, H, activation=mg.tanh, dtype=mg.float64, **kw)
    t_enc = tnn.TransformerEncoder(t_layer, 2, norm=tnn.LayerNorm(E, dtype=torch.float64)).eval()
    m_enc = nn.TransformerEncoder(m_layer, 2, norm=nn.LayerNorm(E, dtype=mg.float64)).eval()
    _copy_state(m_enc, t_enc)
    (mx,), (tx,) = _inputs((4, E), seed=8)
    mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=mg.float64)
    tmask = tnn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    _assert_close(m_enc(mx, mask), t_enc(tx, tmask))


def test_square_subsequent_mask_matches_torch():
    np.testing.assert_array_equal(
        nn.Transformer.generate_square_subsequent_mask(4).numpy(),
        tnn.Transformer.generate_square_subsequent_mask(4).numpy(),
    )
    assert nn.Transformer.generate_square_subsequent_mask(3).dtype == mg.float32


def test_minigenesis_state_dict_loads_into_torch():
    kw = dict(d_model=E, nhead=H, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=FF)
    m_model = nn.Transformer(**kw).eval()
    t_model = tnn.Transformer(**kw).eval()
    t_model.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m_model.state_dict().items()})
    (ms, mt), (ts, tt) = _inputs((3, 2, E), (4, 2, E), seed=10)
    with torch.no_grad():
        t_out = t_model(ts.float(), tt.float())
    np.testing.assert_allclose(
        m_model(ms.float(), mt.float()).detach().numpy(), t_out.numpy(), rtol=1e-4, atol=1e-5
    )
