"""Chapter 15 solutions: attention and the GPT. Scaled dot-product attention by hand, the causal
mask, heads, a Transformer block, and sampling from a character-level GPT."""

from __future__ import annotations

import math

import minigenesis as mg
from minigenesis import nn


def windows(ids: mg.Tensor, seq_len: int, batch_size: int) -> tuple[mg.Tensor, mg.Tensor]:
    """Ready-made (not an exercise): ``batch_size`` random windows of ``seq_len`` characters and,
    for each, the same window shifted by one (the next character to predict at each position).
    Both int64 of shape (batch_size, seq_len)."""
    starts = mg.randint(0, ids.shape[0] - seq_len - 1, (batch_size,)).tolist()
    x = mg.stack([ids[s : s + seq_len] for s in starts])
    y = mg.stack([ids[s + 1 : s + seq_len + 1] for s in starts])
    return x, y


def attention(
    q: mg.Tensor, k: mg.Tensor, v: mg.Tensor, mask: mg.Tensor | None = None
) -> tuple[mg.Tensor, mg.Tensor]:
    """Exercise 15.1: scaled dot-product attention, with the weights it used:

        weights = softmax(q k^T / sqrt(d)),   out = weights v

    q: (..., T, d), k: (..., S, d), v: (..., S, d_v), the leading dimensions (batch, heads)
    broadcast. ``mask``: bool, broadcastable to (..., T, S), True where query t may look at key s
    (the convention of ``F.scaled_dot_product_attention``'s boolean ``attn_mask``); a score
    where it is False becomes -inf before the softmax, so its weight is exactly 0. Returns
    (out (..., T, d_v), weights (..., T, S)). Tensor ops only (``@``, ``.mT``, ``masked_fill``,
    ``softmax``).
    """
    scores = q @ k.mT / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


def causal_mask(t: int) -> mg.Tensor:
    """Exercise 15.2: the causal mask of a sequence of ``t`` positions: a bool (t, t) tensor,
    True at [i, j] when j <= i (position i may look at itself and the positions before it, never
    after). ``t`` must be a positive integer: raise ``ValueError`` naming ``t`` otherwise.

    Hint: what does comparing a column of positions with a row of positions give, once
    broadcasting has made it a square?"""
    if int(t) != t or t <= 0:
        raise ValueError(f"causal_mask: t must be a positive integer, got {t!r}")
    positions = mg.arange(int(t))
    return positions[:, None] >= positions[None, :]


def split_heads(x: mg.Tensor, n_heads: int) -> mg.Tensor:
    """Exercise 15.3: (batch, T, C) -> (batch, n_heads, T, C // n_heads).

    Head h gets the columns h * D ... (h + 1) * D - 1 (D = C // n_heads), the layout of
    ``nn.MultiheadAttention``: reshape to (batch, T, n_heads, D), then swap the T and head axes.
    A ``ValueError`` when C is not a multiple of ``n_heads``.
    """
    batch, t, c = x.shape
    if c % n_heads != 0:
        raise ValueError(f"split_heads: {c} features do not split into n_heads={n_heads} heads")
    return x.reshape(batch, t, n_heads, c // n_heads).transpose(1, 2)


def merge_heads(x: mg.Tensor) -> mg.Tensor:
    """Exercise 15.3: the inverse of ``split_heads``: (batch, H, T, D) -> (batch, T, H * D), the
    heads side by side again (``merge_heads(split_heads(x, h))`` is ``x``)."""
    batch, heads, t, d = x.shape
    return x.transpose(1, 2).reshape(batch, t, heads * d)


class CausalSelfAttention(nn.Module):
    """Ready-made (not an exercise): multi-head causal self-attention from the pieces of
    exercises 15.1-15.3.

    ``qkv`` (one Linear, d_model -> 3 d_model) makes queries, keys and values at once; each is
    split into heads, attends causally, the heads are merged and ``proj`` mixes them. The
    attention weights of the last call are kept in ``last_weights`` (batch, heads, T, T), for
    pictures."""

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        if d_model % n_heads != 0:
            raise ValueError(f"d_model={d_model} is not a multiple of n_heads={n_heads}")
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.last_weights: mg.Tensor | None = None

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """x (batch, T, d_model) -> (batch, T, d_model); position t sees positions <= t only."""
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (split_heads(z, self.n_heads) for z in (q, k, v))
        out, weights = attention(q, k, v, causal_mask(x.shape[1]))
        self.last_weights = weights.detach()
        return self.proj(merge_heads(out))


class Block(nn.Module):
    """Exercise 15.4: a pre-norm Transformer block, as in GPT-2:

        x = x + attn(ln_1(x))
        x = x + mlp(ln_2(x))

    - ``self.ln_1``, ``self.ln_2``: ``nn.LayerNorm(d_model)``;
    - ``self.attn = CausalSelfAttention(d_model, n_heads)`` (ready-made above);
    - ``self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
      nn.Linear(4 * d_model, d_model))``.

    Each sub-layer reads a normalised copy of x and *adds* its result: the residual path
    carries x (and its gradient) through the block unchanged.
    """

    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_heads)
        self.ln_2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model)
        )

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 15.4 (forward): the two residual sub-layers, each after its LayerNorm."""
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


def sample_next(
    logits: mg.Tensor,
    temperature: float = 1.0,
    top_k: int | None = None,
    generator: mg.Generator | None = None,
) -> mg.Tensor:
    """Exercise 15.5: draw one next token per row of ``logits`` (batch, vocab) -> int64 (batch,).

    Divide the logits by ``temperature`` (below 1 sharpens the distribution, above 1 flattens
    it); with ``top_k``, keep the k largest logits of each row (``mg.topk``) and set the others to
    -inf; then draw from ``softmax`` with ``mg.multinomial(probs, 1, generator=generator)``.
    A ``ValueError`` for temperature <= 0 or top_k < 1.
    """
    if not temperature > 0:
        raise ValueError(f"sample_next: temperature must be > 0, got {temperature!r}")
    logits = logits / temperature
    if top_k is not None:
        if top_k < 1:
            raise ValueError(f"sample_next: top_k must be at least 1, got {top_k!r}")
        kth = mg.topk(logits, min(top_k, logits.shape[-1]), dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    probs = logits.softmax(dim=-1)
    return mg.multinomial(probs, 1, generator=generator).squeeze(-1)


class CharGPT(nn.Module):
    """Ready-made (not an exercise): a character-level GPT.

    A token embedding plus a learned position embedding, ``n_layers`` Blocks (exercise 15.4), a
    final LayerNorm and a Linear to one score per character. ``forward(idx)``: int64 (batch, T)
    with T <= block_size -> logits (batch, T, vocab_size); the logits at position t predict
    character t + 1 from characters 0..t.
    """

    def __init__(
        self,
        vocab_size: int,
        block_size: int,
        d_model: int = 48,
        n_heads: int = 4,
        n_layers: int = 2,
    ) -> None:
        super().__init__()
        self.block_size = block_size
        self.tok_embed = nn.Embedding(vocab_size, d_model)
        self.pos_embed = nn.Embedding(block_size, d_model)
        self.blocks = nn.Sequential(*[Block(d_model, n_heads) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)

    def forward(self, idx: mg.Tensor) -> mg.Tensor:
        """Token plus position embeddings, the blocks, the final norm, the head."""
        t = idx.shape[1]
        if t > self.block_size:
            raise ValueError(f"CharGPT: {t} positions, more than block_size={self.block_size}")
        x = self.tok_embed(idx) + self.pos_embed(mg.arange(t))
        return self.head(self.ln_f(self.blocks(x)))

    def generate(
        self,
        prompt: list[int],
        n: int,
        temperature: float = 1.0,
        top_k: int | None = None,
        generator: mg.Generator | None = None,
    ) -> list[int]:
        """The prompt followed by ``n`` sampled characters (``sample_next``). A GPT keeps no state:
        each step reads the last ``block_size`` characters again."""
        was_training = self.training
        self.eval()
        out = list(prompt)
        with mg.no_grad():
            for _ in range(n):
                context = mg.tensor([out[-self.block_size :]], dtype=mg.int64)
                logits = self(context)[:, -1]
                out.append(int(sample_next(logits, temperature, top_k, generator)[0]))
        self.train(was_training)
        return out


def quiz() -> dict[str, str]:
    """Exercise 15.6: the answers to the self-check questions, each with the reason."""
    return {
        # A sum of 64 products of unit-variance terms has variance 64; softmax of scores spread by 8
        # puts almost all weight on the largest, where its gradient is tiny. Dividing by sqrt(d)
        # keeps variance 1.
        "q1": "c",
        # With the future visible, predicting token t+1 is copying it; nothing about language is
        # learned. Generation runs one position at a time, where nothing later exists.
        "q2": "a",
        # (batch, T, C) read as (batch, H, T, D) in memory order: head 0 gets the first T / H
        # positions, each cut into H rows of D; the heads split the sequence instead of the
        # features, and the shapes still fit, so nothing raises.
        "q3": "d",
        # Attention is a weighted average over a set: with the same characters before it, the
        # last position of "pots" and of "tops" computes the same scores, weights and average.
        "q4": "b",
        # softmax(logits / T) tends to one-hot on the argmax as T -> 0 (and to uniform as T -> inf).
        "q5": "c",
    }
