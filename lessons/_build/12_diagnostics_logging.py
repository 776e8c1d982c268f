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
# # Chapter 12: Diagnostics and logging: curves, NaN hunting, TensorBoard
#
# A training run talks through its numbers: the loss per batch, the train and validation loss
# per epoch, the gradient norms, the learning rate. This chapter is about listening:
#
# - recording and plotting training curves, and smoothing noisy ones;
# - reading the curves: overfitting, underfitting, convergence, divergence;
# - finding where a NaN comes from, with forward hooks and `mg.autograd.detect_anomaly`;
# - seeing whether the gradient reaches every layer (gradient flow);
# - writing it all down with a TensorBoard-style `SummaryWriter`.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import csv
import re
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg
from minigenesis import diagnostics
from minigenesis.datasets import make_spirals
from minigenesis.utils.tensorboard import SummaryWriter
from minigenesis.viz import plot_training_curves

# %% [markdown]
# ## Recording a run
#
# A small MLP on the three-arm spiral problem. Per batch we keep the loss; per epoch, the train
# and validation loss and accuracy: the `history` dict that `mg.viz.plot_training_curves` draws.


# %%
def train_spirals(n_train, hidden, epochs, batch, label_noise=0.0, lr=1e-2, seed=0):
    X, y = make_spirals(n_train + 300, 3, noise=0.2, seed=seed)
    mg.manual_seed(seed)
    order = mg.randperm(len(y))
    X, y = X[order], y[order]
    X_train, y_train, X_val, y_val = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    if label_noise:  # some wrong labels, which a big model will happily memorise
        flip = mg.rand(n_train) < label_noise
        y_train = mg.where(flip, mg.randint(0, 3, (n_train,)), y_train)
    model = mg.nn.Sequential(
        mg.nn.Linear(2, hidden), mg.nn.ReLU(),
        mg.nn.Linear(hidden, hidden), mg.nn.ReLU(),
        mg.nn.Linear(hidden, 3),
    )  # fmt: skip
    optimizer = mg.optim.Adam(model.parameters(), lr=lr)
    criterion = mg.nn.CrossEntropyLoss()
    history = {"train_loss": [], "val_loss": [], "train_acc": [], "val_acc": [], "batch_loss": []}
    for _ in range(epochs):
        perm = mg.randperm(n_train)
        for i in range(0, n_train, batch):
            idx = perm[i : i + batch]
            loss = criterion(model(X_train[idx]), y_train[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            history["batch_loss"].append(loss.item())
        with mg.no_grad():
            for split, inputs, labels in (("train", X_train, y_train), ("val", X_val, y_val)):
                logits = model(inputs)
                history[f"{split}_loss"].append(criterion(logits, labels).item())
                accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
                history[f"{split}_acc"].append(accuracy)
    return model, history


model, healthy = train_spirals(n_train=600, hidden=64, epochs=30, batch=100)
print(f"validation accuracy after 30 epochs: {healthy['val_acc'][-1]:.1%}")
plt.figure(figsize=(6, 2.5))
plt.plot(healthy["batch_loss"])
plt.xlabel("step (batch)")
plt.ylabel("batch loss")
plt.tight_layout()
plt.show()

# %% [markdown]
# The per-epoch curves tell more. `plot_training_curves(history)` returns a matplotlib `Figure`
# with the loss on the left and the accuracy on the right (train and validation):

# %%
plot_training_curves(healthy, title="600 training points, 64 hidden units")

# %% [markdown]
# ## Smoothing noisy curves
#
# The per-batch loss above is noisy: each batch is a different sample. TensorBoard's "Smoothing"
# slider applies an exponential moving average, *debiased* so that the first points are not
# pulled towards 0:
#
#     last = w * last + (1 - w) * value          (last starts at 0)
#     smoothed_k = last / (1 - w^k)              after the k-th value
#
# **Exercise 12.1**: write `ema_smooth(values, weight)`.

# %%
plt.figure(figsize=(6, 3))
plt.plot(healthy["batch_loss"], color="lightgray", label="batch loss")
for w in (0.6, 0.9):
    plt.plot(ex.ema_smooth(healthy["batch_loss"], w), label=f"ema_smooth, weight {w}")
plt.xlabel("step")
plt.ylabel("loss")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Reading the curves
#
# Read the last ~10 epochs of the curves:
#
# | pattern | looks like | try |
# |---|---|---|
# | overfitting | train loss falls, validation loss rises | more data, dropout, weight decay |
# | underfitting | both losses high and close together | a bigger model, longer training |
# | converged | the train loss no longer changes | stop, or a smaller lr to fine-tune |
# | diverging | the loss rises, or is NaN/Inf | a lower lr, clipping, NaN hunting |
#
# Here is an overfitting run: 60 training points, 20 % of them relabelled at random, and a model
# large enough to memorise them all.

# %%
_, overfit = train_spirals(n_train=60, hidden=64, epochs=100, batch=60, label_noise=0.2)
plot_training_curves(overfit, title="60 noisy training points")

# %% [markdown]
# After epoch ~50 the validation loss climbs while the train loss keeps falling. (The validation
# *accuracy* still creeps up: the loss also punishes the growing over-confidence on the points
# the model gets wrong. Watch both.)
#
# `mg.diagnostics.diagnose_training(train_losses, val_losses)` applies those rules (plus a check
# for oscillation) and explains its findings. **Exercise 12.2**: write `diagnose`, the same
# rules as a list of labels, and compare.

# %%
epochs = np.arange(30)
runs = {
    "healthy run": (healthy["train_loss"], healthy["val_loss"]),
    "overfitting run": (overfit["train_loss"], overfit["val_loss"]),
    "lr too high": (
        list(np.r_[np.linspace(2, 0.5, 20), 0.5 * 1.5 ** np.arange(1, 11)]),
        list(np.linspace(2, 0.6, 30)),
    ),  # fmt: skip
}
for name, (train, val) in runs.items():
    print(f"--- {name}: your diagnose() says {ex.diagnose(train, val)}")
    print(diagnostics.diagnose_training(train, val))

# %% [markdown]
# ## NaN hunting
#
# One NaN anywhere and, one optimizer step later, everything is NaN. A short recipe narrows
# it down: is the input already NaN? which layer's output first becomes NaN? is it the loss? or
# only the gradients? Here is a model with a realistic bug: it standardises its input by the
# batch's standard deviation, and one input column happens to be constant, so 0 / 0.


# %%
class Standardize(mg.nn.Module):
    def forward(self, x):
        return (x - x.mean(dim=0)) / x.std(dim=0)


mg.manual_seed(0)
net = mg.nn.Sequential(
    mg.nn.Linear(3, 3), mg.nn.ReLU(), Standardize(), mg.nn.Linear(3, 16), mg.nn.Tanh(),
    mg.nn.Linear(16, 1),
)  # fmt: skip
inputs = mg.randn(32, 3)
inputs[:, 2] = 5.0  # a constant column
with mg.no_grad():
    net[0].weight[:] = mg.eye(3)  # the first layer passes the columns through
    net[0].bias[:] = 0.0
targets = mg.randn(32, 1)

with np.errstate(invalid="ignore", divide="ignore"):
    print("loss:", mg.nn.MSELoss()(net(inputs), targets).item())

# %% [markdown]
# **Exercise 12.3**: write `first_nonfinite_module(model, x)`. A *forward hook*
# (`module.register_forward_hook(hook)`, called as `hook(module, inputs, output)` when that
# module's forward has finished) on every module sees every intermediate output. Inner layers
# finish before the blocks that hold them, so the first non-finite output names the innermost
# culprit. `mg.diagnostics.find_nan_source` runs the whole recipe.

# %%
with np.errstate(invalid="ignore", divide="ignore"):
    print("first non-finite module:", ex.first_nonfinite_module(net, inputs))
    print("find_nan_source:", diagnostics.find_nan_source(net, inputs, targets, mg.nn.MSELoss()))

# %% [markdown]
# Hooks stop at module granularity. `mg.autograd.detect_anomaly()` goes down to single ops:
# while it is on, every op checks its outputs and every backward function the gradients it
# returns, and the first NaN/Inf raises an error naming the op. (PyTorch's
# `torch.autograd.detect_anomaly` checks the backward pass only, and adds the traceback of the
# forward call that created the failing op.) It is slow; use it to debug, not to train.

# %%
try:
    with mg.autograd.detect_anomaly(), np.errstate(invalid="ignore", divide="ignore"):
        net(inputs)
except RuntimeError as err:
    print(err)

# %% [markdown]
# Some NaNs only exist in backward. The Euclidean norm `sqrt(sum(x^2))` is fine at x = 0 in the
# forward pass (it is 0), but its derivative x / sqrt(sum(x^2)) is 0 / 0 there. The loss is
# finite, the gradient is not, and `detect_anomaly` names the backward function:

# %%
w = mg.zeros(3, requires_grad=True)
loss = w.pow(2).sum().sqrt()
print("loss:", loss.item())
try:
    with mg.autograd.detect_anomaly(), np.errstate(invalid="ignore", divide="ignore"):
        loss.backward()
except RuntimeError as err:
    print(err)

# %% [markdown]
# ## Gradient flow: a network too deep for tanh
#
# A loss that will not move, with no NaN anywhere, often means the gradient never reaches the
# first layers. Backward multiplies the gradient, layer by layer, by each layer's weights and by
# the activation's slope (tanh' <= 1). With PyTorch's default `Linear` initialisation,
# U(-1/sqrt(fan_in), 1/sqrt(fan_in)), each layer scales it by about 1/sqrt(3): over 16 layers,
# a factor of about 1/6000.
#
# `mg.diagnostics.grad_norms(model)` gives each parameter's gradient norm; kept after every
# backward, it is the history `mg.viz.plot_grad_flow` draws: per layer (input side on the left),
# the mean and the largest norm over the steps, on a log scale, with the *vanishing* and
# *exploding* regions shaded. (`python -m minigenesis train` writes this plot as
# `grad_flow.png`.)


# %%
def deep_tanh(depth=16, width=32, xavier=False):
    mg.manual_seed(0)
    layers = [mg.nn.Linear(2, width), mg.nn.Tanh()]
    for _ in range(depth - 1):
        layers += [mg.nn.Linear(width, width), mg.nn.Tanh()]
    model = mg.nn.Sequential(*layers, mg.nn.Linear(width, 3))
    if xavier:  # the fix, explained below
        for m in model:
            if isinstance(m, mg.nn.Linear):
                mg.nn.init.xavier_normal_(m.weight)
                mg.nn.init.zeros_(m.bias)
    return model


def train_recording_grads(model, steps=150, lr=0.02):
    X, y = make_spirals(600, 3, noise=0.2, seed=0)
    opt = mg.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    history, losses = [], []
    for _ in range(steps):
        idx = mg.randint(0, len(y), (64,))
        loss = mg.nn.functional.cross_entropy(model(X[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        history.append(diagnostics.grad_norms(model))  # one {name: norm} per step
        losses.append(loss.item())
        opt.step()
    return history, losses


too_deep, too_deep_losses = train_recording_grads(deep_tanh())
mg.viz.plot_grad_flow(too_deep, title="16 tanh layers, default init")

# %% [markdown]
# The bars sink from right to left: the last layer's gradient is around 1e-1, the first layer's
# around 1e-5, at the edge of the vanishing band. The first layers barely move, and the loss stays at
# log(3) = 1.10, the loss of guessing. (`mg.viz.draw_graph(loss, params=model)` would show the
# same 16 identical blocks drawn once, "x 15": the graph is fine; the numbers flowing through it
# are not.)
#
# **The fix**: initialise so that each layer keeps the gradient's scale. Xavier (Glorot)
# initialisation draws weights with variance 2 / (fan_in + fan_out), which for a square layer
# is 1/fan_in: a layer then multiplies the gradient's size by about 1 instead of 1/sqrt(3).
# (Other fixes: ReLU with Kaiming initialisation, normalisation layers, residual connections,
# or simply fewer layers.)

# %%
fixed, fixed_losses = train_recording_grads(deep_tanh(xavier=True))
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
mg.viz.plot_grad_flow(too_deep, title="default init", ax=axes[0])
mg.viz.plot_grad_flow(fixed, title="Xavier init", ax=axes[1])
plt.show()
plt.figure(figsize=(5, 3))
plt.plot(too_deep_losses, label="default init")
plt.plot(fixed_losses, label="Xavier init")
plt.xlabel("step")
plt.ylabel("train loss")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# With Xavier initialisation every layer's gradient has the same order of magnitude, and the same
# network, optimizer and learning rate now learn.
#
# ## Logging: SummaryWriter
#
# `minigenesis.utils.tensorboard.SummaryWriter` has the methods of PyTorch's
# `torch.utils.tensorboard.SummaryWriter`: `add_scalar`, `add_scalars`, `add_histogram`,
# `add_text`, `add_hparams`, `flush`, `close`. Into its `log_dir` it writes TensorBoard's event
# file (with the `tensorboardX` library, which PyTorch users know: no TensorFlow needed), plus
# `scalars.csv` and `events.jsonl`, which any spreadsheet or script can read. `tensorboard --logdir <folder>` shows the curves, if the
# `tensorboard` package is installed. (Weights & Biases is another choice; it needs an account
# and the network, so this course stays with local files.)

# %%
logdir = tempfile.TemporaryDirectory()
run_dir = Path(logdir.name) / "spirals"
with SummaryWriter(run_dir) as writer:
    writer.add_text("notes", "MLP 2-64-64-3 on spirals, Adam lr 1e-2", 0)
    for epoch, (tl, vl) in enumerate(zip(healthy["train_loss"], healthy["val_loss"])):
        writer.add_scalars("Loss", {"train": tl, "val": vl}, epoch)
        writer.add_scalar("Accuracy/val", healthy["val_acc"][epoch], epoch)
    for name, param in model.named_parameters():
        writer.add_histogram(f"Weights/{name}", param, 30)
    writer.add_hparams(
        {"lr": 1e-2, "hidden": 64},
        {"hparam/val_acc": healthy["val_acc"][-1]},
        run_name="lr1e-2_hidden64",  # the sub-run's folder (without it: the current time)
    )

for path in sorted(run_dir.rglob("*")):
    if path.is_file():  # event files end in .<time>.<host>...: one per writer, shown as *
        print(re.sub(r"tfevents\..*", "tfevents.*", path.relative_to(run_dir).as_posix()))

# %%
with open(run_dir / "scalars.csv", newline="") as f:
    rows = list(csv.DictReader(f))
print(len(rows), "scalar rows; the last three:")
for row in rows[-3:]:
    print(row)

# %% [markdown]
# The event file itself is a sequence of *TFRecords*: an 8-byte length, a masked CRC32C of the
# length, the payload (one protobuf `Event`), and a masked CRC32C of the payload (tensorboardX's
# `masked_crc32c` computes it). **Exercise 12.4**: write `read_tfrecords(path)` and look inside
# the file.

# %%
(event_file,) = run_dir.glob("events.out.tfevents.*")
records = ex.read_tfrecords(event_file)
print(len(records), "records")
for record in records[:3]:
    print(record[:60])
logdir.cleanup()

# %% [markdown]
# The first record carries the file version (`brain.Event:2`); each of the others is one event:
# a wall time, a step and a summary value with its tag. Scalars of `add_scalars` live in
# sub-folders (`Loss_train`, `Loss_val`), one run per curve, which is how TensorBoard draws
# several curves in one chart. `add_hparams` writes its row of the HPARAMS table as a run of its
# own too, in the folder `run_name` (as in PyTorch, the current time when it is not given: name
# it after the hyperparameters and the folders say which run is which).
#
# ## Summary
#
# - Record the batch loss and, per epoch, train and validation loss and accuracy; plot them
#   (`mg.viz.plot_training_curves`) and smooth noisy ones with a debiased EMA.
# - Overfitting: train down, validation up. Underfitting: both high and close. Diverging: rising
#   or NaN. `mg.diagnostics.diagnose_training` reads the curves for you.
# - Find NaNs with forward hooks (which layer), `detect_anomaly` (which op, forward or backward)
#   and `find_nan_source` (the whole recipe).
# - A loss stuck with no NaN: draw the gradient flow (`mg.viz.plot_grad_flow`). Gradients that
#   shrink towards the input vanish; an initialisation that keeps each layer's scale fixes it.
# - `SummaryWriter` writes TensorBoard event files plus CSV/JSONL, all readable offline.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 12.5**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/12_diagnostics_logging -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** The training loss keeps falling; the validation loss falls until epoch 10 and then rises.
# What is happening?
#
# - (a) underfitting: the model is too small
# - (b) convergence: both will level off
# - (c) overfitting: the model fits the training set's particulars; stop near epoch 10 or regularize
# - (d) the learning rate is too high: the run diverges
#
# **q2.** Why does exercise 12.3 look for the FIRST module whose output holds NaN or Inf?
#
# - (a) NaN spreads: every later module's output is NaN too, so only the first one shows where it
#   came from
# - (b) the first module is the only one with parameters
# - (c) the last modules never produce NaN
# - (d) forward hooks run only on the first module
#
# **q3.** Why does TensorBoard's smoothing divide its moving average by $1 - \beta^t$?
#
# - (a) to make the curve smoother at the end
# - (b) the average starts at 0, which pulls the first values towards 0; the division removes that
#   bias
# - (c) to keep the curve between 0 and 1
# - (d) to undo the log scale
