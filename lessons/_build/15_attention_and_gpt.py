# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   language_info:
#     name: python
#     pygments_lexer: ipython3
# ---


# %% [markdown]
# # Chapter 15: Attention and a small GPT
#
# The RNN of chapter 14 squeezes everything it has read into one state of fixed size, and what
# it needs from 40 characters back has to survive 40 steps of that squeeze. **Attention** drops
# the state: every position looks at the earlier positions directly, and takes what it needs.
#
# This chapter:
#
# - writes scaled dot-product attention by hand and sees, in numbers, **why the scores are
#   divided by sqrt(d)**;
# - adds the **causal mask** that keeps a language model from reading the answer;
# - cuts the attention into **heads** and rebuilds `nn.MultiheadAttention` from the pieces;
# - writes a pre-norm **Transformer block** and sees why it needs **positions**;
# - trains a small character-level **GPT** on the fables shipped with minigenesis, in well under
#   a minute on one core, and samples from it with a temperature and top-k.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import time

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.viz import plot_attention

# %% [markdown]
# ## Attention: every position looks back directly
#
# Every position emits three vectors: a **query** q (what am I looking for?), a **key** k (what
# do I hold?) and a **value** v (what do I pass on?). Position t scores every position s by
# q_t . k_s, turns the scores into weights with a softmax, and returns the weighted average of
# the values:
#
# $$\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^T}{\sqrt{d}}\right) V$$
#
# with Q (T, d), K (S, d), V (S, d_v): one matmul for all scores, one for all averages. A
# **mask** removes some (query, key) pairs: their score becomes -inf, so exp gives exactly 0.
#
# **Exercise 15.1**: `attention(q, k, v, mask=None)` returns the output and the weights.

# %%
mg.manual_seed(0)
q, k, v = mg.randn(2, 5, 8), mg.randn(2, 6, 8), mg.randn(2, 6, 3)
out, weights = ex.attention(q, k, v)
print("out", tuple(out.shape), "weights", tuple(weights.shape))
print("each query's weights sum to 1:", np.allclose(weights.sum(-1).numpy(), 1.0))
fused = F.scaled_dot_product_attention(q, k, v)
print("F.scaled_dot_product_attention agrees:", np.allclose(out.numpy(), fused.numpy(), atol=1e-6))

# %% [markdown]
# ## Why divide by sqrt(d)
#
# Take queries and keys with independent entries of mean 0 and variance 1. The score q . k is a
# sum of d such products: its variance is d. With d = 256 the scores spread over about +-16, and
# exp of that makes the softmax nearly **one-hot**: all the weight on one key, and a gradient
# near zero, since the softmax's Jacobian diag(p) - p p^T vanishes when p is one-hot (the same
# saturation as a tanh pushed to +-1). Dividing by sqrt(d) brings the scores back to variance 1,
# whatever d is. In numbers, 16 keys per query, averaged over 500 queries:

# %%
mg.manual_seed(0)
print(f"{'':18}{'unscaled':^21}{'scaled by 1/sqrt(d)':^21}")
print(
    f"{'d':>5} {'score std':>12} {'max weight':>11} {'|grad|':>9} {'max weight':>11} {'|grad|':>9}"
)
for d in (4, 16, 64, 256, 1024):
    q, k = mg.randn(500, 1, d), mg.randn(500, 16, d)
    row = [d]
    for scale in (1.0, 1 / np.sqrt(d)):
        scores = ((q @ k.mT) * scale).detach().requires_grad_()
        w = scores.softmax(dim=-1)
        (w * mg.randn(w.shape)).sum().backward()  # a random upstream gradient
        if scale == 1.0:
            row.append(float(scores.std()))
        row += [float(w.amax(dim=-1).mean()), float(scores.grad.norm(dim=-1).mean())]
    print(f"{row[0]:5} {row[1]:12.2f} {row[2]:11.3f} {row[3]:9.3f} {row[4]:11.3f} {row[5]:9.3f}")

# %% [markdown]
# Unscaled, the largest weight climbs towards 1 and the gradient reaching the scores shrinks as
# d grows: queries and keys would barely learn. Scaled, both stay where they were at d = 4.
#
# ## The causal mask
#
# A language model predicts character t + 1 from characters 0..t; during training it sees the
# whole window at once, so position t must be kept from looking at the positions after it, or it
# would simply read the answer. The **causal mask** allows key j for query i when j <= i: the
# lower triangle.
#
# **Exercise 15.2**: `causal_mask(t)`, a bool (t, t) tensor.

# %%
print(ex.causal_mask(5).int())
word = list("a fox.")
mg.manual_seed(1)
q, k, v = mg.randn(6, 4), mg.randn(6, 4), mg.randn(6, 4)
_, free = ex.attention(q, k, v)
_, causal = ex.attention(q, k, v, ex.causal_mask(6))
plot_attention(mg.stack([free, causal]), tokens=word, title="left: no mask; right: causal mask")

# %% [markdown]
# Rows are queries, columns keys. With the mask, the first character can only attend to itself
# (weight 1), and each row spreads its weight over its own past; every row still sums to 1.
#
# ## Several heads
#
# One attention takes one weighted average per position: one kind of question at a time. A
# **multi-head** attention cuts the d_model features of Q, K and V into H groups of D = d_model /
# H and lets each group attend on its own: one head may follow the previous character, another
# the start of the word. The heads' outputs are put side by side again and mixed by a Linear.
# Cutting into heads is only a reshape: (batch, T, d_model) -> (batch, T, H, D) -> (batch, H, T,
# D), and `attention` broadcasts over the batch and head axes.
#
# **Exercise 15.3**: `split_heads(x, n_heads)` and `merge_heads(x)`.
#
# `nn.MultiheadAttention` holds the three projections as one `in_proj_weight` (3 d_model,
# d_model) and the mixing Linear as `out_proj`. With its weights, our pieces give its output and
# each head's weights. One trap: its boolean `attn_mask` is True where attention is **blocked**,
# the opposite of `F.scaled_dot_product_attention` (and of our `attention`).

# %%
mg.manual_seed(0)
mha = nn.MultiheadAttention(16, 4, batch_first=True)
x = mg.randn(2, 6, 16)
mask = ex.causal_mask(6)
q, k, v = (x @ mha.in_proj_weight.mT + mha.in_proj_bias).chunk(3, dim=-1)
q, k, v = (ex.split_heads(z, 4) for z in (q, k, v))
print("one head's queries:", tuple(q.shape))
out, head_weights = ex.attention(q, k, v, mask)
mine = mha.out_proj(ex.merge_heads(out))
ref, ref_weights = mha(x, x, x, attn_mask=~mask, average_attn_weights=False)  # True = blocked
fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)


def same(a: mg.Tensor, b: mg.Tensor) -> bool:
    return np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-6)


print("output equals nn.MultiheadAttention's:", same(mine, ref))
print("every head's weights equal its per-head weights:", same(head_weights, ref_weights))
print("F.scaled_dot_product_attention(is_causal=True) agrees:", same(fused, out))

# %% [markdown]
# `CausalSelfAttention` (ready-made in `exercises.py`) is these lines as a module: one Linear to
# q, k and v, your three functions, and `proj`.
#
# ## A Transformer block
#
# A GPT stacks identical **blocks**. Each has two sub-layers, and each sub-layer reads a
# LayerNorm'ed copy of x and *adds* its result to x:
#
# $$x \leftarrow x + \mathrm{Attn}(\mathrm{LN}_1(x)), \qquad
# x \leftarrow x + \mathrm{MLP}(\mathrm{LN}_2(x))$$
#
# - attention moves information **between** positions; the MLP (Linear to 4 d_model, GELU, Linear
#   back) works on each position **on its own**;
# - the residual additions give the gradient a path straight through every block, the role the
#   LSTM's cell state played through time;
# - normalising *before* each sub-layer (**pre-norm**, GPT-2's choice) keeps that path clean: x is
#   never normalised on the way through, only the copies the sub-layers read.
#
# **Exercise 15.4**: the `Block`.

# %%
mg.manual_seed(0)
block = ex.Block(48, 4)
for name, parts in (
    ("attention", [block.attn]),
    ("MLP", [block.mlp]),
    ("2 LayerNorms", [block.ln_1, block.ln_2]),
):
    print(f"{name:13} {sum(p.numel() for m in parts for p in m.parameters()):6} parameters")
x = mg.randn(1, 8, 48)
x2 = x.clone()
x2[0, -1] += 1.0  # change only the last position
same = np.allclose(block(x)[0, :-1].detach().numpy(), block(x2)[0, :-1].detach().numpy())
print("the first 7 outputs ignore a change at position 8:", same)

# %% [markdown]
# ## Positions
#
# Attention takes a weighted average over a **set**: nothing in it knows where a key sits. In a
# causal block the output at the last position depends on *which* characters came before, not
# on their order: "pots" and "tops" end in the same vector.

# %%
mg.manual_seed(0)
embed = nn.Embedding(26, 48)
pos_embed = nn.Embedding(8, 48)


def last_output(word: str, positions: bool) -> np.ndarray:
    idx = mg.tensor([[ord(c) - ord("a") for c in word]])
    x = embed(idx) + (pos_embed(mg.arange(len(word))) if positions else 0)
    return block(x)[0, -1].detach().numpy()


for positions in (False, True):
    gap = np.abs(last_output("pots", positions) - last_output("tops", positions)).max()
    print(f"position embeddings {positions!s:5}: last outputs of pots and tops differ by {gap:.2g}")

# %% [markdown]
# The fix is to add a vector per **position** to each character's embedding. GPT-2 *learns* them:
# `nn.Embedding(block_size, d_model)` indexed by `mg.arange(T)`; the original Transformer used
# fixed sines and cosines of several frequencies. Either way the model can only handle positions
# it has vectors for: at most `block_size` characters of context.
#
# ## A character-level GPT
#
# `CharGPT` (ready-made) is the whole model: character and position embeddings, a stack of your
# blocks, a last LayerNorm and a Linear to one score per character. The logits at position t
# predict character t + 1, and thanks to the mask the model learns from all T positions of a
# window at once.
#
# The text is the one minigenesis ships, `mg.datasets.load_corpus()`: short fables, about 8,000
# characters. The last 10% are held out. The baseline to beat is the **unigram** model, which
# predicts every character from its frequency alone, whatever came before: its loss is the
# cross entropy between the held-out characters and the training frequencies. A second yardstick
# is the **bigram** model, which counts which character follows which (plus 0.1 for each pair,
# so that no pair has probability 0): it sees one character of context.

# %%
text = mg.datasets.load_corpus()
chars = mg.datasets.CharDataset(text, block_size=32)  # its vocabulary: chars.itos / chars.stoi
data = mg.tensor(chars.encode(text), dtype=mg.int64)
n_train = int(0.9 * len(data))
train_ids, val_ids = data[:n_train], data[n_train:]
print(f"{len(text)} characters, vocabulary of {chars.vocab_size}")
print(f"{n_train} to train on, {len(val_ids)} held out")

freq = np.bincount(train_ids.numpy(), minlength=chars.vocab_size) / n_train
unigram = -np.mean(np.log(np.maximum(freq[val_ids.numpy()], 1e-12)))
print(f"uniform guess: ln {chars.vocab_size} = {np.log(chars.vocab_size):.2f}")
print(f"unigram baseline (held-out cross entropy): {unigram:.2f} nats per character")

pairs = np.full((chars.vocab_size, chars.vocab_size), 0.1)
np.add.at(pairs, (train_ids.numpy()[:-1], train_ids.numpy()[1:]), 1.0)
follows = pairs / pairs.sum(axis=1, keepdims=True)  # row a: the distribution after character a
bigram = -np.mean(np.log(follows[val_ids.numpy()[:-1], val_ids.numpy()[1:]]))
print(f"bigram (held-out cross entropy): {bigram:.2f}")

# %% [markdown]
# A small configuration: d_model 48, 4 heads, 2 blocks, 32 characters of context, about 65,000
# parameters. AdamW, gradient clipping, 200 steps of 32 windows.

# %%
mg.manual_seed(0)
gpt = ex.CharGPT(chars.vocab_size, block_size=32, d_model=48, n_heads=4, n_layers=2)
print("parameters:", sum(p.numel() for p in gpt.parameters()))
optimizer = mg.optim.AdamW(gpt.parameters(), lr=1e-2, weight_decay=0.01)
gpt_losses = []
start = time.perf_counter()
for _ in range(200):
    x, y = ex.windows(train_ids, seq_len=32, batch_size=32)
    loss = F.cross_entropy(gpt(x).reshape(-1, chars.vocab_size), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(gpt.parameters(), max_norm=1.0)
    optimizer.step()
    gpt_losses.append(loss.item())
print(f"200 steps in {time.perf_counter() - start:.0f} s")
running = np.convolve(gpt_losses, np.ones(10) / 10, mode="valid")  # mean of 10 batches
below = int(np.argmax(running < unigram)) + 9
print(f"the mean loss of 10 batches first drops below the unigram baseline at step {below}")

gpt.eval()
with mg.no_grad():  # the held-out text in windows of 32, every character predicted once
    starts = range(0, len(val_ids) - 33, 32)
    xv = mg.stack([val_ids[s : s + 32] for s in starts])
    yv = mg.stack([val_ids[s + 1 : s + 33] for s in starts])
    val_loss = F.cross_entropy(gpt(xv).reshape(-1, chars.vocab_size), yv.reshape(-1)).item()
gpt.train()
train_loss = float(np.mean(gpt_losses[-20:]))
print(f"training loss (mean of the last 20 steps): {train_loss:.2f}")
print(f"held-out loss: {val_loss:.2f}  (unigram: {unigram:.2f}, bigram: {bigram:.2f})")

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(gpt_losses, label="training batches")
ax.axhline(np.log(chars.vocab_size), color="gray", linestyle=":", label="uniform")
ax.axhline(unigram, color="gray", linestyle="--", label="unigram")
ax.axhline(bigram, color="gray", linestyle="-.", label="bigram")
ax.plot([len(gpt_losses) - 1], [val_loss], "o", color="C3", label="held out, at the end")
ax.set_xlabel("step")
ax.set_ylabel("cross entropy (nats)")
ax.legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# The loss falls through the unigram line early (the step is printed above): the current
# character alone says a lot about the next one, and a GPT gets that for free. Below the bigram
# line the model is using more than one character of context: that is attention at work. The
# held-out loss ends above the training loss: with 8,000 characters the model starts to learn
# the text by heart, a gap that more text (or dropout) would close.
#
# ## Sampling: temperature and top-k
#
# To write, the model gives a distribution over the next character; greedy decoding takes its
# argmax, which soon loops. **Sampling** draws from it instead, with two knobs:
#
# - **temperature** tau divides the logits: softmax(z / tau). tau < 1 sharpens the distribution
#   (safer, duller), tau > 1 flattens it (more varied, more mistakes);
# - **top-k** keeps only the k most likely characters, so a rare bad draw from the long tail
#   cannot derail the text.
#
# **Exercise 15.5**: `sample_next(logits, temperature, top_k, generator)`, with `mg.topk` and
# `mg.multinomial`.

# %%
prompt = "The fox "
with mg.no_grad():
    gpt.eval()
    logits = gpt(mg.tensor([chars.encode(prompt)]))[0, -1]
    gpt.train()
for tau in (0.5, 1.0, 2.0):
    p = (logits / tau).softmax(dim=-1)
    top = mg.topk(p, 5)
    pairs = zip(top.values.tolist(), top.indices.tolist())
    shown = "  ".join(f"{chars.itos[i]!r} {w:.2f}" for w, i in pairs)
    print(f"temperature {tau}: {shown}")

generator = mg.Generator().manual_seed(0)
for tau, top_k in ((1.0, 1), (0.8, 5), (1.0, None), (1.5, None)):
    out = gpt.generate(chars.encode(prompt), 120, temperature=tau, top_k=top_k, generator=generator)
    print(f"\n--- temperature {tau}, top_k {top_k}:\n{chars.decode(out)}")

# %% [markdown]
# `top_k=1` is greedy decoding. Note what `generate` does at every step: it runs the model on
# the last 32 characters again, since a GPT carries no state from one call to the next (real
# implementations keep each layer's keys and values from the previous steps, a *KV cache*, and
# compute only the new position).
#
# What did the heads learn? The weights of the first block on a sentence from the held-out text:

# %%
held_out = chars.decode(val_ids.tolist())
start = held_out.index(" ") + 1  # from the start of a word
sentence = held_out[start : start + 20]
with mg.no_grad():
    gpt.eval()
    gpt(mg.tensor([chars.encode(sentence)]))
    gpt.train()
w = gpt.blocks[0].attn.last_weights[0].numpy()  # (heads, T, T)
for h in range(w.shape[0]):
    itself, before = np.diagonal(w[h])[1:].mean(), np.diagonal(w[h], -1).mean()  # rows 1..T-1
    print(f"head {h}: mean weight on the character itself {itself:.2f}, on the one before", end="")
    print(f" {before:.2f}, further back {1 - itself - before:.2f}")
plot_attention(w, tokens=list(sentence), title="the first block's heads")

# %% [markdown]
# Some heads put most of their weight on the character before (the bigram's context, passed on
# to the next layer), others spread it further back over the word so far; which head does what
# changes with the initialization. The blocks above read vectors that attention has already
# mixed, so their maps are harder to read.


# %% [markdown]
# ## Summary
#
# - Attention drops the state: each position takes a weighted average of the values of the
#   positions it may see, softmax(Q K^T / sqrt(d)) V; the sqrt(d) keeps the softmax out of
#   saturation, the causal mask keeps the future out.
# - Heads are a reshape: d_model columns cut into H groups that attend independently, side by side
#   again afterwards. (Mind the masks: `F.scaled_dot_product_attention`'s bool mask is True where
#   attention is allowed, `nn.MultiheadAttention`'s where it is blocked.)
# - Attention sees a set: positions have to be added to the input, as learned embeddings here.
# - A GPT is embeddings (characters and positions), pre-norm blocks with residuals
#   (attention, then an MLP with GELU), a last LayerNorm and a Linear to the vocabulary. It keeps
#   no state: generating re-reads the context at every step.
# - Temperature and top-k trade variety for safety when sampling.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 15.6**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/15_attention_and_gpt -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Queries and keys have 64 entries each, all about $N(0, 1)$. What happens to attention if
# the scores are NOT divided by $\sqrt{64}$?
#
# - (a) nothing: softmax is invariant to scaling its input
# - (b) the weights become nearly uniform
# - (c) the scores have a standard deviation of about 8, softmax becomes nearly one-hot, and its
#   gradient nearly vanishes
# - (d) the scores overflow to inf in float32
#
# **q2.** A character GPT is trained with the causal mask transposed: each position may attend to
# the positions AFTER it. Its training loss drops near 0 within a few hundred steps. What will its
# samples look like?
#
# - (a) nonsense: it learned to copy the next character, which it could see, and at generation there
#   is no next character to copy
# - (b) the training text, memorized word for word
# - (c) excellent text: a loss near 0 means it has learned the language
# - (d) the same character repeated: the model has collapsed
#
# **q3.** A bug: `split_heads` written as `x.reshape(batch, n_heads, T, D)`, without going
# through (batch, T, n_heads, D) and swapping the axes. The shapes come out right. What do the
# heads get?
#
# - (a) the same tensor as the right version: a reshape is a reshape
# - (b) nothing: the reshape raises, since the sizes do not match
# - (c) the right features in a different order, which the output projection learns to undo
# - (d) head 0 gets the first T / H positions, each cut into H rows: the heads split the
#   sequence instead of the features, and nothing raises
#
# **q4.** A causal Transformer block WITHOUT position embeddings reads the words "pots" and
# "tops". How do the two outputs at the last position compare?
#
# - (a) they differ: the attention weights depend on where each character sits
# - (b) they are equal: the last position attends over the same set of characters, and a
#   weighted average does not know their order
# - (c) they are equal, and so are the outputs at every other position
# - (d) they differ, because the causal mask orders the keys
#
# **q5.** In `sample_next`, what does a temperature close to 0 turn sampling into?
#
# - (a) uniform sampling over the vocabulary
# - (b) top-k sampling with k = 2
# - (c) greedy decoding: logits / T spread apart until the largest gets nearly all the probability
# - (d) sampling from the model's distribution, unchanged
