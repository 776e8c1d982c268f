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
# # Chapter 9: Mixed precision: float formats, autocast and loss scaling
#
# A float32 number takes 4 bytes. Its 16-bit cousins, **float16** (IEEE "half") and
# **bfloat16** ("brain float"), take 2: activations use half the memory and modern GPUs multiply
# them several times faster on their tensor cores. The price is fewer bits, so less *range* and
# less *precision*. Mixed-precision training takes the speed and memory where they are cheap and
# keeps float32 where the bits matter:
#
# - the weights stay float32 (the "master weights");
# - inside `mg.autocast()` the matrix multiplications run in 16 bits;
# - the losses run in float32 (and, on a GPU, sums, softmax and normalisation too);
# - with float16, the loss is multiplied by a large *scale* before backward so that small
#   gradients do not round to zero, and divided again before the optimizer step (`GradScaler`).
#
# This chapter takes each piece apart. Run the cells in order; the exercises are in
# `exercises.py`, and `pytest lessons/09_mixed_precision` checks them.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import math

import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np

import minigenesis as mg

# %% [markdown]
# ## Three formats: range and precision
#
# Chapter 1 took the bit layouts apart. A quick reminder: sign, exponent (E bits) and mantissa (M
# bits); the exponent sets the **range**, the mantissa the **precision**.
#
# | format   | E | M  | largest | smallest normal | smallest subnormal | eps = 2^-M |
# |----------|---|----|---------|-----------------|--------------------|------------|
# | float32  | 8 | 23 | 3.4e38  | 1.2e-38         | 1.4e-45            | 1.2e-7     |
# | float16  | 5 | 10 | 65504   | 6.1e-5          | 6.0e-8             | 9.8e-4     |
# | bfloat16 | 8 | 7  | 3.4e38  | 1.2e-38         | 9.2e-41            | 7.8e-3     |
#
# bfloat16 is the top half of a float32: the same exponent, a mantissa cut from 23 bits to 7.
# float16 spends its bits the other way: 3 more mantissa bits, 3 fewer exponent bits. The table
# comes straight from NumPy and `ml_dtypes`:

# %%
formats = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
finfo = {name: ml_dtypes.finfo(t) for name, t in formats.items()}
for name, f in finfo.items():
    print(
        f"{name:9s} max {float(f.max):9.3g}  smallest normal {float(f.smallest_normal):9.3g}  "
        f"smallest subnormal {float(f.smallest_subnormal):9.3g}  eps {float(f.eps):9.3g}"
    )

# %%
fig, ax = plt.subplots(figsize=(7, 2.2))
for i, f in enumerate(finfo.values()):
    lo, mid, hi = (math.log10(float(v)) for v in (f.smallest_subnormal, f.smallest_normal, f.max))
    ax.barh(i, hi - mid, left=mid, color="tab:blue")
    ax.barh(i, mid - lo, left=lo, color="tab:blue", alpha=0.35)
ax.axvspan(-10, -6, color="tab:red", alpha=0.15, label="typical small gradients")
ax.set_yticks(range(3), list(finfo))
ax.set_xlabel("log10 of |value| (pale: subnormal numbers)")
ax.set_xlim(-50, 40)
ax.legend(loc="lower right", fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Read the picture with the numbers above:
#
# - **float16** stops at 65504, and everything below about 6e-8 is zero. Gradients of 1e-8 are
#   common in deep networks: in float16 they vanish.
# - **bfloat16** has float32's range, but only 8 significant bits: eps = 1/128, so 256 + 1 rounds
#   back to 256.
#
# (NumPy may print a RuntimeWarning for the overflow in the cast: that is the point.)

# %%
print(
    "float16 : 70000 ->",
    mg.tensor([70000.0]).half().item(),
    "  1e-8 ->",
    mg.tensor([1e-8]).half().item(),
)
print(
    "bfloat16: 70000 ->",
    mg.tensor([70000.0]).bfloat16().item(),
    "  1e-8 ->",
    mg.tensor([1e-8]).bfloat16().item(),
)
print("bfloat16: 256 + 1 =", (mg.tensor([256.0], dtype=mg.bfloat16) + 1).item())

# %% [markdown]
# ## Why the weights stay float32
#
# An optimizer step adds `-lr * update` to each weight, and that update is often a thousand times
# smaller than the weight. In a 16-bit format the sum is rounded to the nearest representable
# number; if the update is less than half the gap to the next one, **it is rounded away**, every
# step, and the weight never moves.
#
# **Exercise 9.1**: write `accumulate(start, update, steps, dtype)`: add `update` to a weight
# `steps` times in `dtype`. The plot runs it for the three formats.

# %%
steps = list(range(0, 201, 10))
plt.figure(figsize=(6, 3))
for dtype in (mg.float32, mg.float16, mg.bfloat16):
    plt.plot(
        steps, [ex.accumulate(1.0, 1e-3, n, dtype) for n in steps], "o-", ms=3, label=dtype.name
    )
plt.plot(steps, [1 + 1e-3 * n for n in steps], "k:", lw=1, label="exact")
plt.xlabel("number of updates of +0.001")
plt.ylabel("weight")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# bfloat16 never leaves 1.0 (its grid step next to 1 is 2^-7 = 0.0078, so +0.001 rounds away);
# float16 moves, but by 2^-10 = 0.000977 per step instead of 0.001. This is why mixed precision
# keeps a **float32 master copy** of every weight, and why autocast casts weights per op instead
# of converting the model.

# %% [markdown]
# ## The autocast policy
#
# Casting a whole model to float16 breaks it: sums of thousands of terms lose their small terms,
# `exp` overflows, and the tiny updates `lr * grad` vanish next to large weights. `mg.autocast`
# casts **per op** instead. Each op class carries its rule (`autocast = LOWER` next to
# `MatMul`'s forward; `minigenesis/autocast_policy.py` applies them), and a rule says what to do
# **per device type**, because PyTorch, whose lists minigenesis follows, keeps one set of lists
# for the CPU and another for CUDA:
#
# - **lower precision** (both devices): `matmul`, `linear`, convolution, attention. Float32
#   inputs are cast to the low dtype. This is where the time goes, and the hardware accumulates
#   in float32 anyway.
# - **float32**, both devices: every loss (`cross_entropy`, `mse_loss` ...), `prod`, `cdist`.
#   Low-precision inputs are cast up.
# - **float32 on CUDA only**: `exp`, `log`, `pow`, `softmax`, `log_softmax`, `sum`, `logsumexp`,
#   `layer_norm` and `group_norm`: float16, with 5 exponent bits, overflows in `exp` and in long
#   sums. On the CPU they run as they come: the low dtype there is bfloat16, with float32's range,
#   and its kernels accumulate in float32 and round the result once.
# - **float32 on the CPU only**: the linear algebra of LAPACK (`inv`, `solve`, `cholesky`, `qr`,
#   `eigh`, `svd`), which has no bfloat16, and `binary_cross_entropy`.
# - **promote**: ops with several inputs (`+`, `*`, `where`, `cat`) cast them all to the widest.
#
# Every other op (`relu`, `reshape`, `mean`, `batch_norm`, indexing ...) runs in whatever dtype it
# is given, on either device. On the CPU the default low dtype is bfloat16, on a GPU float16. On
# the CPU, NumPy has no fast 16-bit matmul, so minigenesis rounds the inputs to bfloat16,
# multiplies in float32 and rounds the result: the same numbers a tensor core produces.
#
# **Exercise 9.2**: before running the next cell, predict each dtype in
# `autocast_predictions()`, under CPU autocast, with the rule that decides it on the CPU
# (`"lower"`, `"float32"`, `"promote"` or `"none"`). Reason from the rules above: the check fails
# an answer that runs the code to find out. The cell then compares your prediction with
# minigenesis.

# %%
mg.manual_seed(0)
x, w, labels = mg.randn(8, 4), mg.randn(4, 3, requires_grad=True), mg.randint(0, 3, (8,))
with mg.autocast("cpu", dtype=mg.bfloat16):
    h = x @ w
    actual = {
        "matmul": h.dtype,
        "relu": h.relu().dtype,
        "add": (h + x[:, :3]).dtype,
        "softmax": h.softmax(dim=-1).dtype,
        "sum": h.sum().dtype,
        "loss": mg.nn.functional.cross_entropy(h, labels).dtype,
    }
    loss = mg.nn.functional.cross_entropy(h, labels)
predicted = ex.autocast_predictions()
for name, dtype in actual.items():
    said, rule = predicted.get(name, (None, "?"))
    mark = "ok" if said == dtype else "WRONG"
    print(f"{name:8s} actual {dtype.name:9s} you said {said} ({rule})  {mark}")

# %% [markdown]
# The weights are float32 *master weights*: autocast only casts a copy for the matmul, and that
# cast is an ordinary differentiable op, so the gradient arrives back as float32.

# %%
loss.backward()
print("w:", w.dtype, " w.grad:", w.grad.dtype)

# %% [markdown]
# A picture of the graph shows what autocast did, op by op: each box is coloured by the dtype of
# its output. Both layers ran in bfloat16 as `AutocastLinear`, autocast's form of `Linear`: it takes
# the float32 master weights as they are and multiplies their values rounded to bfloat16 (rounded
# once per step and cached; an optimizer step, which changes a weight, makes a new copy), so no
# `Cast` box stands between a weight and its layer. The bare `x @ w` above went through a `Cast` of
# `w` instead (the data `x` needs no gradient, so its cast is not in the graph). `ReLU`, on neither
# list, ran in the bfloat16 it was given; a `Cast` takes the logits back up and the loss's ops run
# in float32. The leaves, the master weights, stay float32, and so do their gradients: the layer
# hands each weight the float32 product g^T x. PyTorch rounds that product to bfloat16 and casts it
# straight back up; keeping it as it was differs by at most half a bfloat16 step and skips two
# passes over the largest arrays of a small model's step.

# %%
mg.manual_seed(0)
mlp = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.ReLU(), mg.nn.Linear(8, 3))
with mg.autocast("cpu", dtype=mg.bfloat16):
    mlp_loss = mg.nn.functional.cross_entropy(mlp(x), labels)
mg.viz.draw_graph(mlp_loss, params=mlp, show_saved=False)

# %% [markdown]
# ## Underflow, and loss scaling
#
# In float16 the smallest positive number is 2^-24 ≈ 6e-8. A gradient of 1e-8 that flows through a
# float16 activation becomes **exactly zero**, and that weight stops learning. The fix is
# arithmetic: multiply the loss by S (say 2^16) before backward. Every gradient is then S times
# larger (the chain rule is linear), far above the underflow line. Divide them by S again, in
# float32, before the optimizer step.
#
# **Exercise 9.3** (`fp16_weight_grad`) builds the smallest case: a float32 weight, cast to
# float16, multiplied by a float16 input, a float32 loss. The plot sweeps the size of the true
# gradient and shows what arrives in `w.grad`.

# %%
print("true gradient      :", 1e-3 * 1e-5)
print("float16, no scaling:", ex.fp16_weight_grad(1e-3, 1e-5, loss_scale=1.0))
print("float16, S = 2**16 :", ex.fp16_weight_grad(1e-3, 1e-5, loss_scale=2.0**16))

# %%
true = np.logspace(-11, 1, 49)
fig, ax = plt.subplots(figsize=(6, 3))
for scale in (1.0, 2.0**16):
    got = [ex.fp16_weight_grad(1e-3, g / 1e-3, scale) for g in true]
    ratio = [v / t if math.isfinite(v) else np.nan for v, t in zip(got, true)]
    ax.semilogx(true, ratio, "o-", ms=3, label=f"loss scale {scale:g}")
ax.axvline(2.0**-24, color="gray", ls="--", lw=1)
ax.text(2.0**-24, 0.5, " float16's smallest\n subnormal", fontsize=8)
ax.set_xlabel("true gradient")
ax.set_ylabel("recovered / true")
ax.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# Without scaling, every gradient below about 6e-8 is lost, and those just above it keep only a
# few bits (the jagged part of the blue curve). With S = 2^16 they all survive. But the orange
# curve stops at 1e-3: there, the gradient flowing into the float16 activation `h` (1000 times
# the weight's gradient, since x = 1e-3), times 2^16, passes 65504 and overflows to inf. Too small
# a scale loses small gradients, too large a scale overflows, and the right value changes during
# training: that is why the scale is **dynamic**.
#
# To see why one fixed scale is hard to choose, suppose you knew the smallest and the largest
# gradient magnitude of a run. **Exercise 9.4**: `loss_scale_range(grad_min, grad_max)` returns
# the powers of two 2^k that lift `grad_min` to float16's smallest *normal* number (full
# precision) without pushing `grad_max` past 65504, and raises `ValueError` when none exists.

# %%
for low, high in [(1e-8, 1.0), (1e-6, 0.1), (1e-8, 10.0)]:
    try:
        k_low, k_high = ex.loss_scale_range(low, high)
        print(f"gradients in [{low:g}, {high:g}]: any scale from 2^{k_low} to 2^{k_high}")
    except ValueError as err:
        print(f"gradients in [{low:g}, {high:g}]: {err}")

# %% [markdown]
# float16's normal numbers span about 9 decades (6e-5 to 65504). Gradients that span more than
# that cannot all be represented at full precision, whatever the scale.
#
# ## GradScaler: dynamic loss scaling
#
# `mg.amp.GradScaler` (as `torch.amp.GradScaler`) starts at S = 2^16 and each step:
#
# 1. `scaler.scale(loss).backward()`: back-propagate S * loss;
# 2. `scaler.unscale_(optimizer)` (optional, needed before clipping): multiply every gradient by
#    1/S and check them for inf/NaN;
# 3. `scaler.step(optimizer)`: unscale if not done yet, then run `optimizer.step()` **only if**
#    every gradient is finite; otherwise skip the step, so no inf reaches the weights;
# 4. `scaler.update()`: after an overflow, S *= 0.5; after `growth_interval` (2000) clean steps
#    in a row, S *= 2.
#
# The scale settles just below the point where gradients overflow: as large as possible, so
# small gradients keep their bits. **Exercise 9.5**: write `ManualGradScaler` with those rules;
# the test runs it next to `mg.amp.GradScaler` with overflows injected at chosen steps.


# %%
def scale_history(scaler, steps=40, overflow_at=(5, 6, 25)):
    mg.manual_seed(0)
    model = mg.nn.Linear(4, 1)
    optimizer = mg.optim.SGD(model.parameters(), lr=0.05)
    history = []
    for step in range(steps):
        x = mg.randn(16, 4)
        loss = ((model(x) - x.sum(dim=1, keepdim=True)) ** 2).mean()
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        if step in overflow_at:  # pretend this backward overflowed
            model.weight.grad.fill_(math.inf)
        scaler.step(optimizer)
        scaler.update()
        history.append(scaler.get_scale())
    return history


options = dict(init_scale=2.0**10, growth_interval=5)
plt.figure(figsize=(6, 2.5))
plt.step(
    range(40),
    scale_history(mg.amp.GradScaler(**options)),
    where="post",
    lw=3,
    label="mg.amp.GradScaler",
)
plt.step(
    range(40),
    scale_history(ex.ManualGradScaler(**options)),
    where="post",
    ls="--",
    label="your ManualGradScaler",
)
plt.yscale("log", base=2)
plt.xlabel("step")
plt.ylabel("loss scale")
plt.legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## The whole loop
#
# This is the usual mixed-precision training step, in minigenesis. Clipping needs the true
# gradients, so it comes after `unscale_`; `step` then knows not to unscale twice.

# %%
mg.manual_seed(0)
model = mg.nn.Sequential(mg.nn.Linear(20, 64), mg.nn.ReLU(), mg.nn.Linear(64, 3))
optimizer = mg.optim.Adam(model.parameters(), lr=1e-2)
scaler = mg.amp.GradScaler()
criterion = mg.nn.CrossEntropyLoss()
inputs = mg.randn(256, 20)
targets = (inputs[:, 0] > 0).long() + (inputs[:, 1] > 1).long()  # a learnable rule

for step in range(60):
    optimizer.zero_grad()
    with mg.autocast("cpu", dtype=mg.bfloat16):
        logits = model(inputs)  # bfloat16
        loss = criterion(logits, targets)  # float32
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
    scaler.step(optimizer)
    scaler.update()
    if step % 20 == 0 or step == 59:
        print(
            f"step {step:2d}  loss {loss.item():.3f}  logits {logits.dtype}  "
            f"weight grad {model[0].weight.grad.dtype}  scale {scaler.get_scale():g}"
        )

# %% [markdown]
# With **bfloat16** (the CPU default), gradients cannot underflow the way they do in float16:
# bfloat16 has float32's exponent. Loss scaling is then not needed; PyTorch users typically drop
# `GradScaler` for bf16, and keeping it, as above, is harmless. With **float16** on a GPU it is
# essential.
#
# ## Summary
#
# - float32 / float16 / bfloat16 = 1 / 5 / 8 exponent bits and 23 / 10 / 7 mantissa bits. The
#   exponent sets the range, the mantissa the precision.
# - float16 overflows above 65504 and flushes gradients below ~6e-8 to zero; bfloat16 has
#   float32's range but only ~2-3 significant decimal digits.
# - autocast casts per op, by rules per device type (PyTorch's CPU and CUDA lists): matmuls low,
#   losses float32, and on CUDA also exp/sums/softmax/norms; on the CPU LAPACK's linear algebra
#   float32; mixed inputs promoted; weights and their gradients stay float32.
# - GradScaler multiplies the loss by S, unscales the gradients, skips steps with inf/NaN, halves
#   S on overflow and doubles it after a run of clean steps.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 9.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/09_mixed_precision -k self_check`:
# each wrong answer gets a hint that points back into the lesson.
#
# **q1.** What do `mg.tensor([70000.0]).half()` and `mg.tensor([70000.0]).bfloat16()` hold?
#
# - (a) `inf` and `70144`
# - (b) `70000` and `inf`
# - (c) `inf` and `inf`
# - (d) `65504` and `70000`
#
# **q2.** Spot the bug:
#
# ```python
# scaler.scale(loss).backward()
# mg.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
# scaler.step(optimizer)
# scaler.update()
# ```
#
# - (a) `scaler.step` skips every step after a clip
# - (b) `clip_grad_norm_` raises on float16 gradients
# - (c) it clips the SCALED gradients: their norm is the scale (e.g. 65536) times the true one, so
#   every step is cut down to about 1/65536 of the intended clip
# - (d) nothing: clipping works on any gradients
#
# **q3.** GradScaler finds an `inf` in a gradient. Why does it skip that optimizer step instead of
# clipping the gradient and stepping?
#
# - (a) an inf gradient means the model diverged, so training must stop
# - (b) clipping a gradient that holds inf gives NaN everywhere
# - (c) optimizers cannot take steps in float16
# - (d) the inf says the scale was too large for this step: the true gradient is unknown, so the
#   step is dropped and the scale halved
#
# **q4.** Why is a matmul on CUDA autocast's low-precision list while softmax and the loss are on
# its float32 list?
#
# - (a) softmax cannot be written for bfloat16 tensors
# - (b) a matmul is where the time goes and accumulates in float32 anyway; exp, log and long sums
#   lose too much with 8 bits of precision
# - (c) the loss must be float32 because labels are integers
# - (d) matmuls never overflow, whatever the dtype
