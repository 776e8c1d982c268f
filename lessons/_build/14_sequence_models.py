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
# # Chapter 14: Sequence models: RNNs, LSTMs and a character-level language model
#
# A text, a sound, a series of prices: the input is a *sequence* x_1, x_2, ..., x_T, of any length.
# A recurrent network reads it one step at a time and carries a **state** h from step to step:
# a summary, in a fixed number of numbers, of everything read so far. The same weights are used
# at every step, so one small model handles any length.
#
# This chapter:
#
# - writes the plain RNN step by hand and checks it against `nn.RNNCell` and `nn.RNN`;
# - follows a gradient back through time and sees it **vanish or explode**, in numbers;
# - writes the LSTM step, whose gates give the gradient a path that does not shrink;
# - shows why **gradient clipping** is part of every recurrent training loop;
# - trains a small character-level LSTM on a short text and lets it write.
#
# Chapter 15 replaces the state by **attention** and builds a small GPT.

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

# %% [markdown]
# ## One step of an RNN
#
# The plain (Elman) RNN step mixes the new input and the old state, then squashes:
#
# $$h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})$$
#
# `nn.RNNCell(input_size, hidden_size)` holds exactly these four tensors, named as in PyTorch:
# `weight_ih` (hidden, input), `weight_hh` (hidden, hidden), `bias_ih` and `bias_hh`.
#
# **Exercise 14.1**: write `rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh)` with Tensor ops.

# %%
mg.manual_seed(0)
cell = nn.RNNCell(3, 4)
for name, p in cell.named_parameters():
    print(f"{name:10} {tuple(p.shape)}")
x, h = mg.randn(2, 3), mg.randn(2, 4)
print("yours     ", ex.rnn_cell(x, h, *cell.parameters()).detach().numpy().round(4)[0])
print("nn.RNNCell", cell(x, h).detach().numpy().round(4)[0])

# %% [markdown]
# A sequence is the same step in a loop. `nn.RNN` is that loop (with more options: several
# layers, both directions, `batch_first`); it returns the state after every step (`output`, shape
# (T, batch, hidden)) and the last one (`h_n`, shape (layers, batch, hidden)).

# %%
mg.manual_seed(0)
rnn = nn.RNN(3, 4)
xs = mg.randn(6, 2, 3)  # (T, batch, features): PyTorch's default layout
h = mg.zeros(2, 4)
for t in range(6):
    h = ex.rnn_cell(xs[t], h, *rnn.parameters())
output, h_n = rnn(xs)
print("output", tuple(output.shape), "h_n", tuple(h_n.shape))
print("our loop's last state equals h_n:", np.allclose(h.detach().numpy(), h_n[0].detach().numpy()))

# %% [markdown]
# Inside minigenesis, `nn.RNN` does not run this composition of a dozen small ops. It computes
# x W_ih^T for all steps at once (one big matmul) and then runs one **fused cell op** per step
# (`minigenesis/ops/rnn.py`): its forward keeps what backward needs, and its backward computes the
# gradients of the step in a few array expressions. The numbers are the same; the graph has one
# node per step instead of many.
#
# ## Gradients through time: vanishing and exploding
#
# Back-propagating through T steps multiplies T Jacobians, one per step. Strip the RNN down to
# its skeleton, a linear recurrence h_t = h_{t-1} W^T, and the product is W^T itself, T times:
# dL/dh_0 = dL/dh_T W^T. Its size behaves like (largest |eigenvalue| of W)^T: below 1 it
# **vanishes**, above 1 it **explodes**, and only exactly 1 keeps it.
#
# **Exercise 14.2**: `gradient_through_time(w_hh, steps)` runs the recurrence from h_0 = ones,
# back-propagates L = sum(h_steps) and returns |dL/dh_0|.

# %%
rng = np.random.default_rng(0)
q, _ = np.linalg.qr(rng.standard_normal((8, 8)))  # orthogonal: all |eigenvalues| are 1
steps = [1, 5, 10, 20, 40]
print("scale " + "".join(f"{f'T={s}':>12}" for s in steps))
norms = {}
for scale in (0.5, 0.9, 1.0, 1.1, 1.5):
    w = mg.tensor(scale * q)
    norms[scale] = [ex.gradient_through_time(w, s) for s in steps]
    print(f"{scale:5} " + "".join(f"{n:12.3g}" for n in norms[scale]))

fig, ax = plt.subplots(figsize=(5, 3))
for scale, values in norms.items():
    ax.semilogy(steps, values, marker="o", label=f"scale {scale}")
ax.set_xlabel("steps back through time")
ax.set_ylabel("|dL/dh_0|")
ax.legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# With scale 1.5, forty steps multiply the gradient by 1.5^40, about 10^7. A real RNN adds
# tanh, whose slope is at most 1, so in practice gradients mostly *vanish* (the network forgets
# what it read long ago); but when the weights grow, a few steps of large slope are enough to
# **explode**, and one such batch can throw the weights far away.
#
# ## Why gradient clipping
#
# Here is an exploding batch in a real `nn.RNN`: recurrent weights scaled up, a long sequence. The
# gradient norm is huge, and an SGD step of lr 0.1 would move the weights by that much times 0.1.
# `clip_grad_norm_(parameters, max_norm)` rescales the whole gradient so that its norm is at most
# `max_norm`: the direction is kept, the step is bounded.

# %%
mg.manual_seed(0)
rnn = nn.RNN(4, 16)
with mg.no_grad():
    rnn.weight_hh_l0.mul_(6.0)  # large recurrent weights: large slopes, step after step
xs = mg.randn(50, 8, 4)
output, _ = rnn(xs)
(output[-1] ** 2).sum().backward()
grads = [p.grad for p in rnn.parameters()]
before = float(mg.stack([g.norm() for g in grads]).norm())
returned = float(nn.utils.clip_grad_norm_(rnn.parameters(), max_norm=1.0))
after = float(mg.stack([p.grad.norm() for p in rnn.parameters()]).norm())
print(f"gradient norm before clipping: {before:.3g} (clip_grad_norm_ returns it: {returned:.3g})")
print(f"gradient norm after clipping:  {after:.3g}")
print(f"an SGD step of lr 0.1 moves the weights by {0.1 * before:.3g} unclipped,", end=" ")
print(f"by {0.1 * after:.3g} clipped")

# %% [markdown]
# Clipping does not fix vanishing gradients: for those the architecture has to change.
#
# ## The LSTM: a memory with gates
#
# The LSTM keeps a second state, the **cell** c, and changes it only by elementwise gating:
#
# $$i, f, o = \sigma(\cdot),\quad g = \tanh(\cdot),\quad c_t = f \odot c_{t-1} + i \odot g,\quad
# h_t = o \odot \tanh(c_t)$$
#
# where each (.) is a block of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh, in PyTorch's order i,
# f, g, o. The **forget gate** f decides what of the old memory stays, the **input gate** i what
# of the candidate g is written, the **output gate** o what is shown as h. Along c the gradient is
# multiplied by f at each step, no matrix in between: with f near 1 it passes through hundreds of
# steps nearly unchanged.
#
# **Exercise 14.3**: write `lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh)`.

# %%
mg.manual_seed(0)
cell = nn.LSTMCell(3, 4)
print({name: tuple(p.shape) for name, p in cell.named_parameters()})
x, h, c = mg.randn(2, 3), mg.randn(2, 4), mg.randn(2, 4)
mine = ex.lstm_cell(x, h, c, *cell.parameters())
ref = cell(x, (h, c))
print("h' equal:", np.allclose(mine[0].detach().numpy(), ref[0].detach().numpy(), atol=1e-6))
print("c' equal:", np.allclose(mine[1].detach().numpy(), ref[1].detach().numpy(), atol=1e-6))

# %% [markdown]
# The memory in numbers: with a forget gate of 0.99 (its bias set high), how much of dL/dc_T
# reaches c_0 after T steps, compared with the plain RNN of scale 0.9 above?

# %%
hidden = 4
w_ih, w_hh = mg.zeros(4 * hidden, 1), mg.zeros(4 * hidden, hidden)
bias = mg.zeros(4 * hidden)
bias[hidden : 2 * hidden] = float(np.log(0.99 / 0.01))  # sigmoid(bias) = 0.99: f = 0.99
c0 = mg.ones(1, hidden, requires_grad=True)
h, c = mg.zeros(1, hidden), c0
for _ in range(40):
    h, c = ex.lstm_cell(mg.zeros(1, 1), h, c, w_ih, w_hh, bias, mg.zeros(4 * hidden))
c.sum().backward()
print(f"LSTM, f = 0.99, 40 steps: |dL/dc_0| = {float(c0.grad.norm()):.3f}", end=" ")
print(f"(0.99^40 * |ones(4)| = {0.99**40 * 2:.3f})")
print(f"plain linear RNN, scale 0.9, 40 steps: {norms[0.9][-1]:.3g}")

# %% [markdown]
# ## A character-level language model
#
# A language model predicts the next character from the ones before. The model of
# **Exercise 14.4**, `CharLSTM`, is three layers: `nn.Embedding` (a learned vector per
# character), `nn.LSTM(batch_first=True)`, and `nn.Linear` to one score per character. It is
# trained on random windows of the text (`windows` is ready-made), with cross entropy at every
# position, Adam, and gradient clipping.

# %%
vocab, ids = ex.encode(ex.TEXT)
print(f"{len(ex.TEXT)} characters, vocabulary of {len(vocab)}: {''.join(vocab)!r}")

mg.manual_seed(0)
model = ex.CharLSTM(len(vocab), embed_dim=16, hidden_size=64)
optimizer = mg.optim.Adam(model.parameters(), lr=2e-2)
losses, norms_seen = [], []
start = time.perf_counter()
for _ in range(80):
    x, y = ex.windows(ids, seq_len=24, batch_size=16)
    logits, _ = model(x)
    loss = nn.functional.cross_entropy(logits.reshape(-1, len(vocab)), y.reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    norms_seen.append(float(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)))
    optimizer.step()
    losses.append(loss.item())
print(f"80 steps in {time.perf_counter() - start:.1f} s; loss {losses[0]:.2f} -> {losses[-1]:.2f}")
print(f"(a uniform guess over {len(vocab)} characters: ln {len(vocab)} = {np.log(len(vocab)):.2f})")

fig, axes = plt.subplots(1, 2, figsize=(8, 2.8))
axes[0].plot(losses)
axes[0].set_title("training loss", fontsize=9)
axes[1].plot(norms_seen)
axes[1].axhline(1.0, color="gray", linestyle="--")
axes[1].set_title("gradient norm before clipping (max_norm 1)", fontsize=9)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Letting it write
#
# **Exercise 14.5**: `generate(model, prompt, n)`: read the prompt once, then feed back the most
# likely next character one at a time, carrying the LSTM's state (h, c) so that the whole text
# is never read again. (Always taking the argmax is *greedy* decoding; sampling from the softmax,
# with a temperature, gives more varied text.)

# %%
index = {ch: i for i, ch in enumerate(vocab)}
prompt = [index[ch] for ch in "the quick "]
out = ex.generate(model, prompt, 80)
print(repr("".join(vocab[i] for i in out)))


# %% [markdown]
# ## Summary
#
# - An RNN applies one step, with the same weights, along the sequence and carries a state;
#   `nn.RNN`, `nn.LSTM` and `nn.GRU` are that loop with PyTorch's options and parameter names.
# - Back-propagation through time multiplies one Jacobian per step: gradients vanish or explode
#   geometrically.
# - `clip_grad_norm_` bounds the step a single exploding batch can take; it belongs in every
#   recurrent training loop.
# - The LSTM's cell state is changed by gates, elementwise, so gradients along it can survive many
#   steps.
# - At generation time the state is what lets the model read each character once.
#
# Everything the model knows about the text so far has to pass through that one state, step by
# step. Chapter 15 lets every position look back at the others directly: attention.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 14.6**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/14_sequence_models -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** A linear RNN $h_t = W h_{t-1}$ with $W = 0.5 I$. The gradient of the loss reaches $h_{20}$
# with norm 1. What is the norm of the gradient at $h_0$, 20 steps back?
#
# - (a) 1: the recurrence does not change a gradient's size
# - (b) about $10^{6}$: it explodes
# - (c) about $10^{-6}$ ($0.5^{20}$): it vanishes
# - (d) 10 ($20 \times 0.5$)
#
# **q2.** Why do gradients survive many more steps through an LSTM's cell state $c_t = f_t \odot
# c_{t-1} + i_t \odot g_t$ than through a plain RNN's $h_t$?
#
# - (a) the LSTM has four times as many parameters
# - (b) the update is additive: $\partial c_t/\partial c_{t-1} = f_t$, with no weight matrix or
#   tanh' in between, and a forget gate near 1 passes the gradient on almost unchanged
# - (c) sigmoids never saturate, so the gates' gradients never vanish
# - (d) the LSTM clips its gradients internally
#
# **q3.** The gradients of a batch have a total norm of 50, and `clip_grad_norm_(params,
# max_norm=1.0)` runs before the optimizer's step. What happens to the gradients?
#
# - (a) every gradient is multiplied by 1/50: the step keeps its direction, and the total norm is 1
# - (b) every entry of every gradient is clipped to [-1, 1]
# - (c) the step is skipped, as a GradScaler skips a step after an inf
# - (d) the gradients are set to zero for this batch
#
# **q4.** In `generate`, each new character is fed with `state=None` (the LSTM starts from
# zeros at every step) instead of the state carried from the step before. What does the model
# predict the next character from?
#
# - (a) the whole text so far: the LSTM's weights remember it
# - (b) nothing: the LSTM raises an error without a state
# - (c) the whole text so far, read again at every step
# - (d) the last character alone, like a model of which character follows which; the text soon
#   loops
