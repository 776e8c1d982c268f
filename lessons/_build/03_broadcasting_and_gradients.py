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
# # Chapter 3: Broadcasting and the gradients of ops
#
# Chapter 2's engine only handled arrays of the same shape. Real code adds a bias of shape
# `(out,)` to activations of shape `(batch, out)`, multiplies a `(3, 1)` column by a `(1, 4)` row,
# and so on: **broadcasting**. This chapter covers the rule, what it means for gradients (they
# must be *summed back*), how to derive an op's backward formula, and how to test one with finite
# differences.
#
# Exercises: `exercises.py` (3.1-3.6, the last one the self-check at the end). Check them with
# `python -m pytest lessons/03_broadcasting_and_gradients`.

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

# %% [markdown]
# ## The rule
#
# NumPy and PyTorch share one rule. Line the shapes up **on the right**; a missing dimension
# counts as 1. In each position the sizes must be equal, or one of them 1, which is then
# stretched (without copying) to the other size.
#
# ```
#   x:      (5, 1, 4)
#   y:         (3, 1)
#   x + y:  (5, 3, 4)
# ```
#
# Exercise 3.1 implements it, with an error message that names the shapes.

# %%
for a, b in [((2, 3), (3,)), ((3, 1), (1, 4)), ((5, 1, 4), (3, 1))]:
    print(a, "+", b, "->", ex.broadcast_shape(a, b), "| numpy:", np.broadcast_shapes(a, b))
try:
    ex.broadcast_shape((2, 3), (4,))
except ValueError as err:
    print("ValueError:", err)

# %%
col = mg.arange(3.0).reshape(3, 1)
row = mg.arange(4.0).reshape(1, 4)
print(col * row)  # an outer product without writing a loop

# %% [markdown]
# ## Broadcasting in the backward pass
#
# If `b` of shape `(4,)` is added to every row of `h` of shape `(8, 4)`, each element of `b` is
# used 8 times. Chapter 2's rule, "gradients of a value used several times add up", says that
# `b.grad` is the upstream gradient **summed over the rows**. In general: sum over the dimensions
# broadcasting added on the left, and over the dimensions where the input had size 1.
#
# That is `sum_to` (exercise 3.2). In minigenesis no op deals with broadcasting in its backward:
# the engine calls it once, for every gradient, in one place. Here is the array version:

# %%
print(inspect.getsource(mg.ops.shape.sum_to_shape_array))

# %%
h = mg.randn(8, 4)
b = mg.zeros(4, requires_grad=True)
(h + b).sum().backward()
print("b.grad:", b.grad)  # each element was used 8 times: 8 ones summed

g = np.arange(24.0).reshape(2, 3, 4)
print("yours:", ex.sum_to(g, (3, 1)).ravel(), "| by hand:", g.sum(axis=(0, 2)))

# %% [markdown]
# In a picture of the graph, that summing is a box of its own: `mg.viz.draw_graph` puts a dashed
# `sum_to` box on every edge where the engine sums a broadcast gradient back. `h` already has the
# output's shape `(8, 4)`, so its edge has none; `b`'s edge sums `(8, 4)` back to `(4,)`:

# %%
h = mg.randn(8, 4, requires_grad=True)
b = mg.zeros(4, requires_grad=True)
mg.viz.draw_graph((h + b).sum(), params={"h": h, "b": b})

# %% [markdown]
# An outer product broadcasts **both** inputs, each along a different axis, so both edges get a
# `sum_to`: the column's gradient is summed over the 4 columns, the row's over the 3 rows.

# %%
col = mg.arange(3.0).reshape(3, 1).requires_grad_()
row = mg.arange(4.0).reshape(1, 4).requires_grad_()
outer = (col * row).sum()
outer.backward()
print("col.grad:", col.grad.flatten(), "= sum of row:", row.detach().sum().item())
mg.viz.draw_graph(outer, params={"col": col, "row": row})

# %% [markdown]
# ## Deriving a backward formula: let the shapes guide you
#
# For `y = x @ w.T + b` (PyTorch's `Linear`, with `w` of shape `(out, in)`), and `g = dL/dy` of
# shape `(N, out)`:
#
# - `dL/dx` must have `x`'s shape `(N, in)`: the only product of `g` and `w` with that shape is
#   `g @ w`;
# - `dL/dw` must be `(out, in)`: `g.T @ x`;
# - `dL/db` must be `(out,)`: `b` was broadcast over `N` rows, so `sum_to(g, (out,))`.
#
# The shapes nearly force the answer; writing out one element, $\partial L / \partial w_{ij} =
# \sum_n g_{ni} x_{nj}$, confirms it. Exercise 3.4 codes it; compare with minigenesis:

# %%
rng = np.random.default_rng(0)
x, w, bias = rng.standard_normal((5, 3)), rng.standard_normal((2, 3)), rng.standard_normal(2)
gy = rng.standard_normal((5, 2))
tx, tw, tb = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (x, w, bias))
(tx @ tw.T + tb).backward(mg.tensor(gy, dtype=mg.float64))
for name, mine, t in zip(("x", "w", "b"), ex.linear_backward(x, w, bias, gy), (tx, tw, tb)):
    print(f"d/d{name}: max |yours - minigenesis| = {np.abs(mine - t.grad.numpy()).max():.1e}")

# %% [markdown]
# ## Vector-Jacobian products: never build the Jacobian
#
# Softmax maps a vector to a vector; its Jacobian is $\partial y_i / \partial x_j =
# y_i(\delta_{ij} - y_j)$, an $n \times n$ matrix. Backward needs only $g^\top J$, which
# simplifies to $y \odot (g - \langle g, y \rangle)$: $O(n)$ work instead of $O(n^2)$. Every
# backward is such a vector-Jacobian product. minigenesis's `Softmax` op:

# %%
print(inspect.getsource(mg.ops.activation.Softmax))

# %%
xv = rng.standard_normal(5)
yv = np.exp(xv) / np.exp(xv).sum()
jacobian = np.diag(yv) - np.outer(yv, yv)
gv = rng.standard_normal(5)
print("g^T J       :", gv @ jacobian)
print("exercise 3.5:", ex.softmax_backward(yv, gv))

# %% [markdown]
# ## Checking gradients with finite differences
#
# A backward formula can be wrong in ways that still train, badly. The test: nudge one input
# element by $\pm\epsilon$ and compare $(f(x+\epsilon) - f(x-\epsilon)) / 2\epsilon$ with the
# analytical gradient (exercise 3.3). The error of this estimate has two parts: the truncation
# error of the formula, $O(\epsilon^2)$, and rounding error, about $\text{eps}_{\text{machine}}
# \cdot |f| / \epsilon$. Too small an $\epsilon$ is as bad as too large, and in float32 no
# $\epsilon$ is good: that is why `gradcheck` works in float64.


# %%
x0 = np.array([0.7, -1.3, 2.1])
exact = np.cos(x0) * x0 + np.sin(x0)
epsilons = np.logspace(-12, -1, 23)
errors = {}
for dtype in (np.float64, np.float32):
    errs = []
    for eps in epsilons:

        def f(v, dtype=dtype):
            return float(np.sum(np.sin(v.astype(dtype)) * v.astype(dtype), dtype=dtype))

        errs.append(np.abs(ex.numerical_grad(f, x0, eps) - exact).max())
    errors[dtype.__name__] = errs

fig, ax = plt.subplots(figsize=(6, 3.2))
for name, errs in errors.items():
    ax.loglog(epsilons, errs, "o-", ms=3, label=name)
ax.set_xlabel("eps")
ax.set_ylabel("max error of the estimate")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# In float64 the sweet spot is around $\epsilon = 10^{-5}$ to $10^{-6}$ with errors near
# $10^{-10}$. In float32 the best is about $10^{-4}$, at a large $\epsilon \approx 10^{-2}$, and
# the usual $\epsilon = 10^{-6}$ gives errors of order 0.1: useless for catching a subtle bug.
#
# minigenesis's `gradcheck` does the same for every input element and raises `GradcheckError`
# naming the worst one. Here it catches a backward with a sign error:


# %%
class BadCube(mg.autograd.Function):
    """y = x^3, with a wrong backward (-3x^2 instead of 3x^2)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, gy):
        (x,) = ctx.saved_tensors
        return -3 * gy * x * x


xc = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
print("a correct op:", mg.autograd.gradcheck(lambda t: t * t * t, (xc,)))
try:
    mg.autograd.gradcheck(BadCube.apply, (xc,))
except mg.autograd.GradcheckError as err:
    print("GradcheckError:", err)

# %% [markdown]
# ## Summary
#
# - Broadcasting aligns shapes on the right and stretches size-1 dims.
# - In backward, a broadcast input's gradient is the upstream gradient summed back to its shape
#   (`sum_to`); minigenesis does that once, in the engine, for every op.
# - Shapes guide backward formulas; a backward is a vector-Jacobian product, never a Jacobian.
# - Test every gradient with central differences in float64.
#
# Next: chapter 4 packages parameters and ops into modules and layers.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 3.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/03_broadcasting_and_gradients -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** ```python x = mg.ones(3, 1, requires_grad=True) y = mg.ones(4) (x + y).sum().backward()
# ```
#
# What is `x.grad`?
#
# - (a) shape (3, 4), every entry 1.0
# - (b) shape (3, 1), every entry 4.0
# - (c) shape (3, 1), every entry 1.0
# - (d) shape (4,), every entry 3.0
#
# **q2.** A learner's `sum_to`:
#
# ```python
# def sum_to(grad, shape): while grad.ndim > len(shape): grad = grad.sum(axis=0) return grad
# ```
#
# Which call gives a wrong result?
#
# - (a) `sum_to(np.ones((4, 2, 3)), (2, 3))`
# - (b) `sum_to(np.ones((2, 3)), (2, 3))`
# - (c) `sum_to(np.ones((5, 3)), (3,))`
# - (d) `sum_to(np.ones((2, 3)), (2, 1))`
#
# **q3.** Why does the chapter use the central difference $(f(x+h) - f(x-h))/2h$ rather than the forward
# difference $(f(x+h) - f(x))/h$?
#
# - (a) its error shrinks like $h^2$ instead of $h$: the $h^2$ terms of the two Taylor series cancel
# - (b) it has no rounding error, whatever h is
# - (c) it also works where f has no derivative
# - (d) it needs half as many evaluations of f
#
# **q4.** `y = x.tanh()` for an `x` of a million entries. Its Jacobian has $10^{12}$ entries. How does the
# backward pass get `x.grad` without it?
#
# - (a) it computes the vector-Jacobian product $g^T J$ directly from the formula: `g * (1 - y**2)`, one multiply per entry
# - (b) it estimates the product by finite differences
# - (c) it keeps only the diagonal of the Jacobian and inverts it
# - (d) it builds the Jacobian once in float16, which fits in memory
