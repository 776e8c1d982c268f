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
# # Chapter 6: Optimizers by hand
#
# Chapter 5 updated parameters with `p -= lr * grad`. Real optimizers keep a little memory per
# parameter: a running average of gradients (momentum), a running average of squared gradients
# (Adam's per-parameter scale), and a rule for weight decay. You write SGD with momentum, Adam
# and AdamW exactly as PyTorch computes them, and check them against `mg.optim`.
#
# Exercises: `exercises.py` (6.1-6.5, the last one the self-check at the end). Check them with
# `python -m pytest lessons/06_optimizers_by_hand`.

# %%
import sys

sys.path.insert(0, "..")  # lessons/, where the course helper lives
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (solutions.py when MINIGENESIS_SOLUTIONS=1)

import inspect

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis import nn

# %% [markdown]
# ## A valley that plain SGD hates
#
# $f(x, y) = \tfrac12 (x^2 + 30 y^2)$ is 30 times steeper across ($y$) than along ($x$). A
# learning rate small enough not to bounce across the valley crawls along it. Let us run each
# optimizer on the two coordinates, held in one parameter tensor:


# %%
def valley(p):
    return 0.5 * (p[0] * p[0] + 30 * p[1] * p[1])


def trajectory(make_optimizer, steps=60):
    p = mg.tensor([-4.0, 1.0], dtype=mg.float64, requires_grad=True)
    opt = make_optimizer([p])
    path = [p.detach().numpy().copy()]
    for _ in range(steps):
        opt.zero_grad()
        valley(p).backward()
        opt.step()
        path.append(p.detach().numpy().copy())
    return np.array(path)


runs = {
    "SGD lr=0.03": lambda ps: ex.SGDMomentum(ps, lr=0.03),
    "SGD + momentum 0.8": lambda ps: ex.SGDMomentum(ps, lr=0.03, momentum=0.8),
    "Adam lr=0.3": lambda ps: ex.Adam(ps, lr=0.3),
}
gx, gy = np.meshgrid(np.linspace(-4.5, 1.5, 100), np.linspace(-1.3, 1.3, 100))
fig, ax = plt.subplots(figsize=(7, 3.2))
ax.contour(gx, gy, 0.5 * (gx**2 + 30 * gy**2), levels=15, colors="0.8", linewidths=0.7)
for name, make in runs.items():
    path = trajectory(make)
    ax.plot(path[:, 0], path[:, 1], ".-", ms=3, label=f"{name}: f = {valley(path[-1]):.1e}")
ax.plot(0, 0, "k*")
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# - **SGD** takes steps proportional to the gradient: big across the valley, tiny along it.
# - **Momentum** keeps a running sum $b \leftarrow \mu b + g$ and steps along $b$. Components
#   that keep their sign (along the valley) add up, up to $1/(1-\mu)$ times the gradient; those
#   that flip sign (across) cancel.
# - **Adam** divides each coordinate by a running RMS of its own gradients, so both directions
#   move at about the same speed, `lr` per step at first.
#
# ## Momentum on a constant gradient
#
# With $g = 1$ every step, $b_t = 1 + \mu + \dots + \mu^{t-1} = (1-\mu^t)/(1-\mu)$: momentum 0.9
# eventually moves 10 times faster than plain SGD with the same learning rate. (PyTorch's first
# buffer is $b_1 = g$, not $(1-\mu) g$: its momentum is a sum, not an average.)

# %%
p = mg.zeros(1, dtype=mg.float64, requires_grad=True)
opt = ex.SGDMomentum([p], lr=1.0, momentum=0.9)
steps = []
for _ in range(40):
    before = p.item()
    opt.zero_grad()
    p.sum().backward()
    opt.step()
    steps.append(before - p.item())
t = np.arange(1, 41)
print("measured step sizes:", np.round(steps[:5], 4), "...", round(steps[-1], 4))
print("(1 - 0.9^t) / 0.1  :", np.round(((1 - 0.9**t) / 0.1)[:5], 4), "...")

# %% [markdown]
# ## Adam and its bias correction
#
# Adam keeps $m$ (an average of $g$) and $v$ (an average of $g^2$), both starting at 0. Early
# on they are biased towards 0: after one step $v = (1-\beta_2) g^2 = 0.001\,g^2$. Dividing by
# $1 - \beta^t$ removes the bias exactly for a constant gradient; without it the early steps
# would be 3 to 7 times too large with the default betas (3.2 times at the first step, 6.6 at
# the worst, step 12). The plot shows the step size for a constant gradient of 1:

# %%
t = np.arange(1, 101)
beta1, beta2 = 0.9, 0.999
m = 1 - beta1**t  # the EMAs of a constant gradient 1, starting from 0
v = 1 - beta2**t
fig, ax = plt.subplots(figsize=(6, 3))
uncorrected = m / np.sqrt(v)
print(
    f"without correction: {uncorrected[0]:.1f}x at step 1, {uncorrected.max():.1f}x at step "
    f"{t[uncorrected.argmax()]}"
)
assert 3 < uncorrected[0] and uncorrected.max() < 7  # the "3 to 7 times" above
ax.plot(t, uncorrected, label="without correction: m / sqrt(v)")
ax.plot(t, (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t)), label="with correction")
ax.set_xlabel("step t")
ax.set_ylabel("step / lr")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# A consequence worth remembering: Adam's first step is $\text{lr}\cdot g/(|g| + \epsilon)
# \approx \text{lr} \cdot \operatorname{sign}(g)$ for every parameter, whatever the size of its
# gradient.
#
# ## Weight decay: L2 (Adam) versus decoupled (AdamW)
#
# Weight decay pulls weights towards 0. `Adam(weight_decay=wd)` adds $wd\cdot p$ to the gradient
# (L2 regularisation), which then goes through Adam's division by $\sqrt{v}$: a parameter with
# large gradients barely decays, one with tiny gradients decays fast. `AdamW` applies the decay
# separately, $p \leftarrow p(1 - \text{lr}\cdot wd)$, the same for everyone (Loshchilov &
# Hutter, 2019). Two parameters starting at 1, with noisy gradients of very different scales:


# %%
def decay_run(opt_class, steps=200):
    p = mg.tensor([1.0, 1.0], dtype=mg.float64, requires_grad=True)
    opt = opt_class([p], lr=0.02, weight_decay=0.5)
    rng = np.random.default_rng(0)
    path = []
    for _ in range(steps):
        p.grad = mg.tensor(rng.standard_normal(2) * [10.0, 0.001], dtype=mg.float64)
        opt.step()
        path.append(p.detach().numpy().copy())
    return np.array(path)


fig, axes = plt.subplots(1, 2, figsize=(8, 3), sharey=True)
for ax, cls in zip(axes, (ex.Adam, ex.AdamW)):
    path = decay_run(cls)
    ax.plot(path[:, 0], label="gradient scale 10")
    ax.plot(path[:, 1], label="gradient scale 0.001")
    ax.set_title(f"{cls.__name__}(lr=0.02, weight_decay=0.5)")
    ax.set_xlabel("step")
axes[1].plot(0.99 ** np.arange(200), "k--", lw=1, label="(1 - lr * wd)^t")
axes[0].legend()
axes[1].legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# With Adam the small-gradient parameter is driven to 0 at full speed (its "gradient" is mostly
# the decay term, normalised to about `lr` per step), while the large-gradient one hardly feels
# the decay. With AdamW both shrink at the same rate, $(1 - 0.01)^t$ (dashed), plus the noise of
# their own gradients (which Adam normalises to about `lr` per step, whatever their scale).
#
# ## Param groups: no decay for biases and norms
#
# Common practice (minGPT, nanoGPT and many transformer recipes) decays weight matrices but not
# biases or normalisation weights. PyTorch optimizers take a list of **param groups**, each a dict
# with its own options; exercise 6.4 builds the two groups.
#
# Your optimizers take them too: they share the ready-made `HandOptimizer`, which gives them
# `mg.optim`'s interface (`param_groups`, `state`, `zero_grad`). Each `step` reads `lr` from the
# group every time, which is how a learning-rate scheduler (chapter 7) or a GradScaler
# (chapter 9) drives an optimizer, and how `python -m minigenesis lessons capstone --mine`
# trains the capstone (chapter 13) with your AdamW.

# %%
model = nn.Sequential(nn.Linear(8, 16), nn.LayerNorm(16), nn.Linear(16, 4))
groups = ex.param_groups_for_weight_decay(model, weight_decay=0.1)
opt = mg.optim.AdamW(groups, lr=1e-3)
for who, optimizer in (("mg.optim.AdamW", opt), ("your AdamW", ex.AdamW(groups, lr=1e-3))):
    print(who)
    for g in optimizer.param_groups:
        print(f"  lr={g['lr']} weight_decay={g['weight_decay']}: "
              f"{[tuple(p.shape) for p in g['params']]}")  # fmt: skip

# %% [markdown]
# ## The real thing
#
# `mg.optim` follows PyTorch to the last operation, so trajectories match PyTorch's to float
# precision. Its Adam documents the exact order of operations (note where `eps` is added):

# %%
print(mg.optim.Adam.__doc__)

# %% [markdown]
# Each optimizer keeps its per-parameter memory in `optimizer.state`, which `state_dict()` saves
# with the hyper-parameters (chapter 10 uses it to resume training exactly):

# %%
x, y = mg.randn(32, 8), mg.randn(32, 4)
opt.zero_grad()
nn.functional.mse_loss(model(x), y).backward()
opt.step()
state = opt.state_dict()
first = state["state"][0]
print("per-parameter state:", {k: tuple(v.shape) if v.ndim else v.item() for k, v in first.items()})
print("param_groups[0]:", {k: v for k, v in state["param_groups"][0].items() if k != "params"})
print(inspect.signature(mg.optim.AdamW))

# %% [markdown]
# ## Summary
#
# - Momentum sums gradients (up to $1/(1-\mu)$ times faster along consistent directions).
# - Adam scales each parameter by its own gradient RMS; bias correction fixes the first steps.
# - Adam's `weight_decay` is L2 in the gradient; AdamW's is decoupled. Prefer AdamW, and leave
#   biases and norm weights undecayed.
#
# Next: chapter 7, learning-rate schedules.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 6.5**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/06_optimizers_by_hand -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** SGD with momentum 0.9 and lr 0.1 (PyTorch's form: `buf = 0.9 * buf + g`, `p -= lr * buf`)
# sees the same gradient `g = 1.0` at every step. After many steps, how far does `p` move per step?
#
# - (a) 0.9: the momentum factor
# - (b) it keeps growing without bound
# - (c) 0.1: lr times the gradient, as plain SGD
# - (d) 1.0: the buffer tends to g / (1 - 0.9) = 10
#
# **q2.** Adam with lr 0.01 (default betas and eps) takes its FIRST step on a parameter whose
# gradient is $g = 10^{-3}$. By how much does the parameter change?
#
# - (a) about 0.01: after bias correction $\hat m / \sqrt{\hat v} = g/|g| = 1$, whatever g's size
# - (b) 0: the first step only fills the moments
# - (c) about $10^{-5}$: lr times g
# - (d) about 0.1: m is 0.1 g and v is 0.001 g^2 before bias correction
#
# **q3.** A learner's Adam leaves out the bias correction (betas 0.9 and 0.999). What happens on its
# first steps?
#
# - (a) the steps are about 3x too large: m = 0.1 g but sqrt(v) = 0.032 |g|
# - (b) a division by zero, because v starts at 0
# - (c) the steps are about 10x too small: m starts at 0.1 g
# - (d) nothing: the moments are exact from step 1
#
# **q4.** Adam with `weight_decay` adds $\lambda w$ to the gradient; AdamW subtracts $lr \cdot
# \lambda w$ from the weight. Which weights does Adam's L2 decay reach least?
#
# - (a) those with small gradients: their decay term is lost in eps
# - (b) none: both decay every weight by lr * lambda * w per step
# - (c) those with large, steady gradients: the decay is divided by sqrt(v) along with the gradient,
#   and their v is large
# - (d) the biases, which Adam never decays
#
# **q5.** Why does exercise 6.4 put biases and normalization weights in a group with `weight_decay =
# 0`?
#
# - (a) they are few and do not overfit; pulling a norm's scale towards 0 only shrinks the layer's
#   output, which the next weights must undo
# - (b) they have no gradients, so decay would be the only update
# - (c) decaying them makes the loss diverge at once
# - (d) PyTorch's optimizers refuse to decay one-dimensional tensors
