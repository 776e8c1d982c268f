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
# # Chapter 13: Capstone: a small CNN, trained with everything
#
# Time to put the course together. The task is small on purpose (it trains in seconds on a
# laptop CPU), but the training loop is the real thing:
#
# - a CNN (`Conv2d`, `MaxPool2d`, `Linear`) on synthetic 12 x 12 images;
# - **AdamW** with a **warmup + cosine** schedule stepped per batch (chapters 6-7);
# - **autocast to bfloat16** with a **GradScaler**, unscaling before **gradient clipping**
#   (chapters 8-9);
# - **evaluation** on a held-out set, **logging** with `SummaryWriter` (chapter 12);
# - an atomic **checkpoint** every epoch and an **exact resume** after an interruption
#   (chapter 10).

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import csv
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis.viz import plot_training_curves

# %% [markdown]
# ## The data
#
# `make_shapes` (ready-made in `exercises.py`) draws noisy images of four shapes at random
# places: a horizontal bar, a vertical bar, a diagonal and the outline of a square. A model has
# to find *where* the bright pixels line up, and in which direction: a job for convolutions,
# whose 3 x 3 filters respond to local patterns wherever they are.

# %%
X, y = ex.make_shapes(1024, noise=0.3, seed=0)
X_train, y_train, X_val, y_val = X[:768], y[:768], X[768:], y[768:]
print("train", tuple(X_train.shape), "validation", tuple(X_val.shape))

fig, axes = plt.subplots(2, 8, figsize=(8, 2.4))
for ax, image, label in zip(axes.flat, X[:16].numpy(), y[:16].tolist()):
    ax.imshow(image[0], cmap="gray")
    ax.set_title(ex.CLASSES[label], fontsize=7)
    ax.axis("off")
fig.tight_layout()
plt.show()

# %% [markdown]
# ## The model
#
# **Exercise 13.1**: `build_cnn()`: two convolution blocks (3 x 3 convolution, ReLU, 2 x 2 max
# pooling) take 1 x 12 x 12 to 8 x 6 x 6 and then 16 x 3 x 3; a Linear layer maps those 144
# numbers to 4 class scores.

# %%
mg.manual_seed(0)
model = ex.build_cnn()
print(model)
print("parameters:", sum(p.numel() for p in model.parameters()))
print("logits for 2 images:", tuple(model(X[:2]).shape))

# %% [markdown]
# ## One training step
#
# The order of operations matters, and each position has a reason:
#
# 1. `optimizer.zero_grad()`: gradients accumulate otherwise (chapter 8);
# 2. forward and loss under `mg.autocast("cpu", dtype=mg.bfloat16)`: convolutions and matmuls in
#    bfloat16, the loss in float32 (chapter 9);
# 3. `scaler.scale(loss).backward()`: a scaled loss, so that no small gradient underflows;
# 4. `scaler.unscale_(optimizer)`: true gradients, before anyone looks at their size;
# 5. `clip_grad_norm_(..., max_norm)`: returns the norm before clipping, worth logging;
# 6. `scaler.step(optimizer)`: skipped if a gradient is inf/NaN; `scaler.update()`;
# 7. `scheduler.step()`: after the optimizer step, once per batch for a warmup schedule.
#
# **Exercise 13.2**: write `train_step`.

# %%
mg.manual_seed(0)
model = ex.build_cnn()
optimizer = mg.optim.AdamW(model.parameters(), lr=2e-2)
scheduler = mg.optim.get_cosine_schedule_with_warmup(optimizer, 5, 60)
scaler = mg.amp.GradScaler()
for step in range(8):
    idx = mg.randint(0, 768, (64,))
    stats = ex.train_step(model, optimizer, scheduler, scaler, X_train[idx], y_train[idx], 1.0)
    print(
        f"step {step}: loss {stats['loss']:.3f}  grad norm {stats['grad_norm']:.3f}  "
        f"lr {stats['lr']:.4f}"
    )

# %% [markdown]
# The first step runs with lr = 0 (warmup starts at zero), so it changes nothing; from then on
# the lr ramps up by 2e-2 / 5 per step.
#
# ## Evaluation
#
# **Exercise 13.3**: `evaluate(model, X, y, batch_size)`: eval mode (Dropout off, BatchNorm on
# its running statistics), no graph, and an average over *samples*: with 256 samples in
# batches of 100, the last batch has 56 and must weigh 56/256, not 1/3.

# %%
loss, accuracy = ex.evaluate(model, X_val, y_val, batch_size=100)
print(f"after 8 steps: validation loss {loss:.3f}, accuracy {accuracy:.1%}")

# %% [markdown]
# ## The whole run
#
# **Exercise 13.4**: `fit(data, out_dir, ...)` wires it all together: it builds everything,
# resumes from `out_dir/checkpoint.mgck` if that exists, and for each epoch shuffles, trains,
# evaluates, logs and saves a checkpoint. Four epochs take a few seconds.

# %%
workdir = tempfile.TemporaryDirectory()
run_dir = Path(workdir.name) / "run"
data = (X_train, y_train, X_val, y_val)
history = ex.fit(data, run_dir, epochs=4)
for epoch, (tl, vl, va) in enumerate(zip(*history.values())):
    print(f"epoch {epoch}: train loss {tl:.3f}  val loss {vl:.3f}  val accuracy {va:.1%}")
plot_training_curves(
    {"train_loss": history["train_loss"], "val_loss": history["val_loss"],
     "val_acc": history["val_acc"]},
    title="CNN on shapes, bf16 autocast + GradScaler, warmup + cosine",
)  # fmt: skip

# %% [markdown]
# What the run left in its folder: the checkpoint and the logs (TensorBoard events plus CSV):

# %%
for path in sorted(run_dir.rglob("*")):
    if path.is_file():
        print(f"{path.stat().st_size:8d} bytes  {path.relative_to(run_dir)}")
with open(run_dir / "logs" / "scalars.csv", newline="") as f:
    print(
        [(row["step"], row["tag"], round(float(row["value"]), 3)) for row in csv.DictReader(f)][:3]
    )

# %% [markdown]
# ## Interrupted, then resumed
#
# `stop_after=2` simulates a run killed after its second epoch. Calling `fit` again on the same
# folder finds the checkpoint and continues. Because the checkpoint holds the model, the
# optimizer, the scheduler, the scaler, the RNG state and the history, the resumed run is the
# *same* run, to the last bit:

# %%
resumed_dir = Path(workdir.name) / "resumed"
ex.fit(data, resumed_dir, epochs=4, stop_after=2)
mg.manual_seed(12345)  # a new process would start from some other random state
resumed = ex.fit(data, resumed_dir, epochs=4)
print("identical to the uninterrupted run:", resumed == history)

# %% [markdown]
# ## What the model gets wrong
#
# A confusion matrix counts, for each true class (rows), the predicted classes (columns).

# %%
final = ex.build_cnn()
final.load_state_dict(mg.load(run_dir / "checkpoint.mgck")["model"])
final.eval()
with mg.no_grad():
    predicted = final(X_val).argmax(dim=1).numpy()
confusion = np.zeros((4, 4), dtype=int)
for true_class, pred in zip(y_val.numpy(), predicted):
    confusion[true_class, pred] += 1

fig, ax = plt.subplots(figsize=(3.6, 3.2))
ax.imshow(confusion, cmap="Blues")
for i in range(4):
    for j in range(4):
        ax.text(j, i, confusion[i, j], ha="center", va="center", fontsize=8)
ax.set_xticks(range(4), [c.split()[0] for c in ex.CLASSES], fontsize=7, rotation=30)
ax.set_yticks(range(4), [c.split()[0] for c in ex.CLASSES], fontsize=7)
ax.set_xlabel("predicted")
ax.set_ylabel("true")
fig.tight_layout()
plt.show()
workdir.cleanup()

# %% [markdown]
# ## Your engine
#
# Fourteen exercises of the course are pieces of a training engine, with the same interfaces as
# minigenesis's own: the backward walk (2.3, 2.4), broadcasting's sum-back (3.2), Linear's
# backward (3.4), a Linear layer (4.1), AdamW (6.3), the warmup + cosine schedule (7.1),
# clipping (8.1), the loss scaler (9.5), the checkpoint's safe load and atomic write (10.1,
# 10.2), and this chapter's CNN, training step and evaluation. From the repository root,
#
# ```
# python -m minigenesis lessons capstone --mine
# ```
#
# trains this chapter's run with every piece you have written plugged in and minigenesis for
# the rest, then the same run on minigenesis alone, and compares them:
#
# ```
# your engine: 9 of 14 pieces (2.3 topological order, 2.4 backward walk, 6.3 AdamW, ...)
# not yet yours (minigenesis's ran): 3.4 Linear's backward, ...
# validation accuracy 93.4% (reference 93.0%), validation loss 0.221 (reference 0.233)
# ```
#
# Your pieces are built into the run (your CNN, optimizer, scaler ...) or patched into
# minigenesis for its length (the walk, the sum-back, Linear's backward) and put back after it.
# A piece that raises or makes NaN is named, and the run goes on with minigenesis's piece in its
# place. A piece that is wrong but runs (an Adam without bias correction) trains a different
# model: the two numbers part.
#
# ## Where next
#
# - Make the task harder (`noise=0.5`) and see which tools start to matter: a longer warmup,
#   a lower `max_norm`, more epochs, a wider network.
# - Swap `mg.bfloat16` for `mg.float16` in `train_step` and watch `scaler.get_scale()`: with
#   float16's narrow range, the GradScaler now has real work to do.
# - Log the gradient norm and the learning rate of every step with the `SummaryWriter` and look
#   at them with `tensorboard --logdir`.
# - Replace the CNN with a character-level model on `mg.datasets.load_corpus()` and
#   `mg.datasets.CharDataset`: the training loop does not change.
#
# ## Summary
#
# One training step: zero the gradients; forward and loss under autocast; scaled backward;
# unscale; clip; scaler step and update; scheduler step. Around it: shuffle, evaluate in eval
# mode without a graph, log, and checkpoint everything a bit-exact resume needs, atomically.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 13.5**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/13_capstone -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** The run's first `train_step` prints `lr 0.0000` (AdamW under
# `get_cosine_schedule_with_warmup`). What does that step do to the weights?
#
# - (a) it divides by zero in Adam's update and writes NaN into them
# - (b) it applies AdamW's weight decay alone, since the decay does not depend on the lr
# - (c) nothing: a warmup starts at lr 0, and AdamW's update and its decoupled decay are both
#   multiplied by the lr
# - (d) it takes a full step of lr 2e-2: the schedule only changes the lr after the step
#
# **q2.** `evaluate` runs 256 samples in batches of 100, 100 and 56, whose mean losses are 0.2,
# 0.2 and 0.8. What mean loss must it return?
#
# - (a) (100 x 0.2 + 100 x 0.2 + 56 x 0.8) / 256 = 0.33
# - (b) (0.2 + 0.2 + 0.8) / 3 = 0.40
# - (c) 0.8: the last batch is the most recent
# - (d) 0.2: the median of the three batches
#
# **q3.** A checkpoint holds the model, the optimizer, the scheduler and the scaler, but not the
# random number generator's state. A run interrupted after epoch 2 is resumed from it. How does
# it compare with the uninterrupted run?
#
# - (a) the same, to the last bit: everything that is trained is in the checkpoint
# - (b) different from epoch 3 on: each epoch's `mg.randperm` draws another order of the batches
# - (c) different, because AdamW's moments restart from zero
# - (d) different, because the warmup starts over
#
# **q4.** `evaluate` is written without `mg.no_grad()` (the rest as asked). What changes?
#
# - (a) the loss and the accuracy: the graph changes the values
# - (b) the weights: the evaluation's gradients are added to the next step's
# - (c) nothing at all: `model.eval()` already turns autograd off
# - (d) not the numbers: every batch builds a graph that nothing uses, at a cost in time and
#   memory
#
# **q5.** Your AdamW (6.3) runs but forgets the bias correction. What does `python -m
# minigenesis lessons capstone --mine` report?
#
# - (a) 6.3 named as failing, and minigenesis's AdamW used in its place
# - (b) 6.3 among your engine's pieces, and a validation loss and accuracy that part from the
#   reference's: a wrong piece that runs shows only in the numbers
# - (c) an error: the command checks every piece before it trains
# - (d) the same numbers as the reference, since the correction only matters in the first steps
