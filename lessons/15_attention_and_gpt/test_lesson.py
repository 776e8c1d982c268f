"""Checks for chapter 15. Oracles: a NumPy attention and a NumPy Transformer block,
F.scaled_dot_product_attention and nn.MultiheadAttention (and torch's attention when installed),
and the exact probabilities of tempered top-k sampling."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis import nn

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 15.1  return F.scaled_dot_product_attention's output            -> by-hand watch
#       no 1/sqrt(d) scale                                         -> vs NumPy attention
#       masked_fill(~mask, -1e4) in place of -inf                  -> masked weights are zero
# 15.2  np.tril(np.ones) as a float tensor                        -> bool dtype
#       no check of t (t = 0 gives an empty mask)                   -> ValueError for t <= 0
# 15.3  x.reshape(batch, heads, T, D) (mixes positions into heads) -> each head its columns
#       merge by reshape without the transpose back                 -> merge puts heads side by side
# 15.4  nn.MultiheadAttention without the causal mask           -> layers, block is causal
#       post-norm (LayerNorm after the residual)                    -> forward vs NumPy GPT-2 block
#       ln_1 in front of the MLP too (ln_2 unused)                  -> forward vs NumPy GPT-2 block
# 15.5  temperature applied after the softmax                     -> sampling frequencies
#       top_k ignored                                             -> frequencies, top-1 = argmax


def _leaf(shape, k, scale=0.5):
    rng = np.random.default_rng(k)
    return mg.tensor(rng.standard_normal(shape) * scale, dtype=mg.float64, requires_grad=True)


def _assert_close(a, b, what):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12,
                               err_msg=what)  # fmt: skip


# ----------------------------------------------------------------------------- 15.1 - 15.5
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


# ----------------------------------------------------------------------------- 15.1
@pytest.mark.exercise("15.1")
@pytest.mark.parametrize("masked", [False, True], ids=["no_mask", "mask"])
def test_15_1_attention_matches_numpy(impl, masked) -> None:
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
    got_w, hint = weights.detach().numpy(), ""
    for wrong, why in ((8.0, "divided the scores by d"), (1.0, "did not scale the scores")):
        d_instead = _np_attention(q * np.sqrt(8.0) / wrong, k, v, mask)[1]  # scores / wrong
        if np.allclose(got_w, d_instead, rtol=1e-8):
            hint = f"you {why}: divide them by sqrt(d), d = {q.shape[-1]}"
    np.testing.assert_allclose(got_w, ref_w, rtol=1e-10, atol=1e-12, err_msg=hint)
    np.testing.assert_allclose(out.detach().numpy(), ref_out, rtol=1e-10, atol=1e-12)
    if masked:
        assert (weights.detach().numpy()[..., ~mask] == 0).all(), "masked weights must be 0"


@pytest.mark.exercise("15.1")
def test_15_1_masked_weights_are_zero_whatever_the_scores(impl) -> None:
    """Scores of -20000 (q and k far apart): a large negative number in place of -inf would
    outweigh them and give the masked keys the weight."""
    q = np.full((3, 4), 100.0)
    k, v = -q, np.arange(12.0).reshape(3, 4)
    mask = _np_causal(3)
    _, weights = impl.attention(*(mg.tensor(a) for a in (q, k, v)), mg.tensor(mask))
    got = weights.detach().numpy()
    assert (got[~mask] == 0).all(), (
        f"weights where the mask is False: {got[~mask]} with scores of -20000: a masked score "
        "becomes -inf (float('-inf')), below every score a query can have"
    )
    np.testing.assert_allclose(got, _np_attention(q, k, v, mask)[1], rtol=1e-12)


@pytest.mark.exercise("15.1")
def test_15_1_attention_gradients_match_scaled_dot_product_attention(impl) -> None:
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


@pytest.mark.exercise("15.1")
def test_15_1_attention_agrees_with_torch(impl) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(65)
    q, k, v = (rng.standard_normal((3, 7, 16)) for _ in range(3))
    mask = _np_causal(7)
    out, _ = impl.attention(*(mg.tensor(a) for a in (q, k, v)), mg.tensor(mask))
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), attn_mask=torch.tensor(mask)
    )
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy(), rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- 15.2
@pytest.mark.exercise("15.2")
@pytest.mark.parametrize("t", [1, 2, 7])
def test_15_2_causal_mask_is_the_lower_triangle(impl, t) -> None:
    mask = impl.causal_mask(t)
    assert mask.dtype == mg.bool, f"a bool mask, got {mask.dtype}"
    got, want = mask.numpy(), _np_causal(t)
    hint = (
        "the diagonal is False: position i may look at itself too (j <= i, not j < i)"
        if got.shape == want.shape and np.array_equal(got, np.tril(want, -1))
        else "True marks the FUTURE here: True where j <= i (the lower triangle), False above"
        if got.shape == want.shape and np.array_equal(got, ~want | np.eye(t, dtype=bool))
        else ""
    )
    np.testing.assert_array_equal(got, want, err_msg=hint)


@pytest.mark.exercise("15.2")
def test_15_2_causal_attention_ignores_the_future(impl) -> None:
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


@pytest.mark.exercise("15.2")
def test_15_2_causal_mask_rejects_a_non_positive_length(impl) -> None:
    with pytest.raises(ValueError, match="t"):
        impl.causal_mask(0)


# ----------------------------------------------------------------------------- 15.3
@pytest.mark.exercise("15.3")
def test_15_3_split_heads_gives_each_head_its_columns(impl) -> None:
    x = np.random.default_rng(80).standard_normal((2, 5, 12))
    heads = impl.split_heads(mg.tensor(x), 3)
    assert tuple(heads.shape) == (2, 3, 5, 4)
    for h in range(3):
        np.testing.assert_array_equal(heads.numpy()[:, h], x[:, :, 4 * h : 4 * h + 4])
    np.testing.assert_array_equal(impl.merge_heads(heads).numpy(), x)


@pytest.mark.exercise("15.3")
def test_15_3_merge_heads_puts_the_heads_side_by_side(impl) -> None:
    y = np.random.default_rng(81).standard_normal((2, 4, 3, 5))  # (batch, heads, T, D)
    merged = impl.merge_heads(mg.tensor(y))
    assert tuple(merged.shape) == (2, 3, 20)
    np.testing.assert_array_equal(merged.numpy(), np.concatenate(list(y.transpose(1, 0, 2, 3)), -1))


@pytest.mark.exercise("15.3")
def test_15_3_split_heads_rejects_an_uneven_split(impl) -> None:
    with pytest.raises(ValueError, match="n_heads"):
        impl.split_heads(mg.zeros(1, 2, 10), 4)


@pytest.mark.exercise("15.3")
def test_15_3_heads_by_hand_reproduce_nn_multiheadattention(impl) -> None:
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


# ----------------------------------------------------------------------------- 15.4
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


@pytest.mark.exercise("15.4")
def test_15_4_block_has_gpt2s_layers(impl) -> None:
    mg.manual_seed(0)
    block = impl.Block(16, 4)
    assert isinstance(block.ln_1, nn.LayerNorm) and isinstance(block.ln_2, nn.LayerNorm)
    assert tuple(block.ln_1.weight.shape) == (16,) and tuple(block.ln_2.weight.shape) == (16,)
    assert isinstance(block.attn, impl.CausalSelfAttention) and block.attn.n_heads == 4
    assert isinstance(block.mlp, nn.Sequential) and len(block.mlp) == 3
    assert isinstance(block.mlp[1], nn.GELU), "the MLP's activation is GELU"
    assert tuple(block.mlp[0].weight.shape) == (64, 16), "the MLP widens to 4 * d_model"
    assert tuple(block.mlp[2].weight.shape) == (16, 64)


@pytest.mark.exercise("15.4")
def test_15_4_block_forward_matches_numpy(impl) -> None:
    mg.manual_seed(1)
    block = impl.Block(12, 3).to(mg.float64)
    with mg.no_grad():  # LayerNorm's affine parameters away from their (1, 0) start
        for i, ln in enumerate((block.ln_1, block.ln_2)):  # each its own: ln_1 is not ln_2
            ln.weight.copy_(mg.tensor(np.random.default_rng(90 + 2 * i).uniform(0.5, 1.5, 12)))
            ln.bias.copy_(mg.tensor(np.random.default_rng(91 + 2 * i).normal(0, 0.3, 12)))
    x = np.random.default_rng(92).standard_normal((2, 6, 12))
    got = block(mg.tensor(x))
    assert tuple(got.shape) == (2, 6, 12)
    np.testing.assert_allclose(got.detach().numpy(), _np_block(x, block, 3), rtol=1e-9, atol=1e-10)


@pytest.mark.exercise("15.4")
def test_15_4_block_is_causal_and_carries_the_gradient(impl) -> None:
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


# ----------------------------------------------------------------------------- 15.5
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


@pytest.mark.exercise("15.5")
@pytest.mark.parametrize(
    "temperature,top_k", [(1.0, None), (0.5, None), (2.0, None), (1.0, 3), (0.7, 2)]
)
def test_15_5_sampling_frequencies_match_the_tempered_top_k_softmax(
    impl, temperature, top_k
) -> None:
    n = 40_000
    freq = _frequencies(impl, _LOGITS, n, seed=100, temperature=temperature, top_k=top_k)
    p = _np_probs(_LOGITS, temperature, top_k)
    sigma = np.sqrt(p * (1 - p) / n)
    assert (np.abs(freq - p) <= 5 * sigma + 1e-12).all(), f"frequencies {freq}, expected {p}"
    if top_k is not None:
        assert freq[p == 0].sum() == 0, "a character outside the top k was drawn"


@pytest.mark.exercise("15.5")
def test_15_5_top_1_is_the_argmax_and_the_generator_repeats(impl) -> None:
    logits = mg.tensor(np.random.default_rng(101).standard_normal((50, 9)), dtype=mg.float32)
    got = impl.sample_next(logits, top_k=1, generator=mg.Generator().manual_seed(0))
    np.testing.assert_array_equal(got.numpy(), logits.numpy().argmax(-1))
    a = impl.sample_next(logits, generator=mg.Generator().manual_seed(5))
    b = impl.sample_next(logits, generator=mg.Generator().manual_seed(5))
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.exercise("15.5")
@pytest.mark.parametrize("kwargs", [{"temperature": 0.0}, {"temperature": -1.0}, {"top_k": 0}])
def test_15_5_sample_next_rejects_bad_settings(impl, kwargs) -> None:
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


@pytest.mark.exercise("15.1")
def test_15_1_attention_is_written_with_tensor_ops(impl) -> None:
    q, k, v = (_leaf((2, 3, 4), s) for s in (7, 8, 9))
    _without(
        lambda: impl.attention(q, k, v),
        ("scaled_dot_product_attention", "MultiheadAttention"),
        "attention",
    )


# ----------------------------------------------------------------------------- 15.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("1c255c5750150126", "5c90dd40d4eb5d492934acca08d804302666dec6eb847c942777d82b8f7846c6"),
    "q2": ("fda9d6b44940da3f", "f6299693c9237d671cab027b6d62652bfe9b906aa697aa50e123f0388fe74ab9"),
    "q3": ("797f6c5baa6651d1", "46e6009f9a492f3402c874f6fb35de2eccf4d84485b0f354011563224e0c59ed"),
    "q4": ("80066bcd4e5a3735", "ea87c0b2eca6d2f8c16e522d2d95c608c5fe466e68d8ee7333f0eacefd4855aa"),
    "q5": ("6662d0b19fbfc52f", "b57927185128c07f5075f1f9e6346fee8be472f9324218f6dc931d2e61be92b7"),
}
QUIZ_HINTS = {
    "q1": (
        "What is the variance of a sum of d products of independent N(0, 1) entries ('Why "
        "divide by sqrt(d)')?"
    ),
    "q2": (
        "Re-read 'The causal mask': which positions may position t see, and what is it asked to "
        "predict?"
    ),
    "q3": (
        "Write out which numbers of x land in head 0 when (batch, T, C) is read as (batch, H, "
        "T, D) in memory order ('Several heads')."
    ),
    "q4": (
        "Re-read 'Positions': what does attention at the last position compute from, and does "
        "it depend on the order of what it averages?"
    ),
    "q5": (
        "Divide the logits [2, 1, 0] by 0.01 and take the softmax ('Sampling: temperature and "
        "top-k')."
    ),
}


@pytest.mark.exercise("15.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_15_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
