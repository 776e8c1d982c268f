"""Chapter 15 exercises: attention and the GPT. Scaled dot-product attention by hand, the causal
mask, heads, a Transformer block, and sampling from a character-level GPT.

You write them with Tensor ops only; the checks compare them with a NumPy attention and a NumPy
Transformer block, with F.scaled_dot_product_attention and nn.MultiheadAttention, and with the
exact probabilities of tempered top-k sampling.

    python -m pytest lessons/15_attention_and_gpt
"""

from __future__ import annotations

import math  # noqa: F401  (math.sqrt, for exercise 15.1)

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
    raise NotImplementedError(
        "Exercise 15.1: softmax(q k^T / sqrt(d)), -inf where masked; (out, weights)"
    )


def causal_mask(t: int) -> mg.Tensor:
    """Exercise 15.2: the causal mask of a sequence of ``t`` positions: a bool (t, t) tensor,
    True at [i, j] when j <= i (position i may look at itself and the positions before it, never
    after). ``t`` must be a positive integer: raise ``ValueError`` naming ``t`` otherwise.

    Hint: what does comparing a column of positions with a row of positions give, once
    broadcasting has made it a square?"""
    raise NotImplementedError("Exercise 15.2: a bool (t, t) tensor, True where key j <= query i")


def split_heads(x: mg.Tensor, n_heads: int) -> mg.Tensor:
    """Exercise 15.3: (batch, T, C) -> (batch, n_heads, T, C // n_heads).

    Head h gets the columns h * D ... (h + 1) * D - 1 (D = C // n_heads), the layout of
    ``nn.MultiheadAttention``: reshape to (batch, T, n_heads, D), then swap the T and head axes.
    A ``ValueError`` when C is not a multiple of ``n_heads``.
    """
    raise NotImplementedError("Exercise 15.3: reshape to (batch, T, heads, D), swap T and heads")


def merge_heads(x: mg.Tensor) -> mg.Tensor:
    """Exercise 15.3: the inverse of ``split_heads``: (batch, H, T, D) -> (batch, T, H * D), the
    heads side by side again (``merge_heads(split_heads(x, h))`` is ``x``)."""
    raise NotImplementedError("Exercise 15.3: swap heads and T back, reshape to (batch, T, C)")


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
        raise NotImplementedError("Exercise 15.4: ln_1, attn, ln_2 and an MLP with GELU")

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        """Exercise 15.4 (forward): the two residual sub-layers, each after its LayerNorm."""
        raise NotImplementedError("Exercise 15.4: x + attn(ln_1(x)), then + mlp(ln_2(x))")


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
    raise NotImplementedError("Exercise 15.5: / temperature, top-k, softmax, mg.multinomial")


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
    """Exercise 15.6: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 5 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 15.6: return {'q1': letter, ...}, your answers to the self-check questions"
    )
