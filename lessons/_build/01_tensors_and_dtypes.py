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
# # Chapter 1: Tensors, dtypes and the array backend
#
# A minigenesis `Tensor` is three things:
#
# 1. an **array** that holds the numbers (a NumPy array on the CPU, a CuPy array on a GPU),
# 2. a **dtype** that says how each number is stored (`float32`, `bfloat16`, `int64`, ...),
# 3. the bookkeeping for automatic differentiation (`requires_grad`, `grad`, `grad_fn`), which is
#    chapter 2's subject.
#
# This chapter looks at the first two: how a floating-point number is laid out in bits (and why
# deep learning cares about three different 16/32-bit layouts), how an array is laid out in memory,
# and how one code path serves both NumPy and CuPy.
#
# Exercises for this chapter are in `exercises.py`, next to this notebook (a copy of
# `exercises_template.py`, made the first time the notebook or the checks run); check them from
# the repository's folder with `python -m pytest lessons/01_tensors_and_dtypes`.

# %%
import sys

sys.path.insert(0, "..")  # lessons/, where the course helper lives
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (solutions.py when MINIGENESIS_SOLUTIONS=1)

import inspect

import matplotlib.pyplot as plt
import ml_dtypes
import numpy as np

import minigenesis as mg

# %% [markdown]
# ## Making tensors
#
# The creation functions follow PyTorch: the same names, arguments and dtype rules. A list of
# Python ints becomes `int64`, a list with a float becomes the default float dtype (`float32`).

# %%
a = mg.tensor([1, 2, 3])
b = mg.tensor([1.0, 2.0, 3.0])
c = mg.zeros(2, 3, dtype=mg.float16)
r = mg.randn(2, 3)
for t in (a, b, c, r):
    print(t.dtype, t.shape, t.device)

# %% [markdown]
# `mg.randn` draws from a random generator. As in PyTorch, each new Python process starts that
# generator from a fresh seed (`mg.initial_seed()` tells which), so running this notebook twice
# prints different `r`. That variation is worth seeing: a result that changes from run to run
# (a loss, an accuracy) is only meaningful next to its spread over seeds. To repeat a run exactly
# (to debug it, or to compare two changes on the same draws), fix the seed first:
# `mg.manual_seed(0)` makes every draw after it the same on every run.

# %%
print("this process started from seed", mg.initial_seed())
mg.manual_seed(0)
first = mg.randn(3)
mg.manual_seed(0)
print(first, mg.randn(3))  # the same numbers: the same seed, the same draws

# %% [markdown]
# Under the hood the numbers live in an ordinary array, `t._data` (an internal attribute: fine to
# look at while learning). Which array library owns it decides the device:

# %%
print(type(b._data), b._data.dtype)
print(inspect.getsource(mg.backend.get_array_module))

# %% [markdown]
# ## Mixing dtypes: type promotion
#
# `int64 + float32` cannot stay integer. PyTorch's rule: the higher *category* wins (bool <
# integer < floating), then the wider type. A Python scalar only changes the category, so a
# `float16` tensor times `2.5` stays `float16`. Two quirks: `float16` with `bfloat16` gives
# `float32`, and `uint8` with `int8` gives `int16`, because neither holds all of the other's values.

# %%
print((mg.tensor([1, 2]) * 2.5).dtype)  # int tensor, float scalar -> default float
print((mg.ones(2, dtype=mg.float16) * 2.5).dtype)  # the tensor's dtype wins over a scalar
print(mg.promote_types(mg.float16, mg.bfloat16))
print(mg.promote_types(mg.uint8, mg.int8))

# %% [markdown]
# Exercise 1.6 asks you to write that table yourself; the checks compare it with
# `mg.promote_types` for all 100 pairs. Here is the real one:

# %%
print(inspect.getsource(mg.dtypes.promote_types))

# %% [markdown]
# ## Three floating-point layouts
#
# A binary float is `[sign][exponent][mantissa]`. Its value (for a normal number) is
#
# $$(-1)^{s} \cdot 2^{e - \text{bias}} \cdot (1 + m / 2^{M}),\qquad \text{bias} = 2^{E-1} - 1$$
#
# | format | sign | exponent E | mantissa M | largest | eps (gap after 1.0) |
# |---|---|---|---|---|---|
# | float32 | 1 | 8 | 23 | 3.4e38 | 1.2e-7 |
# | float16 | 1 | 5 | 10 | 65504 | 9.8e-4 |
# | bfloat16 | 1 | 8 | 7 | 3.4e38 | 7.8e-3 |
#
# float16 spends its bits on precision and gets a tiny range; bfloat16 keeps float32's exponent
# (same range: it is just the top half of a float32) and has little precision. That is the whole
# story of mixed precision (chapter 9): float16 needs loss scaling to keep small gradients from
# flushing to zero; bfloat16 does not, but rounds more coarsely.
#
# Let us look at the bits of 0.1. NumPy's `view` reinterprets the same bytes as an integer.


# %%
def bit_string(value: float, fmt: str) -> str:
    float_type, uint_type, width = {
        "float32": (np.float32, np.uint32, 32),
        "float16": (np.float16, np.uint16, 16),
        "bfloat16": (ml_dtypes.bfloat16, np.uint16, 16),
    }[fmt]
    bits = int(np.array(value, dtype=float_type).view(uint_type))
    s = format(bits, f"0{width}b")
    e_bits, _ = ex.FORMATS[fmt]
    return f"{s[0]} {s[1 : 1 + e_bits]} {s[1 + e_bits :]}", bits


for fmt in ("float32", "float16", "bfloat16"):
    text, bits = bit_string(0.1, fmt)
    print(f"{fmt:>8}: {text}")

# %% [markdown]
# Your `float_fields` (exercise 1.1) splits such a pattern into integers and `decode`
# (exercise 1.2) turns them back into a value. Run this cell once both are done:

# %%
for fmt in ("float32", "float16", "bfloat16"):
    _, bits = bit_string(0.1, fmt)
    fields = ex.float_fields(bits, fmt)
    print(f"{fmt:>8}: fields {fields} -> {ex.decode(*fields, fmt)!r}")

# %% [markdown]
# None of the three stores 0.1 exactly. How far off each one is:

# %%
for fmt, dtype in (
    ("float32", np.float32),
    ("float16", np.float16),
    ("bfloat16", ml_dtypes.bfloat16),
):
    stored = float(np.array(0.1, dtype=dtype).astype(np.float64))
    print(f"{fmt:>8}: {stored!r:<22} off by {abs(stored - 0.1) / 0.1:.1e} (relative)")
bf16 = float(np.array(0.1, dtype=ml_dtypes.bfloat16).astype(np.float64))
assert 5e-4 < abs(bf16 - 0.1) / 0.1 < 2e-3  # the "about 0.1%" below

# %% [markdown]
# bfloat16's 0.10009765625 is off by about 0.1%: its 8 significant bits hold between 2 and 3
# decimal digits, float16's 11 bits about 3, float32's 24 bits about 7.
#
# ## Range and precision, side by side
#
# The gap between neighbouring representable numbers grows with their size: it is
# `eps * 2**floor(log2(|x|))`. Same relative precision everywhere, until the range runs out.

# %%
x = np.logspace(-8, 5, 400)
fig, ax = plt.subplots(figsize=(6, 3.2))
for fmt, color in (("float32", "C0"), ("float16", "C1"), ("bfloat16", "C2")):
    e_bits, m_bits = ex.FORMATS[fmt]
    bias = 2 ** (e_bits - 1) - 1
    gap = 2.0 ** (np.maximum(np.floor(np.log2(x)), 1 - bias) - m_bits)
    largest = (2 - 2.0**-m_bits) * 2.0**bias
    ax.loglog(x[x <= largest], gap[x <= largest], color=color, label=fmt)
ax.axvline(65504, color="C1", ls=":", lw=1)
ax.set_xlabel("|x|")
ax.set_ylabel("gap to the next number")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# float16's curve stops at 65504 (dotted line) and flattens below 6e-5, where subnormals keep
# a fixed gap. What that means in practice:

# %%
with np.errstate(over="ignore"):  # NumPy warns about the overflow; PyTorch just returns inf
    print(mg.tensor([70000.0]).half())  # overflow: inf
print(mg.tensor([1e-8]).half())  # underflow: 0
print(mg.tensor([70000.0]).bfloat16())  # fine (70144: the nearest bfloat16), but...
print(mg.tensor([1.0 + 1 / 512]).bfloat16())  # 1 + 2**-9 is below bfloat16's resolution

# %% [markdown]
# Exercise 1.4 computes `max`, `tiny` (smallest normal) and `eps` from E and M alone; the checks
# compare with `np.finfo`.
#
# ## Rounding to bfloat16
#
# Converting float32 to bfloat16 means dropping the low 16 bits, with **round to nearest, ties to
# even**: plain truncation would bias every value towards zero, and over millions of updates that
# bias adds up. Exercise 1.3 does it with integer arithmetic on the bits. Compare with minigenesis's
# cast (which uses `ml_dtypes`):

# %%
v = np.array([1.0 + 2**-8, 1.0 + 3 * 2**-8, 3.14159, -2.71828], dtype=np.float32)
print("yours      :", ex.round_to_bfloat16(v))
print("minigenesis:", mg.tensor(v).bfloat16().float().numpy())
print("truncated  :", (v.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32))

# %% [markdown]
# The first two values are exact ties: `1 + 2**-8` rounds down to 1.0 (even), `1 + 3*2**-8` rounds
# up to `1 + 2**-6`.
#
# ## Memory layout: shape and strides
#
# An array is a flat block of bytes plus a *shape* and *strides*: the number of bytes to step to
# reach the next element along each axis. NumPy reports strides in bytes; PyTorch's
# `Tensor.stride()` counts elements, the same idea. A transpose swaps the strides and copies
# nothing: it is a *view* of the same memory, no longer C-contiguous.

# %%
m = mg.arange(12.0).reshape(3, 4)
t = m.T
print("shape", m.shape, "strides", m._data.strides)
print("shape", t.shape, "strides", t._data.strides)
print("shares memory:", np.shares_memory(m._data, t._data))
for name, arr in (("m", m), ("m.T", t), ("m.T.contiguous()", t.contiguous())):
    print(f"{name} is C-contiguous: {arr._data.flags['C_CONTIGUOUS']}")
print("exercise 1.5:", ex.contiguous_strides((3, 4), 4))

# %% [markdown]
# ## One code path for CPU and GPU
#
# minigenesis's ops never call `np.exp` on tensor data directly. Each op asks the backend which
# module owns the array and uses that, so the same line runs NumPy on the CPU and CuPy on a GPU.
# (The speed layer, `minigenesis/kernels/`, adds a few fast paths written for one device, each
# taken only for an array of its kind; the op's portable line stays the reference.)


# %%
def stable_softmax(x):
    xp = mg.get_array_module(x)  # numpy or cupy, whichever owns x
    z = x - x.max(axis=-1, keepdims=True)  # subtracting the max avoids overflow in exp
    e = xp.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


logits = np.array([[1.0, 2.0, 3.0], [1000.0, 1000.0, 1000.0]], dtype=np.float32)
print(stable_softmax(logits))
print(mg.softmax(mg.tensor(logits), dim=-1))
print("CUDA available:", mg.cuda.is_available())
if mg.cuda.is_available():
    print(stable_softmax(mg.tensor(logits, device="cuda")._data))

# %% [markdown]
# Moving a tensor is `t.to("cuda")` / `t.cpu()`; asking for CUDA without CuPy or a GPU raises an
# error that says which is missing.
#
# ## Summary
#
# - A tensor is an array + dtype (+ autograd bookkeeping); its device is the array's library.
# - float32, float16 and bfloat16 trade exponent bits (range) for mantissa bits (precision).
# - Casting rounds to nearest-even; overflow gives inf, underflow gives 0 (or a subnormal).
# - Shape + strides describe memory; transposes and reshapes are often free views.
#
# Next: chapter 2 builds automatic differentiation from scratch.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 1.7**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/01_tensors_and_dtypes -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** What is the dtype of `mg.tensor([1, 2]) + 2.5`?
#
# - (a) `float32`: a Python float only says 'floating point'; the result takes the default float
#   dtype
# - (b) an error: int and float tensors cannot be added
# - (c) `int64`: the tensor's dtype wins over a scalar
# - (d) `float64`: a Python float is a double
#
# **q2.** What does `mg.tensor(1.0) + 1e-8 == 1.0` give in float32?
#
# - (a) `False`: float32 holds values down to about 1e-38
# - (b) `True`: float32's spacing next to 1.0 is $2^{-23} \approx 1.2 \times 10^{-7}$, so 1e-8
#   rounds away
# - (c) `False`: 1e-8 is stored exactly as a float32
# - (d) an error: the values are of different dtypes
#
# **q3.** `x = mg.zeros(2, 3)` (float32, contiguous). What are the byte strides of `x.t()`
# (`x.t()._data.strides`), and was the data copied?
#
# - (a) `(12, 4)`, a copy laid out for the new shape
# - (b) `(4, 8)`, a copy
# - (c) `(1, 3)`, no copy
# - (d) `(4, 12)`, no copy: the transpose swaps the strides of the same memory
#
# **q4.** Rounding float32 to bfloat16 by dropping the low 16 bits (truncation) instead of rounding
# to nearest even: what goes wrong?
#
# - (a) every value moves towards zero, so sums of many rounded values drift in one direction
# - (b) nothing: the two always give the same bfloat16
# - (c) large values overflow to inf
# - (d) NaN becomes a normal number
