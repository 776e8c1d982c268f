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
# # Chapter 8: Gradient clipping, gradient accumulation and gradient monitoring
#
# Three tools that act on the gradients between `loss.backward()` and `optimizer.step()`:
#
# - **clipping** caps the size of a step, so that one unlucky batch cannot throw the weights far
#   away;
# - **accumulation** sums the gradients of several small batches before one step, to train with
#   a batch that does not fit in memory;
# - **monitoring** looks at the gradient of each layer, to see vanishing, exploding or broken
#   (NaN) gradients before they ruin a run.
#
# Exercises: `exercises.py`; checks: `python -m pytest lessons/08_clipping_accumulation`.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import math

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis import diagnostics

# %% [markdown]
# ## Why clip: one bad batch
#
# A regression problem where 3 % of the labels are wild (+40). Most mini-batches give small
# gradients, but a batch that happens to hold several outliers gives a huge one; with momentum
# SGD at `lr=0.1` a few of those are enough to blow the network up. `clip_grad_norm_` rescales
# the gradient whenever its norm exceeds `max_norm` and leaves it alone otherwise.


# %%
def train(max_norm=None, lr=0.1, steps=100):
    mg.manual_seed(0)
    x = mg.randn(256, 4)
    y = x[:, :1] * 2 - x[:, 1:2] + (mg.rand(256, 1) < 0.03).float() * 40.0
    model = mg.nn.Sequential(mg.nn.Linear(4, 32), mg.nn.Tanh(), mg.nn.Linear(32, 1))
    optimizer = mg.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses, norms = [], []
    for _ in range(steps):
        batch = mg.randint(0, 256, (16,))
        loss = ((model(x[batch]) - y[batch]) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        if max_norm is None:
            norm = diagnostics.total_grad_norm(model)  # only measure
        else:
            norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)  # measure and clip
        optimizer.step()
        losses.append(loss.item())
        norms.append(float(norm))
    return losses, norms


with np.errstate(over="ignore", invalid="ignore"):  # the unclipped run overflows on purpose
    plain_losses, plain_norms = train()
clipped_losses, clipped_norms = train(max_norm=1.0)

fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3))
left.semilogy(plain_losses, label="no clipping")
left.semilogy(clipped_losses, label="clip_grad_norm_(max_norm=1)")
left.set_xlabel("step")
left.set_ylabel("batch loss")
left.legend(fontsize=8)
right.semilogy(plain_norms, label="no clipping")
right.semilogy(clipped_norms, label="clipped run (norm before clipping)")
right.axhline(1.0, color="k", ls=":", lw=1)
right.set_xlabel("step")
right.set_ylabel("gradient norm")
right.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# Without clipping the loss climbs to astronomical values (and in a longer run, to inf/NaN).
# With clipping, the outlier batches still produce huge gradients (the right plot shows the norm
# *before* clipping, which is what `clip_grad_norm_` returns), but each step is at most
# `lr * max_norm` long.
#
# ## Clipping by hand
#
# `clip_grad_norm_(parameters, max_norm, norm_type=2.0)` treats all gradients as **one long
# vector** g:
#
#     total = ||g||_p = (sum over all elements of |g_i|^p)^(1/p)     (max |g_i| for p = inf)
#     g <- g * min(1, max_norm / (total + 1e-6))
#
# and returns `total`, the norm *before* clipping (log it: it is the best single number for
# the health of a run). `clip_grad_value_(parameters, clip_value)` instead clamps every element
# into `[-clip_value, clip_value]`.
#
# **Exercises 8.1 and 8.2**: write `clip_grad_norm` and `clip_grad_value`. The difference
# between the two shows in two dimensions: clipping the norm shortens the vector, clipping the
# values also turns it.


# %%
def clipped(clip, vector):
    p = mg.nn.Parameter(mg.zeros(2))
    p.grad = mg.tensor(vector)
    clip([p])
    return p.grad.tolist()


g = [3.0, 0.8]
by_norm = clipped(lambda ps: ex.clip_grad_norm(ps, max_norm=1.0), g)
by_value = clipped(lambda ps: ex.clip_grad_value(ps, clip_value=1.0), g)
print("gradient         ", g)
print("clip_grad_norm   ", [round(v, 4) for v in by_norm], " norm", round(math.hypot(*by_norm), 4))
print("clip_grad_value  ", [round(v, 4) for v in by_value])

fig, ax = plt.subplots(figsize=(5, 2.4))
arrows = [(g, "gradient", "gray"), (by_norm, "clip by norm 1", "tab:blue"),
          (by_value, "clip by value 1", "tab:red")]  # fmt: skip
for vec, label, color in arrows:
    ax.arrow(0, 0, *vec, width=0.03, length_includes_head=True, color=color)
    ax.text(vec[0] + 0.05, vec[1] + 0.08, label, fontsize=8, color=color)
ax.add_patch(plt.Circle((0, 0), 1.0, fill=False, ls=":"))
ax.set_aspect("equal", adjustable="box")
ax.set_xlim(-1.1, 4.0)
ax.set_ylim(-0.3, 1.2)
plt.tight_layout()
plt.show()

# %% [markdown]
# With mixed precision, clip *after* `scaler.unscale_(optimizer)`: the scaled gradients are the
# loss scale (say 65536) times too large, and their norm would be compared with `max_norm`
# (chapter 9).
#
# ## Gradient accumulation
#
# `loss.backward()` *adds* into `.grad`. So instead of one batch of 64, you can run four batches
# of 16, call `backward()` four times and step once. For the sum to equal the big batch's
# gradient, each mean-reduced loss is divided by the number of micro-batches:
#
#     grad(mean over 64) = (1/4) * sum over the 4 chunks of grad(mean over 16)
#
# The loop:
#
# ```python
# accumulation_steps = 4
# optimizer.zero_grad()
# for i, (data, target) in enumerate(train_loader):
#     loss = criterion(model(data), target) / accumulation_steps
#     loss.backward()                                   # adds into .grad
#     if (i + 1) % accumulation_steps == 0:
#         clip_grad_norm_(model.parameters(), 1.0)      # on the complete gradient
#         optimizer.step()
#         optimizer.zero_grad()
# ```
#
# Clipping, the optimizer step and the scheduler step happen once per *accumulated* batch.
# The equivalence is exact for layers that treat samples independently; BatchNorm is the
# exception (it normalises over the micro-batch, so its statistics differ).
#
# **Exercise 8.3**: write `accumulate_gradients(model, loss_fn, inputs, targets, micro_batches)`.
# The cell compares it with one backward over the whole batch.

# %%
mg.manual_seed(0)
x, y = mg.randn(64, 10), mg.randint(0, 3, (64,))


def fresh_model():
    mg.manual_seed(1)
    return mg.nn.Sequential(mg.nn.Linear(10, 32), mg.nn.ReLU(), mg.nn.Linear(32, 3))


big = fresh_model()
mg.nn.CrossEntropyLoss()(big(x), y).backward()
for k in (1, 2, 4, 8):
    small = fresh_model()
    ex.accumulate_gradients(small, mg.nn.CrossEntropyLoss(), x, y, micro_batches=k)
    diff = max(
        float((a.grad - b.grad).abs().max()) for a, b in zip(small.parameters(), big.parameters())
    )
    print(f"{k} micro-batches of {64 // k:2d}: largest gradient difference {diff:.1e}")

# %% [markdown]
# The differences are float32 rounding (the sums are taken in a different order), nothing more.
#
# ## Monitoring the gradient of each layer
#
# The total norm says *that* something is wrong; the per-layer norms say *where*. A classic case:
# a deep stack of sigmoids. The sigmoid's derivative is at most 1/4, so every layer shrinks the
# gradient on its way back, and the first layers barely learn (the *vanishing gradient*).
# tanh with the default initialisation shrinks it too, more slowly; ReLU with He (Kaiming)
# initialisation keeps the norms level.
#
# **Exercise 8.4**: write `grad_norms(model)`: the L2 norm of each parameter's gradient by name,
# plus the `"total"` that `clip_grad_norm_` would report.


# %%
def deep(activation, init=None, depth=12, width=64):
    mg.manual_seed(0)
    layers = []
    for _ in range(depth):
        linear = mg.nn.Linear(width, width)
        if init is not None:
            init(linear.weight)
        layers += [linear, activation()]
    return mg.nn.Sequential(*layers, mg.nn.Linear(width, 1))


x = mg.randn(128, 64)
plt.figure(figsize=(6, 3))
for name, net in [
    ("sigmoid", deep(mg.nn.Sigmoid)),
    ("tanh", deep(mg.nn.Tanh)),
    (
        "relu + kaiming",
        deep(mg.nn.ReLU, lambda w: mg.nn.init.kaiming_normal_(w, nonlinearity="relu")),
    ),
]:
    net(x).pow(2).mean().backward()
    norms = ex.grad_norms(net)
    weights = [norms[n] for n, _ in net.named_parameters() if n.endswith("weight")]
    plt.semilogy(range(1, len(weights) + 1), weights, "o-", ms=3, label=name)
plt.xlabel("layer (input side = 1)")
plt.ylabel("||grad of weight||")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# `minigenesis.diagnostics` has the same tools ready-made: `grad_norms`, `total_grad_norm`,
# `monitor_gradients` (warns about NaN/Inf and large norms) and
# `find_nonfinite_grads`.
#
# ## Broken gradients
#
# One NaN in one gradient, and the optimizer step writes NaN into that weight; next step the
# whole network is NaN. The cheapest guard is to check the gradients before the step and name
# the culprits (a `GradScaler` does the same check to decide whether to skip a step).
#
# **Exercise 8.5**: write `nonfinite_grads(model)`: the names of the parameters whose gradient
# holds NaN or Inf.

# %%
net = deep(mg.nn.Tanh, depth=3)
net(x).pow(2).mean().backward()
print("healthy:", ex.nonfinite_grads(net))
net[2].weight.grad[0, 0] = math.nan  # simulate a bad backward
net[4].bias.grad[1] = math.inf
print("broken: ", ex.nonfinite_grads(net))
total = diagnostics.monitor_gradients(net)  # prints its warnings
print("total norm:", total)

# %% [markdown]
# ## Summary
#
# - `clip_grad_norm_` scales all gradients together when their joint norm exceeds `max_norm`,
#   keeps their direction and returns the norm before clipping; `clip_grad_value_` clamps each
#   element and can change the direction.
# - Accumulating k micro-batches with `loss / k` gives the big batch's gradient (BatchNorm
#   aside); clip, step and schedule once per accumulated batch.
# - Per-layer gradient norms reveal vanishing and exploding gradients; a NaN/Inf check before
#   `optimizer.step()` names the parameter that broke.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 8.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/08_clipping_accumulation -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Two parameters' gradients are `[3.0]` and `[4.0]`. What does `clip_grad_norm_(params,
# max_norm=1.0)` return, and what do the gradients become?
#
# - (a) it returns 5.0, and the gradients become 1.0 and 1.0
# - (b) it returns 5.0, and the gradients stay 3.0 and 4.0 (only the step is scaled)
# - (c) it returns 1.0, and the gradients become 0.6 and 0.8
# - (d) it returns 5.0, and the gradients become 0.6 and 0.8
#
# **q2.** A batch of 64 is split into 4 micro-batches of 16; each micro-batch calls
# `loss_fn(model(x), y).backward()` with a MEAN loss, and then one `optimizer.step()` runs. How does
# that step compare with one step on the whole batch?
#
# - (a) its gradient is 4 times as large: each micro-batch's mean is divided by 16, not 64; divide
#   each loss by 4
# - (b) a quarter as large
# - (c) the same direction but noisier
# - (d) the same: backward averages over the micro-batches
#
# **q3.** What does `clip_grad_value_` (clamp each element) do that `clip_grad_norm_` does not?
#
# - (a) it never changes a gradient whose norm is below the threshold
# - (b) it keeps the direction and only shortens the vector
# - (c) it changes the gradient's direction: large components are cut while small ones stay
# - (d) it returns the norm before clipping
