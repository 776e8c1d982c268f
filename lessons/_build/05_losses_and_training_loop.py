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
# # Chapter 5: Losses and the training loop
#
# A loss turns "how wrong is the model" into one number whose gradient says which way to move
# every parameter. This chapter writes the common losses stably, looks at the gradient
# cross-entropy sends back, and assembles the training loop that every later chapter refines.
#
# Exercises: `exercises.py` (5.1-5.6, the last one the self-check at the end). Check them with
# `python -m pytest lessons/05_losses_and_training_loop`.

# %%
import sys

sys.path.insert(0, "..")  # lessons/, where the course helper lives
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (solutions.py when MINIGENESIS_SOLUTIONS=1)

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn import functional as F

mg.manual_seed(0)

# %% [markdown]
# ## Log-softmax, computed safely
#
# Classification models output **logits** $z$; softmax turns them into probabilities
# $p_i = e^{z_i} / \sum_j e^{z_j}$. Computing that literally overflows as soon as a logit passes
# ~88 in float32 ($e^{89} > 3.4\times10^{38}$). Since softmax does not change when every logit
# moves by the same amount, subtract the maximum first; and because the loss needs $\log p$,
# compute it directly: $\log p_i = z_i - m - \log \sum_j e^{z_j - m}$ (exercise 5.1).

# %%
z = mg.tensor([[1000.0, 999.0, 0.0]])
with np.errstate(all="ignore"):  # silence NumPy's overflow warnings: the nan/inf say enough
    naive = (z.exp() / z.exp().sum(dim=-1, keepdim=True)).log()
print("naive  :", naive)
print("yours  :", ex.log_softmax(z))
print("mg     :", mg.log_softmax(z, dim=-1))

# %% [markdown]
# ## Cross-entropy and the gradient it sends back
#
# Cross-entropy is $-\log p_{\text{target}}$, averaged over the batch. Its gradient with respect
# to the logits is remarkably simple: $(p - \text{onehot}(\text{target}))/N$. The model is pushed
# up on the right class and down on the others, in proportion to how much probability it gave
# them.

# %%
logits = mg.randn(4, 3, requires_grad=True)
target = mg.tensor([0, 2, 1, 2])
loss = ex.cross_entropy(logits, target)
loss.backward()
p = logits.detach().softmax(dim=-1).numpy()
onehot = np.eye(3)[target.numpy()]
print("loss:", loss.item(), "| F.cross_entropy:", F.cross_entropy(logits, target).item())
print("autograd  :\n", logits.grad.numpy().round(4))
print("(p - y)/N :\n", ((p - onehot) / 4).round(4))

# %% [markdown]
# Two options of PyTorch's `cross_entropy` that exercise 5.2 reproduces:
#
# - `ignore_index` (default -100): those targets contribute nothing and the mean is over the
#   rest, the standard way to skip padding in sequences;
# - `label_smoothing=s`: the target distribution becomes $1-s$ on the true class plus $s$ spread
#   evenly over all classes, which discourages over-confident logits.

# %%
target_pad = mg.tensor([0, 2, -100, 2])
for s in (0.0, 0.1):
    mine = ex.cross_entropy(logits, target_pad, label_smoothing=s).item()
    ref = F.cross_entropy(logits, target_pad, label_smoothing=s).item()
    print(f"label_smoothing={s}: yours {mine:.6f}  F.cross_entropy {ref:.6f}")

# %% [markdown]
# ## Binary cross-entropy: keep the logits
#
# For yes/no targets, `sigmoid` then `log` fails at large logits: in float32 `sigmoid(100)` is
# exactly 1.0 and `log(1 - 1.0)` is `-inf`. The fused form
# $\max(x, 0) - xy + \log(1 + e^{-|x|})$ is exact everywhere (exercise 5.3); that is why
# `BCEWithLogitsLoss` exists and why models output logits, not probabilities.

# %%
xb = mg.tensor([100.0, -100.0, 3.0])
yb = mg.tensor([0.0, 1.0, 1.0])
s = xb.sigmoid()
with np.errstate(divide="ignore"):  # log(0): NumPy would warn
    print("via sigmoid:", -(yb * s.log() + (1 - yb) * (1 - s).log()))
print("yours (mean):", ex.bce_with_logits(xb, yb).item())
print("F (mean)    :", F.binary_cross_entropy_with_logits(xb, yb).item())

# %% [markdown]
# ## The training loop
#
# Every training loop has the same five moves:
#
# ```python
# model.zero_grad()            # 1. forget last step's gradients (they would accumulate)
# out = model(x)               # 2. forward
# loss = loss_fn(out, y)       # 3. loss
# loss.backward()              # 4. gradients into every parameter's .grad
# with mg.no_grad():           # 5. update, without recording a graph
#     for p in model.parameters(): p -= lr * p.grad
# ```
#
# Exercise 5.4 writes them as `train_step`. Let us train a small classifier on three interleaved
# spirals, full batch:


# %%
def spirals(n_per_class=100, classes=3, noise=0.2, seed=0):
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for c in range(classes):
        r = np.linspace(0.05, 1, n_per_class)
        t = np.linspace(c * 4, (c + 1) * 4, n_per_class) + rng.standard_normal(n_per_class) * noise
        xs.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        ys.append(np.full(n_per_class, c))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


x_np, y_np = spirals()
x, y = mg.tensor(x_np), mg.tensor(y_np)
model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
losses = [ex.train_step(model, ex.cross_entropy, x, y, lr=0.3) for _ in range(300)]
print(f"loss: {losses[0]:.3f} -> {losses[-1]:.3f}")

# %%
with mg.no_grad():
    grid = np.stack(np.meshgrid(np.linspace(-1.1, 1.1, 120), np.linspace(-1.1, 1.1, 120)), -1)
    pred = model(mg.tensor(grid.reshape(-1, 2).astype(np.float32))).argmax(dim=-1).numpy()
    accuracy = (model(x).argmax(dim=-1).numpy() == y_np).mean()

fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.2))
a1.plot(losses)
a1.set_xlabel("step")
a1.set_ylabel("training loss")
a1.set_yscale("log")
a2.contourf(grid[..., 0], grid[..., 1], pred.reshape(120, 120), alpha=0.3, cmap="brg")
a2.scatter(x_np[:, 0], x_np[:, 1], c=y_np, s=6, cmap="brg")
a2.set_title(f"training accuracy {accuracy:.0%}")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Mini-batches, optimizers and evaluation
#
# Real datasets do not fit in one batch. Each **epoch** shuffles the data and walks it in
# mini-batches (exercise 5.5 does it by hand with `mg.randperm`); `DataLoader` packages exactly
# that, and an optimizer from `mg.optim` replaces the hand-written update (chapter 6 opens it up).
# Evaluation runs in `model.eval()` mode under `mg.no_grad()`: no dropout, running BatchNorm
# statistics, and no graph kept in memory.

# %%
from minigenesis.utils.data import DataLoader, TensorDataset

perm = np.random.default_rng(1).permutation(len(x_np))
train_idx, val_idx = perm[:240], perm[240:]
train_loader = DataLoader(
    TensorDataset(mg.tensor(x_np[train_idx]), mg.tensor(y_np[train_idx])),
    batch_size=32,
    shuffle=True,
)

model = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = mg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(30):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
    if epoch % 10 == 9:
        model.eval()
        with mg.no_grad():
            val_logits = model(mg.tensor(x_np[val_idx]))
            val_loss = F.cross_entropy(val_logits, mg.tensor(y_np[val_idx])).item()
            val_acc = (val_logits.argmax(dim=-1).numpy() == y_np[val_idx]).mean()
        print(
            f"epoch {epoch + 1}: train loss {loss.item():.3f}  val loss {val_loss:.3f}  "
            f"val accuracy {val_acc:.0%}"
        )

# %% [markdown]
# ## Summary
#
# - Compute log-probabilities directly (log-softmax, BCE with logits): never `log(softmax(x))`.
# - Cross-entropy's gradient on the logits is `(softmax - onehot) / N`.
# - The loop: zero grads, forward, loss, backward, update under `no_grad`; evaluate in `eval()`
#   mode under `no_grad`.
#
# Next: chapter 6 opens the optimizer: SGD, momentum, Adam and AdamW by hand.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 5.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/05_losses_and_training_loop -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Why compute `log_softmax(x)` as `x - m - log(sum(exp(x - m)))` with `m = max(x)`?
#
# - (a) it removes the need for a backward formula
# - (b) `exp(1000)` overflows to inf; subtracting the max gives the same result with every exponent
#   <= 0
# - (c) it is faster than computing softmax first
# - (d) it makes the result sum to 1
#
# **q2.** For ONE sample with logits $z$ and class $y$, what is the gradient of the cross-entropy
# loss with respect to $z$?
#
# - (a) the one-hot vector of y minus softmax(z)
# - (b) -1 / softmax(z)[y] at y, 0 elsewhere
# - (c) softmax(z) minus the one-hot vector of y
# - (d) softmax(z) times (1 - softmax(z))
#
# **q3.** Spot the bug in this loop:
#
# ```python
# for x, y in batches:
#     loss = loss_fn(model(x), y)
#     loss.backward()
#     optimizer.step()
# ```
#
# - (a) no `zero_grad()`: each step uses the sum of all the gradients so far, so the steps keep
#   growing
# - (b) nothing: the optimizer clears the gradients in step()
# - (c) `backward()` must come after `step()`
# - (d) the loss must be summed, not averaged
#
# **q4.** Why is `binary_cross_entropy_with_logits(z, y)` preferred to
# `binary_cross_entropy(sigmoid(z), y)`?
#
# - (a) the two give different minima
# - (b) sigmoid has no backward formula
# - (c) `sigmoid(30)` is exactly 1.0 in float32, and `log(1 - 1)` is -inf; the logits form computes
#   `log(1 + exp(-|z|))` without ever forming 1 - p
# - (d) it is the only one that accepts float labels
