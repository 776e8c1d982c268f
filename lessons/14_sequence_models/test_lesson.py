"""Checks for chapter 14. Oracles: minigenesis's nn.RNNCell, nn.LSTMCell and nn.LSTM with the
same weights (values and gradients), the closed form 1 W^steps of the linear RNN's gradient,
generation recomputed from the whole text at every step; for attention, a NumPy attention and a
NumPy Transformer block, F.scaled_dot_product_attention and nn.MultiheadAttention (and torch's
attention when installed), and the exact probabilities of tempered top-k sampling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 14.1  return nn.RNNCell's result with the weights copied in     -> by-hand watch (no nn.RNNCell)
#       tanh(x W_ih + h W_hh) (weights not transposed)             -> vs nn.RNNCell (non-square)
# 14.2  np.linalg.matrix_power on w_hh.numpy(), no autograd        -> w_hh.grad closed form
#       mg.linalg.matrix_power with no backward                    -> w_hh.grad closed form
# 14.3  return nn.LSTMCell's result with the weights copied in    -> by-hand watch
#       gate order i, g, f, o (not PyTorch's i, f, g, o)           -> vs nn.LSTMCell
# 14.4  an nn.RNN in place of the LSTM                             -> layers and shapes
#       forward ignores the state it is given                      -> carries the state
# 14.5  re-read the whole text at every step (the docstring says not to) -> greedy generation
#       sample instead of argmax                                   -> greedy generation
# 14.6  return F.scaled_dot_product_attention's output            -> by-hand watch
#       no 1/sqrt(d) scale                                         -> vs NumPy attention
# 14.7  np.tril(np.ones) as a float tensor                        -> bool dtype
#       no check of t (t = 0 gives an empty mask)                   -> ValueError for t <= 0
# 14.8  x.reshape(batch, heads, T, D) (mixes positions into heads) -> each head its columns
#       merge by reshape without the transpose back                 -> merge puts heads side by side
# 14.9  nn.MultiheadAttention without the causal mask           -> layers, block is causal
#       post-norm (LayerNorm after the residual)                    -> forward vs NumPy GPT-2 block
# 14.10 temperature applied after the softmax                      -> sampling frequencies
#       top_k ignored                                              -> frequencies, top-1 = argmax


def _leaf(shape, k, scale=0.5):
    rng = np.random.default_rng(k)
    return mg.tensor(rng.standard_normal(shape) * scale, dtype=mg.float64, requires_grad=True)


def _cell_case(cell_cls, gates, k=0):
    """A float64 cell of minigenesis and the same weights as leaves for the learner's function."""
    cell = cell_cls(3, 4).to(mg.float64)
    x, h = _leaf((2, 3), k), _leaf((2, 4), k + 1)
    weights = [p.detach().clone().requires_grad_() for p in cell.parameters()]
    g = gates * 4  # hidden size 4
    assert [tuple(w.shape) for w in weights] == [(g, 3), (g, 4), (g,), (g,)]
    return cell, x, h, weights


def _assert_close(a, b, what):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12,
                               err_msg=what)  # fmt: skip


# ----------------------------------------------------------------------------- 14.1
@pytest.mark.exercise("14.1")
def test_14_1_rnn_cell_matches_nn_rnncell_values_and_gradients(impl) -> None:
    cell, x, h, (w_ih, w_hh, b_ih, b_hh) = _cell_case(nn.RNNCell, 1)
    x2, h2 = x.detach().clone().requires_grad_(), h.detach().clone().requires_grad_()
    ours = impl.rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh)
    ref = cell(x2, h2)
    _assert_close(ours, ref, "h'")
    weight = _leaf(tuple(ref.shape), 9).detach()
    (ours * weight).sum().backward()
    (ref * weight).sum().backward()
    _assert_close(x.grad, x2.grad, "dL/dx")
    _assert_close(h.grad, h2.grad, "dL/dh")
    for mine, p in zip((w_ih, w_hh, b_ih, b_hh), cell.parameters()):
        _assert_close(mine.grad, p.grad, "a weight's gradient")


@pytest.mark.exercise("14.1")
def test_14_1_unrolled_rnn_cell_is_nn_rnn(impl) -> None:
    mg.manual_seed(1)
    rnn = nn.RNN(3, 4).to(mg.float64)
    xs = _leaf((6, 2, 3), 2).detach()
    h = mg.zeros(2, 4, dtype=mg.float64)
    outs = []
    for t in range(6):
        h = impl.rnn_cell(xs[t], h, *rnn.parameters())
        outs.append(h)
    ref, h_n = rnn(xs)
    _assert_close(mg.stack(outs), ref, "outputs")
    _assert_close(h, h_n[0], "final state")


# ----------------------------------------------------------------------------- 14.2
@pytest.mark.exercise("14.2")
@pytest.mark.parametrize("scale,steps", [(0.5, 10), (1.0, 25), (1.5, 20), (1.2, 1)])
def test_14_2_gradient_through_time_is_one_times_w_to_the_power_steps(impl, scale, steps) -> None:
    rng = np.random.default_rng(int(scale * 10) + steps)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))  # orthogonal: every |eigenvalue| is 1
    w = scale * q
    w_hh = mg.tensor(w, dtype=mg.float64, requires_grad=True)
    got = impl.gradient_through_time(w_hh, steps)
    assert isinstance(got, float), "return a Python float"
    expected = np.linalg.norm(np.ones(5) @ np.linalg.matrix_power(w, steps))
    assert got == pytest.approx(expected, rel=1e-9)
    assert got == pytest.approx(np.sqrt(5) * scale**steps, rel=1e-9)  # |1| scale^steps
    # The graph went through w_hh: dL/dW = sum over t of (dL/dh_t)^T h_{t-1}, with
    # h_t = 1 (W^T)^t and dL/dh_t = 1 W^(steps - t), in closed form with NumPy.
    assert w_hh.grad is not None, "backward through w_hh as given (its .grad is None)"
    ones = np.ones((1, 5))
    want = sum(
        (ones @ np.linalg.matrix_power(w, steps - t)).T
        @ (ones @ np.linalg.matrix_power(w.T, t - 1))
        for t in range(1, steps + 1)
    )
    np.testing.assert_allclose(w_hh.grad.numpy(), want, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- 14.3
@pytest.mark.exercise("14.3")
def test_14_3_lstm_cell_matches_nn_lstmcell_values_and_gradients(impl) -> None:
    cell, x, h, (w_ih, w_hh, b_ih, b_hh) = _cell_case(nn.LSTMCell, 4, k=3)
    c = _leaf((2, 4), 5)
    x2, h2, c2 = (t.detach().clone().requires_grad_() for t in (x, h, c))
    ours = impl.lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh)
    assert isinstance(ours, tuple) and len(ours) == 2, "return (h', c')"
    ref = cell(x2, (h2, c2))
    _assert_close(ours[0], ref[0], "h'")
    _assert_close(ours[1], ref[1], "c'")
    wh, wc = _leaf((2, 4), 6).detach(), _leaf((2, 4), 7).detach()
    ((ours[0] * wh).sum() + (ours[1] * wc).sum()).backward()
    ((ref[0] * wh).sum() + (ref[1] * wc).sum()).backward()
    for a, b, what in ((x, x2, "dL/dx"), (h, h2, "dL/dh"), (c, c2, "dL/dc")):
        _assert_close(a.grad, b.grad, what)
    for mine, p in zip((w_ih, w_hh, b_ih, b_hh), cell.parameters()):
        _assert_close(mine.grad, p.grad, "a weight's gradient")


@pytest.mark.exercise("14.3")
def test_14_3_forget_gate_open_and_input_gate_shut_keep_the_cell_state(impl) -> None:
    """With f = sigmoid(+30) ~ 1 and i = sigmoid(-30) ~ 0, c' = c: the memory is carried."""
    hidden = 3
    w_ih, w_hh = mg.zeros(4 * hidden, 2), mg.zeros(4 * hidden, hidden)
    b = mg.tensor([-30.0] * hidden + [30.0] * hidden + [0.0] * 2 * hidden)
    c = mg.tensor([[0.5, -2.0, 1.5]])
    h_new, c_new = impl.lstm_cell(mg.randn(1, 2), mg.randn(1, hidden), c, w_ih, w_hh, b, b * 0)
    np.testing.assert_allclose(c_new.numpy(), c.numpy(), rtol=1e-6)
    np.testing.assert_allclose(h_new.numpy(), 0.5 * np.tanh(c.numpy()), rtol=1e-6)


# ----------------------------------------------------------------------------- 14.4
@pytest.mark.exercise("14.4")
def test_14_4_char_lstm_layers_shapes_and_state(impl) -> None:
    mg.manual_seed(0)
    model = impl.CharLSTM(11, embed_dim=5, hidden_size=7, num_layers=2)
    assert isinstance(model.embed, nn.Embedding) and isinstance(model.lstm, nn.LSTM)
    assert isinstance(model.head, nn.Linear) and model.lstm.batch_first
    assert tuple(model.embed.weight.shape) == (11, 5) and model.lstm.num_layers == 2
    x = mg.randint(0, 11, (3, 8))
    logits, (h, c) = model(x)
    assert tuple(logits.shape) == (3, 8, 11)
    assert tuple(h.shape) == (2, 3, 7) and tuple(c.shape) == (2, 3, 7)
    ref, _ = model.lstm(model.embed(x))
    _assert_close(logits, model.head(ref), "logits")


@pytest.mark.exercise("14.4")
def test_14_4_char_lstm_carries_the_state_it_is_given(impl) -> None:
    mg.manual_seed(1)
    model = impl.CharLSTM(9, embed_dim=4, hidden_size=6)
    x = mg.randint(0, 9, (2, 10))
    whole, _ = model(x)
    first, state = model(x[:, :4])
    second, _ = model(x[:, 4:], state)
    np.testing.assert_allclose(mg.cat([first, second], dim=1).detach().numpy(),
                               whole.detach().numpy(), rtol=1e-5, atol=1e-6)  # fmt: skip


# ----------------------------------------------------------------------------- 14.5
class _Reference(nn.Module):
    """A fixed small model (the reference CharLSTM's layers) for the generation checks."""

    def __init__(self, vocab: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, 6)
        self.lstm = nn.LSTM(6, 12, batch_first=True)
        self.head = nn.Linear(12, vocab)
        self.calls: list[int] = []

    def forward(self, x, state=None):
        self.calls.append(x.shape[1])
        out, state = self.lstm(self.embed(x), state)
        return self.head(out) * 5, state  # sharp logits: no near-ties in the argmax


@pytest.mark.exercise("14.5")
def test_14_5_greedy_generation_equals_rereading_the_whole_text(impl) -> None:
    mg.manual_seed(2)
    model = _Reference(10)
    model.train()
    prompt = [3, 1, 4, 1, 5]
    got = impl.generate(model, prompt, 12)
    assert got[:5] == prompt and len(got) == 17
    assert model.training, "put the model back in the mode it was in"
    assert model.calls == [5] + [1] * 11, "the prompt once, then one character per step"
    text = list(prompt)
    with mg.no_grad():
        for _ in range(12):
            logits, _ = model(mg.tensor([text]))
            text.append(int(logits[0, -1].argmax()))
    assert got == text


# ----------------------------------------------------------------------------- 14.6 - 14.10
def _np_attention(q, k, v, mask=None):
    """The oracle: softmax(q k^T / sqrt(d)) v in float64 NumPy, -inf where mask is False."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def _np_causal(t):
    return np.tril(np.ones((t, t), dtype=bool))


# ----------------------------------------------------------------------------- 14.6
@pytest.mark.exercise("14.6")
@pytest.mark.parametrize("masked", [False, True], ids=["no_mask", "mask"])
def test_14_6_attention_matches_numpy(impl, masked) -> None:
    rng = np.random.default_rng(60 + masked)
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 4)))
    mask = rng.random((5, 6)) < 0.6 if masked else None
    if masked:
        mask[:, 0] = True  # every query sees at least one key
    out, weights = impl.attention(
        *(mg.tensor(a) for a in (q, k, v)), None if mask is None else mg.tensor(mask)
    )
    ref_out, ref_w = _np_attention(q, k, v, mask)
    assert tuple(out.shape) == (2, 3, 5, 4) and tuple(weights.shape) == (2, 3, 5, 6)
    np.testing.assert_allclose(weights.detach().numpy(), ref_w, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    if masked:
        assert (weights.detach().numpy()[..., ~mask] == 0).all(), "masked weights must be 0"


@pytest.mark.exercise("14.6")
def test_14_6_attention_gradients_match_scaled_dot_product_attention(impl) -> None:
    """minigenesis's F.scaled_dot_product_attention, boolean mask True = take part."""
    mask = mg.tensor(_np_causal(5))
    ours = [_leaf(s, 61 + i) for i, s in enumerate(((2, 5, 8), (2, 5, 8), (2, 5, 3)))]
    ref = [t.detach().clone().requires_grad_() for t in ours]
    out, _ = impl.attention(*ours, mask)
    expected = nn.functional.scaled_dot_product_attention(*ref, attn_mask=mask)
    _assert_close(out, expected, "attention output")
    weight = _leaf((2, 5, 3), 64).detach()
    (out * weight).sum().backward()
    (expected * weight).sum().backward()
    for a, b, what in zip(ours, ref, ("dL/dq", "dL/dk", "dL/dv")):
        _assert_close(a.grad, b.grad, what)


@pytest.mark.exercise("14.6")
def test_14_6_attention_agrees_with_torch(impl) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(65)
    q, k, v = (rng.standard_normal((3, 7, 16)) for _ in range(3))
    mask = _np_causal(7)
    out, _ = impl.attention(*(mg.tensor(a) for a in (q, k, v)), mg.tensor(mask))
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), attn_mask=torch.tensor(mask)
    )
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- 14.7
@pytest.mark.exercise("14.7")
@pytest.mark.parametrize("t", [1, 2, 7])
def test_14_7_causal_mask_is_the_lower_triangle(impl, t) -> None:
    mask = impl.causal_mask(t)
    assert mask.dtype == mg.bool, f"a bool mask, got {mask.dtype}"
    np.testing.assert_array_equal(mask.numpy(), _np_causal(t))


@pytest.mark.exercise("14.7")
def test_14_7_causal_attention_ignores_the_future(impl) -> None:
    """With the mask, changing the keys and values of the last position changes only the last
    query's output."""
    rng = np.random.default_rng(70)
    q, k, v = (rng.standard_normal((6, 4)) for _ in range(3))
    k2, v2 = k.copy(), v.copy()
    k2[-1] += 3.0
    v2[-1] -= 2.0
    mask = impl.causal_mask(6)
    out, weights = impl.attention(*(mg.tensor(a) for a in (q, k, v)), mask)
    out2, _ = impl.attention(*(mg.tensor(a) for a in (q, k2, v2)), mask)
    np.testing.assert_allclose(out.numpy()[:-1], out2.numpy()[:-1], rtol=1e-12)
    assert not np.allclose(out.numpy()[-1], out2.numpy()[-1])
    assert (np.triu(weights.numpy(), 1) == 0).all()


@pytest.mark.exercise("14.7")
def test_14_7_causal_mask_rejects_a_non_positive_length(impl) -> None:
    with pytest.raises(ValueError, match="t"):
        impl.causal_mask(0)


# ----------------------------------------------------------------------------- 14.8
@pytest.mark.exercise("14.8")
def test_14_8_split_heads_gives_each_head_its_columns(impl) -> None:
    x = np.random.default_rng(80).standard_normal((2, 5, 12))
    heads = impl.split_heads(mg.tensor(x), 3)
    assert tuple(heads.shape) == (2, 3, 5, 4)
    for h in range(3):
        np.testing.assert_array_equal(heads.numpy()[:, h], x[:, :, 4 * h : 4 * h + 4])
    np.testing.assert_array_equal(impl.merge_heads(heads).numpy(), x)


@pytest.mark.exercise("14.8")
def test_14_8_merge_heads_puts_the_heads_side_by_side(impl) -> None:
    y = np.random.default_rng(81).standard_normal((2, 4, 3, 5))  # (batch, heads, T, D)
    merged = impl.merge_heads(mg.tensor(y))
    assert tuple(merged.shape) == (2, 3, 20)
    np.testing.assert_array_equal(merged.numpy(), np.concatenate(list(y.transpose(1, 0, 2, 3)), -1))


@pytest.mark.exercise("14.8")
def test_14_8_split_heads_rejects_an_uneven_split(impl) -> None:
    with pytest.raises(ValueError, match="n_heads"):
        impl.split_heads(mg.zeros(1, 2, 10), 4)


@pytest.mark.exercise("14.8")
def test_14_8_heads_by_hand_reproduce_nn_multiheadattention(impl) -> None:
    """Project with in_proj, split, attend (the reference attention), merge, out_proj: the output
    and every head's weights of nn.MultiheadAttention (whose bool mask is True = *blocked*)."""
    mg.manual_seed(8)
    mha = nn.MultiheadAttention(12, 3, batch_first=True).to(mg.float64)
    x = _leaf((2, 5, 12), 82)
    x2 = x.detach().clone().requires_grad_()
    q, k, v = (x @ mha.in_proj_weight.mT + mha.in_proj_bias).chunk(3, dim=-1)
    q, k, v = (impl.split_heads(z, 3) for z in (q, k, v))
    out, weights = impl.attention(q, k, v, mg.tensor(_np_causal(5)))
    ours = mha.out_proj(impl.merge_heads(out))
    ref, ref_w = mha(x2, x2, x2, attn_mask=mg.tensor(~_np_causal(5)), average_attn_weights=False)
    _assert_close(ours, ref, "output")
    _assert_close(weights, ref_w, "per-head weights")
    ours.sum().backward()
    ref.sum().backward()
    _assert_close(x.grad, x2.grad, "dL/dx")


# ----------------------------------------------------------------------------- 14.9
def _np_block(x, block, n_heads):
    """The oracle: a pre-norm GPT block in float64 NumPy, from the block's weights."""

    def w(t):
        return t.detach().numpy()

    def layer_norm(z, ln):
        mu, var = z.mean(-1, keepdims=True), z.var(-1, keepdims=True)
        return (z - mu) / np.sqrt(var + ln.eps) * w(ln.weight) + w(ln.bias)

    def linear(z, lin):
        return z @ w(lin.weight).T + w(lin.bias)

    erf = np.vectorize(math.erf)
    batch, t, c = x.shape
    q, k, v = np.split(linear(layer_norm(x, block.ln_1), block.attn.qkv), 3, axis=-1)
    q, k, v = (z.reshape(batch, t, n_heads, -1).transpose(0, 2, 1, 3) for z in (q, k, v))
    out, _ = _np_attention(q, k, v, _np_causal(t))
    x = x + linear(out.transpose(0, 2, 1, 3).reshape(batch, t, c), block.attn.proj)
    first, second = block.mlp[0], block.mlp[2]
    hidden = linear(layer_norm(x, block.ln_2), first)
    hidden = 0.5 * hidden * (1.0 + erf(hidden / np.sqrt(2.0)))  # exact GELU
    return x + linear(hidden, second)


@pytest.mark.exercise("14.9")
def test_14_9_block_has_gpt2s_layers(impl) -> None:
    mg.manual_seed(0)
    block = impl.Block(16, 4)
    assert isinstance(block.ln_1, nn.LayerNorm) and isinstance(block.ln_2, nn.LayerNorm)
    assert tuple(block.ln_1.weight.shape) == (16,) and tuple(block.ln_2.weight.shape) == (16,)
    assert isinstance(block.attn, impl.CausalSelfAttention) and block.attn.n_heads == 4
    assert isinstance(block.mlp, nn.Sequential) and len(block.mlp) == 3
    assert isinstance(block.mlp[1], nn.GELU), "the MLP's activation is GELU"
    assert tuple(block.mlp[0].weight.shape) == (64, 16), "the MLP widens to 4 * d_model"
    assert tuple(block.mlp[2].weight.shape) == (16, 64)


@pytest.mark.exercise("14.9")
def test_14_9_block_forward_matches_numpy(impl) -> None:
    mg.manual_seed(1)
    block = impl.Block(12, 3).to(mg.float64)
    with mg.no_grad():  # LayerNorm's affine parameters away from their (1, 0) start
        for ln in (block.ln_1, block.ln_2):
            ln.weight.copy_(mg.tensor(np.random.default_rng(90).uniform(0.5, 1.5, 12)))
            ln.bias.copy_(mg.tensor(np.random.default_rng(91).normal(0, 0.3, 12)))
    x = np.random.default_rng(92).standard_normal((2, 6, 12))
    got = block(mg.tensor(x))
    assert tuple(got.shape) == (2, 6, 12)
    np.testing.assert_allclose(got.detach().numpy(), _np_block(x, block, 3), rtol=1e-9, atol=1e-10)


@pytest.mark.exercise("14.9")
def test_14_9_block_is_causal_and_carries_the_gradient(impl) -> None:
    mg.manual_seed(2)
    block = impl.Block(8, 2).to(mg.float64)
    x = _leaf((1, 5, 8), 93, scale=1.0)
    out = block(x)
    out[0, 2].sum().backward()  # position 2 reads positions 0, 1, 2 only
    grad = x.grad.numpy()[0]
    assert np.abs(grad[3:]).max() == 0, "a position must not depend on later ones"
    assert np.abs(grad[:3]).min(axis=-1).all()
    # the residual path: dL/dx at position 2 is the identity's 1 plus the sub-layers' part
    x2 = mg.tensor(x.detach().numpy(), requires_grad=True)
    (block(x2)[0, 2].sum() - x2[0, 2].sum()).backward()
    np.testing.assert_allclose(grad[2] - x2.grad.numpy()[0, 2], np.ones(8), rtol=1e-9)


# ----------------------------------------------------------------------------- 14.10
def _np_probs(logits, temperature=1.0, top_k=None):
    z = np.asarray(logits, dtype=np.float64) / temperature
    if top_k is not None:
        z = np.where(z >= np.sort(z)[-top_k], z, -np.inf)
    p = np.exp(z - z.max())
    return p / p.sum()


def _frequencies(impl, logits, n, seed, **kwargs):
    rows = mg.tensor(np.tile(logits, (n, 1)), dtype=mg.float32)
    draws = impl.sample_next(rows, generator=mg.Generator().manual_seed(seed), **kwargs)
    assert tuple(draws.shape) == (n,), f"one draw per row: shape ({n},), got {tuple(draws.shape)}"
    assert draws.dtype == mg.int64
    return np.bincount(draws.numpy(), minlength=len(logits)) / n


_LOGITS = np.array([2.0, 0.5, -1.0, 1.5, 0.0, -0.5])


@pytest.mark.exercise("14.10")
@pytest.mark.parametrize(
    "temperature,top_k", [(1.0, None), (0.5, None), (2.0, None), (1.0, 3), (0.7, 2)]
)
def test_14_10_sampling_frequencies_match_the_tempered_top_k_softmax(
    impl, temperature, top_k
) -> None:
    n = 40_000
    freq = _frequencies(impl, _LOGITS, n, seed=100, temperature=temperature, top_k=top_k)
    p = _np_probs(_LOGITS, temperature, top_k)
    sigma = np.sqrt(p * (1 - p) / n)
    assert (np.abs(freq - p) <= 5 * sigma + 1e-12).all(), f"frequencies {freq}, expected {p}"
    if top_k is not None:
        assert freq[p == 0].sum() == 0, "a character outside the top k was drawn"


@pytest.mark.exercise("14.10")
def test_14_10_top_1_is_the_argmax_and_the_generator_repeats(impl) -> None:
    logits = mg.tensor(np.random.default_rng(101).standard_normal((50, 9)), dtype=mg.float32)
    got = impl.sample_next(logits, top_k=1, generator=mg.Generator().manual_seed(0))
    np.testing.assert_array_equal(got.numpy(), logits.numpy().argmax(-1))
    a = impl.sample_next(logits, generator=mg.Generator().manual_seed(5))
    b = impl.sample_next(logits, generator=mg.Generator().manual_seed(5))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.exercise("14.10")
@pytest.mark.parametrize("kwargs", [{"temperature": 0.0}, {"temperature": -1.0}, {"top_k": 0}])
def test_14_10_sample_next_rejects_bad_settings(impl, kwargs) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        impl.sample_next(mg.zeros(1, 4), **kwargs)


# ----------------------------------------------------------------------------- by hand
def _without(call, names: tuple[str, ...], what: str):
    """Run ``call()`` and fail if a function whose qualified name starts with one of ``names``
    ran in it: the layer the exercise rebuilds is the checks' oracle, not part of the answer."""
    with watch_calls() as seen:
        result = call()
    used = [q for name in names for q in seen.ran(name)]
    assert not used, f"{what} ran {', '.join(used[:3])}: write it with Tensor ops"
    return result


@pytest.mark.exercise("14.1")
def test_14_1_rnn_cell_is_written_with_tensor_ops(impl) -> None:
    _, x, h, weights = _cell_case(nn.RNNCell, 1, k=4)
    _without(lambda: impl.rnn_cell(x, h, *weights), ("RNNCell", "RNNBase", "RNN."), "rnn_cell")


@pytest.mark.exercise("14.3")
def test_14_3_lstm_cell_is_written_with_tensor_ops(impl) -> None:
    _, x, h, weights = _cell_case(nn.LSTMCell, 4, k=5)
    c = _leaf((2, 4), 6)
    _without(
        lambda: impl.lstm_cell(x, h, c, *weights), ("LSTMCell", "RNNCell", "LSTM."), "lstm_cell"
    )


@pytest.mark.exercise("14.6")
def test_14_6_attention_is_written_with_tensor_ops(impl) -> None:
    q, k, v = (_leaf((2, 3, 4), s) for s in (7, 8, 9))
    _without(
        lambda: impl.attention(q, k, v),
        ("scaled_dot_product_attention", "MultiheadAttention"),
        "attention",
    )


# ----------------------------------------------------------------------------- 14.11
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("c9b72ee94150893b", "44caafb2f3775035353ce418b02a60bc92de0b442486d67f18dcb4677b32598a"),
    "q2": ("0d45b6fc0c3f9740", "c2a44aded417174a0424a485ada5d93ee4edcb7e8344f2389c4e13a549385084"),
    "q3": ("ce79a2eeb388e8c7", "ce08c9eb6ea7e95c4f5b9c3bdb5c567ed568c49157421a56181329d5cde1a52b"),
    "q4": ("8dd245191555929e", "6a0a1606e73315709319f6739a7ce2fa7eaeb4c797e278d3a41d1b11064f1ad3"),
    "q5": ("f54e8ba4bc15bb8f", "a8b3ad7d8909a109b3740bf91264c2b8efca2f677b939d8d8c5c05c0b6051d1a"),
}
QUIZ_HINTS = {
    "q1": (
        "Each step back through time multiplies by W^T ('Gradients through time: vanishing and "
        "exploding')."
    ),
    "q2": (
        "Differentiate c_t with respect to c_{t-1} and compare with dh_t/dh_{t-1} of the RNN "
        "('The LSTM: a memory with gates')."
    ),
    "q3": (
        "What is the variance of a sum of d products of independent N(0, 1) entries ('Why "
        "divide by sqrt(d)')?"
    ),
    "q4": (
        "Re-read 'The causal mask': which positions may position t see, and what is it asked to "
        "predict?"
    ),
    "q5": (
        "Divide the logits [2, 1, 0] by 0.01 and take the softmax ('Sampling: temperature and "
        "top-k')."
    ),
}


@pytest.mark.exercise("14.11")
@pytest.mark.parametrize("question", list(QUIZ))
def test_14_11_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
