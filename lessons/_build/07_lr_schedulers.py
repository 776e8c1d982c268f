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
# # Chapter 7: Learning-rate schedules
#
# The learning rate is the one hyper-parameter that matters most, and the best value changes
# during training: large early on, to cover ground fast; small at the end, to settle into a
# minimum instead of bouncing around it. Transformers and large batches also want a **warmup**:
# a few hundred steps of a small, growing learning rate while Adam's moment estimates are still
# noise.
#
# A *scheduler* owns that curve. `mg.optim.lr_scheduler` has the whole family of
# `torch.optim.lr_scheduler`, with the same semantics. In this chapter you plot every one of them,
# write three closed forms and your own scheduler, and see how a schedule is saved and resumed.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import math

import matplotlib.pyplot as plt

import minigenesis as mg
from minigenesis.optim import lr_scheduler as sched

# %% [markdown]
# ## The protocol
#
# A scheduler wraps an optimizer and writes into `optimizer.param_groups[i]["lr"]`:
#
# - the **constructor** records each group's `initial_lr` (in `scheduler.base_lrs`) and already
#   applies epoch 0, so the first optimizer step uses the schedule's first value;
# - **`scheduler.step()`** advances `scheduler.last_epoch` by one and writes the next value. Call
#   it *after* `optimizer.step()`: once per epoch for epoch-based schedules, once per batch for
#   warmup schedules;
# - **`scheduler.get_last_lr()`** returns the values it last wrote: a *list*, one per param group.

# %%
param = mg.nn.Parameter(mg.zeros(3))
optimizer = mg.optim.SGD([param], lr=0.1)
scheduler = sched.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(5):
    print(f"epoch {epoch}: last_epoch={scheduler.last_epoch} lr={scheduler.get_last_lr()}")
    optimizer.step()  # the training of one epoch would go here
    scheduler.step()

# %% [markdown]
# ## Every scheduler, plotted
#
# One small helper records the learning rate a training loop would use at each step. Every
# scheduler of `mg.optim.lr_scheduler` then gets one panel. `ReduceLROnPlateau` is driven by a
# made-up validation loss that stalls twice.


# %%
def fresh_optimizer(lr=0.1):
    # momentum, because OneCycleLR also cycles it
    return mg.optim.SGD([mg.nn.Parameter(mg.zeros(1))], lr=lr, momentum=0.9)


def trajectory(scheduler, steps, metrics=None):
    """The lr in force at each of ``steps`` training steps."""
    lrs = []
    for t in range(steps):
        lrs.append(scheduler.optimizer.param_groups[0]["lr"])
        scheduler.optimizer.step()
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[t])
    return lrs


def warmup_then_cosine(opt):
    return sched.SequentialLR(
        opt,
        [
            sched.LinearLR(opt, start_factor=0.1, total_iters=10),
            sched.CosineAnnealingLR(opt, T_max=90),
        ],
        milestones=[10],
    )


def chained(opt):
    return sched.ChainedScheduler(
        [sched.ConstantLR(opt, factor=0.5, total_iters=20), sched.ExponentialLR(opt, gamma=0.98)]
    )


fake_val_loss = [1 / (1 + t) if t < 30 else (0.03 if t < 70 else 0.02) for t in range(100)]
gallery = {
    "LambdaLR(0.95**(e//10))": lambda o: sched.LambdaLR(o, lambda e: 0.95 ** (e // 10)),
    "MultiplicativeLR(0.97)": lambda o: sched.MultiplicativeLR(o, lambda e: 0.97),
    "StepLR(30, 0.1)": lambda o: sched.StepLR(o, step_size=30, gamma=0.1),
    "MultiStepLR([30, 80])": lambda o: sched.MultiStepLR(o, milestones=[30, 80], gamma=0.1),
    "ExponentialLR(0.95)": lambda o: sched.ExponentialLR(o, gamma=0.95),
    "ConstantLR(1/3, 20)": lambda o: sched.ConstantLR(o, factor=1 / 3, total_iters=20),
    "LinearLR(1/3 -> 1, 20)": lambda o: sched.LinearLR(o, start_factor=1 / 3, total_iters=20),
    "PolynomialLR(100, 2)": lambda o: sched.PolynomialLR(o, total_iters=100, power=2.0),
    "CosineAnnealingLR(100)": lambda o: sched.CosineAnnealingLR(o, T_max=100),
    "WarmRestarts(10, x2)": lambda o: sched.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2),
    "OneCycleLR(max 0.1)": lambda o: sched.OneCycleLR(o, max_lr=0.1, total_steps=100),
    "SequentialLR(lin, cos)": warmup_then_cosine,
    "ChainedScheduler(c, exp)": chained,
    "cosine with warmup": lambda o: sched.get_cosine_schedule_with_warmup(o, 10, 100),
    "linear with warmup": lambda o: sched.get_linear_schedule_with_warmup(o, 10, 100),
    "ReduceLROnPlateau(p=5)": lambda o: sched.ReduceLROnPlateau(o, factor=0.5, patience=5),
}

fig, axes = plt.subplots(4, 4, figsize=(10, 7), sharex=True)
for ax, (name, make) in zip(axes.flat, gallery.items()):
    s = make(fresh_optimizer())
    metrics = fake_val_loss if isinstance(s, sched.ReduceLROnPlateau) else None
    ax.plot(trajectory(s, 100, metrics))
    ax.set_title(name, fontsize=9)
    ax.tick_params(labelsize=7)
for ax in axes[-1]:
    ax.set_xlabel("step")
fig.tight_layout()
plt.show()

# %% [markdown]
# A few things to notice:
#
# - `StepLR`, `MultiStepLR` and `ExponentialLR` only ever multiply by `gamma`;
#   `MultiplicativeLR` multiplies by whatever its function returns, every step.
# - `LambdaLR` sets `lr = initial_lr * lr_lambda(epoch)`: any schedule you can write as a
#   function of the step. `get_cosine_schedule_with_warmup` and
#   `get_linear_schedule_with_warmup` (from Hugging Face `transformers`) are `LambdaLR`s.
# - `OneCycleLR` starts at `max_lr / 25`, climbs to `max_lr` for 30 % of the run and then anneals
#   to `max_lr / 25 / 10^4`; it also cycles the momentum the opposite way.
# - `SequentialLR` hands over from one scheduler to the next at its milestones; `ChainedScheduler`
#   steps several at once, so their factors multiply.
# - `ReduceLROnPlateau` does not follow the step count at all: it watches a metric, and cuts
#   the learning rate when the metric stops improving for more than `patience` epochs.
#
# `minigenesis.viz` has the plotting ready-made: `plot_lr_schedule(factory, steps)` draws one
# schedule, `plot_lr_schedules({name: factory, ...}, steps)` several on one axes; each returns a
# matplotlib `Figure` (and leaves a live scheduler exactly as it found it).

# %%
from minigenesis.viz import plot_lr_schedules

plot_lr_schedules(
    {name: gallery[name] for name in ("StepLR(30, 0.1)", "CosineAnnealingLR(100)",
                                      "OneCycleLR(max 0.1)", "cosine with warmup")},
    steps=100,
)  # fmt: skip

# %% [markdown]
#
# ## Warmup + cosine
#
# The schedule of most transformer training runs: a linear ramp from 0 to the full learning rate
# over `num_warmup_steps`, then half a cosine down to 0 at `num_training_steps`:
#
#     factor(t) = t / W                                   for t < W
#     factor(t) = max(0, (1 + cos(pi * (t - W) / (T - W))) / 2)   afterwards
#
# **Exercise 7.1**: write `warmup_cosine_lambda(num_warmup_steps, num_training_steps)`, the
# function to hand to `LambdaLR`. The plot puts yours on top of minigenesis's
# `get_cosine_schedule_with_warmup`.

# %%
total_steps, warmup_steps = 1000, 100
model = mg.nn.Linear(10, 2)
optimizer = mg.optim.Adam(model.parameters(), lr=0.001)
mine = sched.LambdaLR(optimizer, ex.warmup_cosine_lambda(warmup_steps, total_steps))
lrs = trajectory(mine, total_steps)

reference = sched.get_cosine_schedule_with_warmup(
    mg.optim.Adam(mg.nn.Linear(10, 2).parameters(), lr=0.001), warmup_steps, total_steps
)
plt.figure(figsize=(6, 3))
plt.plot(
    trajectory(reference, total_steps), lw=4, alpha=0.4, label="get_cosine_schedule_with_warmup"
)
plt.plot(lrs, "k--", lw=1, label="your warmup_cosine_lambda")
plt.axvline(x=warmup_steps, color="r", linestyle="--", label="warmup end")
plt.xlabel("step")
plt.ylabel("learning rate")
plt.title("Warmup + cosine")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Common patterns, as `LambdaLR`s
#
# Many schedules are written as one-line lambdas. Note the transformer schedule of
# "Attention is all you need": `d_model^-0.5 * min(t^-0.5, t * warmup^-1.5)`, a warmup that
# peaks at step `warmup`, then an inverse square-root decay. Its factor is absolute (about 7e-4 at
# the peak for d_model = 512 and the paper's 4000 warmup steps), so it is used with `lr=1`.


# %%
def transformer_lambda(step, d_model=512, warmup=40):
    if step == 0:
        return 0.0
    return d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)


patterns = {
    "exponential: 0.95**e": lambda e: 0.95**e,
    "step: 0.5**(e//30)": lambda e: 0.5 ** (e // 30),
    "polynomial: (1 - e/100)**0.9": lambda e: (1 - e / 100) ** 0.9,
    "cosine restart, period 50": lambda e: 0.5 * (1 + math.cos(math.pi * (e % 50) / 50)),
    # its factor peaks at 7e-3 (step 40): divided by the peak, it shares the axis with the others
    "transformer (/ its peak)": lambda e: transformer_lambda(e) / transformer_lambda(40),
}
plt.figure(figsize=(6, 3))
for name, fn in patterns.items():
    plt.plot(trajectory(sched.LambdaLR(fresh_optimizer(lr=1.0), fn), 100), label=name)
plt.xlabel("epoch")
plt.ylabel("factor")
plt.legend(fontsize=7)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Chainable forms and closed forms
#
# Most schedulers compute the next learning rate *from the current one* (`StepLR` multiplies by
# `gamma` at each boundary; `CosineAnnealingLR` uses a recursive formula). That makes them
# *chainable*: two schedulers on one optimizer compose. Each also has a *closed form*, a
# formula of the step alone, to check it against:
#
#     CosineAnnealingLR:  eta_t = eta_min + (base - eta_min) * (1 + cos(pi * t / T_max)) / 2
#     CosineAnnealingWarmRestarts:  the same, with t -> T_cur (steps since the last restart)
#                         and T_max -> T_i (the current cycle's length, T_0 * T_mult^i)
#
# **Exercises 7.2 and 7.3**: write `cosine_annealing_lr` and `warm_restarts_lr`. The cell
# compares them with the schedulers; the largest difference should be around 1e-17.

# %%
T_0, T_mult, eta_min = 10, 2, 0.001
restarts = trajectory(
    sched.CosineAnnealingWarmRestarts(fresh_optimizer(0.1), T_0, T_mult, eta_min), 150
)
closed = [ex.warm_restarts_lr(t, 0.1, T_0, T_mult, eta_min) for t in range(150)]
print("max |difference| warm restarts:", max(abs(a - b) for a, b in zip(restarts, closed)))
cosine = trajectory(sched.CosineAnnealingLR(fresh_optimizer(0.1), T_max=100), 101)
closed_cos = [ex.cosine_annealing_lr(t, 0.1, 100) for t in range(101)]
print("max |difference| cosine       :", max(abs(a - b) for a, b in zip(cosine, closed_cos)))

# %% [markdown]
# ## ReduceLROnPlateau
#
# `ReduceLROnPlateau(optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4)` is stepped
# with the metric: `scheduler.step(val_loss)`. A metric only counts as better when it beats the
# best so far by a relative `threshold`: with the defaults, 8 -> 7.9999 is *not* an improvement.
# After more than `patience` epochs without improvement, the learning rate is multiplied by
# `factor`.
#
# **Exercise 7.4**: write `plateau_lrs(metrics, lr, factor, patience, threshold)` with those
# rules, and compare it with the real scheduler on a noisy loss curve.

# %%
mg.manual_seed(0)
noise = mg.rand(80).tolist()
val_loss = [2.0 / (1 + 0.2 * t) + 0.05 * n for t, n in zip(range(80), noise)]
optimizer = fresh_optimizer(0.1)
plateau = sched.ReduceLROnPlateau(optimizer, factor=0.5, patience=4)
real = []
for metric in val_loss:
    optimizer.step()
    plateau.step(metric)
    real.append(optimizer.param_groups[0]["lr"])
mine = ex.plateau_lrs(val_loss, 0.1, factor=0.5, patience=4)

fig, (top, bottom) = plt.subplots(2, 1, figsize=(6, 4), sharex=True)
top.plot(val_loss)
top.set_ylabel("val loss")
bottom.step(range(80), real, where="post", lw=4, alpha=0.4, label="ReduceLROnPlateau")
bottom.step(range(80), mine, "k--", where="post", lw=1, label="your plateau_lrs")
bottom.set_ylabel("lr")
bottom.set_xlabel("epoch")
bottom.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Your own scheduler
#
# A new schedule is a subclass of `LRScheduler` with one method, `get_lr()`, which returns the
# learning rate of each param group for epoch `self.last_epoch`, usually computed from
# `self.base_lrs`. Set your attributes *before* calling `super().__init__`: the base constructor
# already performs step 0, which calls `get_lr()`. `step()`, `get_last_lr()`, `state_dict()` and
# `load_state_dict()` come for free.
#
# **Exercise 7.5**: write `WarmupExponentialLR`: a linear warmup from `start_factor * base_lr`
# to `base_lr` over `warmup_steps`, then `gamma ** (e - warmup_steps)`. It must match
# `SequentialLR([LinearLR(...), ExponentialLR(...)], milestones=[warmup_steps])`.

# %%
opt_a, opt_b = fresh_optimizer(), fresh_optimizer()
yours = ex.WarmupExponentialLR(opt_a, warmup_steps=10, gamma=0.95)
theirs = sched.SequentialLR(
    opt_b,
    [sched.LinearLR(opt_b, start_factor=0.1, total_iters=10), sched.ExponentialLR(opt_b, 0.95)],
    milestones=[10],
)
a, b = trajectory(yours, 60), trajectory(theirs, 60)
print("largest difference:", max(abs(x - y) for x, y in zip(a, b)))

# %% [markdown]
# ## Saving and resuming a schedule
#
# A scheduler's `state_dict()` holds `last_epoch`, `base_lrs` and its settings, as plain data
# (never the lambdas: those are rebuilt by your code). Save it with the model and the optimizer
# (chapter 10 does this for a whole run); after loading, the schedule continues where it stopped.

# %%
optimizer = fresh_optimizer()
run = sched.get_cosine_schedule_with_warmup(optimizer, 5, 40)
first_half = trajectory(run, 20)
saved = {"optimizer": optimizer.state_dict(), "scheduler": run.state_dict()}
print("saved scheduler state:", {k: v for k, v in saved["scheduler"].items() if k != "lr_lambdas"})

new_optimizer = fresh_optimizer()
resumed = sched.get_cosine_schedule_with_warmup(new_optimizer, 5, 40)
new_optimizer.load_state_dict(saved["optimizer"])
resumed.load_state_dict(saved["scheduler"])
uninterrupted = trajectory(sched.get_cosine_schedule_with_warmup(fresh_optimizer(), 5, 40), 40)
print("resumed == uninterrupted:", first_half + trajectory(resumed, 20) == uninterrupted)

# %% [markdown]
# ## Choosing a learning rate: the range test
#
# The *learning-rate range test* finds a good peak learning rate before a long run: grow
# the learning rate exponentially from 1e-6 to 10 over ~100 steps, record the loss, and stop
# when it exceeds 4x its minimum. A common pick is where the loss falls fastest, or about ten times
# below the learning rate of the lowest loss: well before the blow-up. It is one more `LambdaLR`.

# %%
mg.manual_seed(0)
x = mg.randn(256, 8)
y = x @ mg.randn(8, 1) + 0.1 * mg.randn(256, 1)
model = mg.nn.Sequential(mg.nn.Linear(8, 32), mg.nn.Tanh(), mg.nn.Linear(32, 1))
optimizer = mg.optim.SGD(model.parameters(), lr=1e-6)
start_lr, end_lr, num_it = 1e-6, 10.0, 100
finder = sched.LambdaLR(optimizer, lambda step: (end_lr / start_lr) ** (step / num_it))
lrs, losses = [], []
for _ in range(num_it):
    loss = ((model(x) - y) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    lrs.append(finder.get_last_lr()[0])
    losses.append(loss.item())
    finder.step()
    if not math.isfinite(losses[-1]) or losses[-1] > 4 * min(losses):
        break
plt.figure(figsize=(5, 3))
plt.semilogx(lrs, losses)
plt.xlabel("learning rate")
plt.ylabel("loss")
plt.title(f"LR range test: stopped at lr={lrs[-1]:.2g}")
plt.tight_layout()
plt.show()

# %% [markdown]
# `mg.viz.lr_range_test(model, optimizer, criterion, data)` runs the same sweep, with a smoothed
# loss, puts the model and the optimizer back as they were, and suggests the learning rate where
# the loss falls fastest:

# %%
from minigenesis.viz import lr_range_test

result = lr_range_test(model, optimizer, mg.nn.MSELoss(), (x, y), start_lr=1e-6, end_lr=10.0)
print(f"{len(result.lrs)} steps, suggested lr: {result.suggested_lr:.3g}")

# %% [markdown]
# ## Summary
#
# - A scheduler writes `param_groups[i]["lr"]`; the constructor applies epoch 0, `step()` goes
#   after `optimizer.step()`, `get_last_lr()` is a list.
# - `LambdaLR` turns any function of the step into a schedule; warmup + cosine is the usual
#   choice for transformers; `ReduceLROnPlateau` follows a metric instead of the clock.
# - Chainable schedulers compute the next lr from the current one and have closed forms to
#   test them against.
# - A new schedule is a `get_lr()`; its state is saved with `state_dict()` and resumes exactly.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 7.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/07_lr_schedulers -k self_check`:
# each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Spot the bug:
#
# ```python
# for step in range(steps):
#     scheduler.step()
#     loss = train_step(batch)
#     optimizer.step()
# ```
#
# - (a) the learning rate never changes
# - (b) nothing: the order of the two calls does not matter
# - (c) the optimizer uses the learning rate of two steps before
# - (d) the scheduler runs one step ahead: the schedule's first learning rate (step 0 of the
#   warm-up) is never used
#
# **q2.** `CosineAnnealingLR(opt, T_max=100, eta_min=0)` with a base lr of 0.1. What is the learning
# rate after 50 steps?
#
# - (a) 0.05
# - (b) 0.1: cosine starts slowly
# - (c) 0.025
# - (d) 0.0707 (0.1 / sqrt(2))
#
# **q3.** Why start a Transformer's training with a linear warm-up instead of the full learning
# rate?
#
# - (a) the first batches of an epoch are easier
# - (b) at the start the weights and Adam's moment estimates are far from settled, and full-size
#   steps can throw the model into a region it does not recover from
# - (c) warm-up is needed only with SGD, never with Adam
# - (d) a small learning rate at the start makes the final model generalize better
