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
# # Chapter 11: Memory, and gradient checkpointing
#
# Where does the memory of a training step go? Four places:
#
# | what | size | when |
# |---|---|---|
# | weights | P numbers | always |
# | gradients | P numbers | from the first backward on |
# | optimizer state | 0 (SGD), P (momentum), 2P (Adam: two moments) | from the first step on |
# | **activations** | ~ batch x width x depth | from forward until backward has used them |
#
# The first three depend on the model only. The activations grow with the batch size *and* the
# depth, and for large batches or long sequences they dominate. Backward needs them: a Linear
# layer keeps its input (to compute the weight gradient x^T g), a tanh keeps its output
# (d tanh = 1 - tanh^2). **Gradient checkpointing** keeps only a few of them and recomputes the
# rest during backward: less memory for one extra forward pass.
#
# In this chapter you measure all of this with `tracemalloc`, write the segment arithmetic, and
# rebuild `checkpoint_sequential` from `checkpoint`.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import math
import time
import tracemalloc

import matplotlib.pyplot as plt
import numpy as np

import minigenesis as mg

MB = 2**20

# %% [markdown]
# ## Measuring memory with tracemalloc
#
# `tracemalloc` (standard library) records every allocation made through Python's allocators.
# NumPy reports its array buffers to it too, so on the CPU it sees every tensor minigenesis
# creates. `tracemalloc.get_traced_memory()` returns `(current, peak)` in bytes, and
# `tracemalloc.reset_peak()` starts a new peak. (On a GPU, CuPy's memory pool is measured with
# `mg.cuda.max_memory_allocated()` instead.)
#
# **Exercise 11.1**: write `peak_bytes(fn, *args)`: run `fn`, return its result and the peak
# memory it used above what was already allocated when it started.

# %%
_, peak = ex.peak_bytes(lambda: np.ones(1_000_000).sum())  # 1e6 float64 = 8 MB
print(f"np.ones(1_000_000): peak {peak / MB:.2f} MiB (8e6 bytes = {8e6 / MB:.2f} MiB)")

# %% [markdown]
# ## Activations grow with depth
#
# A stack of `Linear(64, 64) + Tanh` blocks on a batch of 2048. Each block's output is
# 2048 x 64 float32 = 0.5 MiB, while its weights are only 64 x 64 x 4 bytes = 16 KiB: this model is
# all activations. The cell measures how much memory is still allocated after the forward
# pass (what the graph keeps for backward) and the peak of forward + backward.


# %%
def mlp(depth, width=64):
    mg.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [mg.nn.Linear(width, width), mg.nn.Tanh()]
    return mg.nn.Sequential(*layers)


def measure(model, x, segments=None):
    """(bytes kept after forward, peak bytes of forward + backward), both above the start."""
    model.zero_grad()
    tracemalloc.start()
    try:
        if segments is None:
            out = model(x)
        else:
            out = mg.utils.checkpoint_sequential(model, segments, x)
        kept = tracemalloc.get_traced_memory()[0]
        out.sum().backward()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return kept, peak


x = mg.randn(2048, 64)
depths = [2, 4, 8, 16]
results = [measure(mlp(d), x) for d in depths]
plt.figure(figsize=(5, 3))
plt.plot(depths, [k / MB for k, _ in results], "o-", label="kept after forward")
plt.plot(depths, [p / MB for _, p in results], "s-", label="peak, forward + backward")
plt.xlabel("number of Linear + Tanh blocks")
plt.ylabel("MiB")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Straight lines: every block keeps exactly one 0.5 MiB array, the Tanh output, which is both
# what Tanh's backward needs (1 - tanh^2) and the next Linear's saved input. The Linear's own
# output is needed by no backward, so it is freed at once. Double the depth, double the memory;
# the peak adds the temporaries of backward on top.
#
# ## Checkpointing: keep less, recompute in backward
#
# `mg.utils.checkpoint(function, *args)` (PyTorch: `torch.utils.checkpoint.checkpoint`) runs
# `function` and records its graph as usual, but **without the arrays** its ops save for
# backward: inside, every saved value goes through a *pack* hook that keeps only its number
# (`mg.autograd.graph.saved_tensors_hooks`), so the arrays are freed as forward moves on, and
# only `function`'s inputs are kept. When backward first asks for one of those values (the
# *unpack* hook), `function` runs again on the same inputs and the values of that rerun are
# handed out in the same order, each once, so they are freed again as backward passes them. The
# random state is saved and restored around the rerun (`preserve_rng_state=True`), so a Dropout
# inside draws the same mask twice.
#
# (`use_reentrant=True` selects PyTorch's older design: one graph node for the whole call, whose
# backward reruns `function` and calls backward again on that fresh graph. It holds the gradient
# arriving at the node through that inner backward: one activation more at the peak.)
#
# `checkpoint_sequential(model, segments, x)` cuts a sequence of `n` layers into segments: the
# first `segments - 1`, of `n // segments` layers each, are checkpointed; the last one runs
# normally, since backward needs its activations right away. At the peak, the step holds the
# inputs of the checkpointed segments plus one segment's activations.
#
# A picture of the graph shows the split. Four blocks in two segments: the ops of the first
# segment are outlined in red, "recomputed in backward (segment 1)", and what they saved is listed
# as "recomputed": the graph holds their numbers, not their arrays. The second segment's ops keep
# their arrays as usual. The footer adds up both kinds.

# %%
small = mlp(4, width=8)
out = mg.utils.checkpoint_sequential(small, 2, mg.randn(16, 8)).sum()
mg.viz.draw_graph(out, params=small)

# %% [markdown]
# **Exercise 11.2**: count those stored activations (`stored_activations`) and find the number
# of segments that minimises them (`best_segments`). For `n` layers the answer is near sqrt(n):
# memory O(sqrt(n)) instead of O(n), for one extra forward pass.

# %%
n = 16
segment_counts = list(range(1, n + 1))
plt.figure(figsize=(5, 3))
plt.plot(segment_counts, [ex.stored_activations(n, s) for s in segment_counts], "o-")
best = ex.best_segments(n)
plt.axvline(best, color="r", ls="--", label=f"best_segments({n}) = {best}")
plt.xlabel("segments")
plt.ylabel("stored layer outputs at the peak")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# The curve is jagged because of the split: with 9 segments or more, `16 // segments` is 1 and
# the last, non-checkpointed segment holds all the remaining layers.
#
# **Exercise 11.3**: rebuild `checkpoint_sequential` from `checkpoint`: `checkpointed_forward
# (blocks, x, segments)`. The outputs and gradients must equal plain backprop's (up to float
# rounding: the recompute runs the same operations).

# %%
model = mlp(8)
x_small = mg.randn(32, 64, requires_grad=True)
model(x_small).pow(2).sum().backward()
plain = [p.grad.numpy().copy() for p in model.parameters()] + [x_small.grad.numpy().copy()]

model.zero_grad()
x_small.grad = None
ex.checkpointed_forward(list(model), x_small, segments=3).pow(2).sum().backward()
mine = [p.grad.numpy() for p in model.parameters()] + [x_small.grad.numpy()]
print("largest gradient difference:", max(float(np.abs(a - b).max()) for a, b in zip(plain, mine)))

# %% [markdown]
# ## Measured: memory against time
#
# **Exercise 11.4**: `training_step_peak(model, x, segments)` measures one forward + backward,
# plain (`segments=None`) or through `checkpoint_sequential`. The cell sweeps the number of
# segments for 16 blocks. For the cost it counts the layer forwards with a forward hook (exact:
# each checkpointed layer runs twice) and times each variant (wall clock, the fastest of
# several runs; short steps on a busy machine are noisy).

# %%
model = mlp(16)
x = mg.randn(1024, 64)
forward_calls = [0]


def count_forward(module, inputs, output):
    forward_calls[0] += 1


for layer in model:
    layer.register_forward_hook(count_forward)


def step_cost(segments, repeats=9):
    """(layer forwards per step, fastest wall-clock time of ``repeats`` steps)."""
    best = math.inf
    for _ in range(repeats):
        model.zero_grad()
        forward_calls[0] = 0
        start = time.perf_counter()
        out = model(x) if segments is None else mg.utils.checkpoint_sequential(model, segments, x)
        out.sum().backward()
        best = min(best, time.perf_counter() - start)
    return forward_calls[0], best


plain_peak = ex.training_step_peak(model, x, None)
plain_calls, plain_time = step_cost(None)
print(f"{'segments':>9} {'peak MiB':>9} {'vs plain':>9} {'forwards':>9} {'time vs plain':>14}")
for s in [None, 2, 4, 8]:
    peak = ex.training_step_peak(model, x, s)
    calls, seconds = step_cost(s)
    print(
        f"{str(s or 'plain'):>9} {peak / MB:9.2f} {peak / plain_peak:9.2f} {calls:9d} "
        f"{seconds / plain_time:14.2f}"
    )

# %% [markdown]
# With 4 segments the step needs roughly half the memory of plain backprop. The price is the
# recomputation: the 32 layers (16 Linear + 16 Tanh) form 4 segments of 8, and the first three
# segments run forward twice, 56 layer forwards instead of 32. A forward is roughly a third of a
# training step, so on a quiet machine expect about 1.25x the time. Too many segments bring the
# memory back up, since every segment input is kept.
#
# The same trade is what lets large language models train with long sequences: checkpoint every
# transformer block, keep only the residual stream between blocks.
#
# ## A common pattern: a checkpointed module
#
# A common pattern wraps a list of layers and checkpoints the whole run through them while training.
# Passing the `ModuleList` as an argument lets `checkpoint` find its parameters, even though the
# input batch itself does not require a gradient.


# %%
class CheckpointedModule(mg.nn.Module):
    """A module that supports gradient checkpointing."""

    def __init__(self, layers):
        super().__init__()
        self.layers = mg.nn.ModuleList(layers)
        self.checkpoint = True

    def forward(self, x):
        def run_layers(x, layers):
            for layer in layers:
                x = layer(x)
            return x

        if self.training and self.checkpoint:
            return mg.utils.checkpoint(run_layers, x, self.layers)
        return run_layers(x, self.layers)


mg.manual_seed(0)
layers = [mg.nn.Linear(64, 64), mg.nn.ReLU(), mg.nn.Dropout(0.1), mg.nn.Linear(64, 10)]
net = CheckpointedModule(layers)
data, targets = mg.randn(32, 64), mg.randint(0, 10, (32,))

mg.manual_seed(1)
mg.nn.CrossEntropyLoss()(net(data), targets).backward()
with_ckpt = net.layers[0].weight.grad.numpy().copy()

net.zero_grad()
net.checkpoint = False
mg.manual_seed(1)  # the same dropout mask
mg.nn.CrossEntropyLoss()(net(data), targets).backward()
print(
    "same gradients with and without checkpointing (dropout included):",
    np.allclose(with_ckpt, net.layers[0].weight.grad.numpy(), rtol=1e-5, atol=1e-7),
)

# %% [markdown]
# ## Summary
#
# - Training memory = weights + gradients + optimizer state + activations; the activations grow
#   with batch size and depth and are kept from forward until backward uses them.
# - `tracemalloc` measures CPU memory, NumPy buffers included; `get_traced_memory()` gives the
#   current and peak bytes.
# - `checkpoint(f, x)` keeps only `f`'s inputs and recomputes the inside during backward, with
#   the same random numbers; `checkpoint_sequential` does it segment by segment, and about
#   sqrt(n) segments minimise memory for one extra forward pass.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 11.5**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/11_memory_checkpointing -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** Why does the memory of a training step grow with the network's depth, while inference does
# not?
#
# - (a) backward needs the activations each layer saved, so all of them stay alive until the
#   backward pass reaches their layer
# - (b) each layer copies the weights of the layers before it
# - (c) the gradients take more memory than the weights
# - (d) the optimizer keeps every layer's output
#
# **q2.** A 100-layer network is checkpointed in 10 segments. What does it cost, and what does it
# save?
#
# - (a) ten extra forward passes; it keeps 10 layers' activations
# - (b) about one extra forward pass of compute; it keeps about 10 segment inputs plus one segment's
#   activations instead of all 100 layers'
# - (c) nothing extra: the recomputation is free
# - (d) one extra backward pass; it keeps no activations
#
# **q3.** A checkpointed segment contains dropout. What must the recomputation in backward do to
# stay correct?
#
# - (a) switch the model to eval mode
# - (b) draw a fresh mask, since masks are independent
# - (c) nothing: dropout has no gradient
# - (d) restore the random generator's state of the forward, so that it draws the same mask
