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
# # Chapter 2: Automatic differentiation from scratch
#
# Training a network means computing the gradient of one number (the loss) with respect to
# millions of parameters. *Reverse-mode automatic differentiation* does it in one backward sweep
# that costs about as much as the forward pass. In this chapter you build it yourself, about 50
# lines in the spirit of Karpathy's micrograd, then read how minigenesis does the same thing.
#
# Exercises: `exercises.py` (2.1-2.7, the last one the self-check at the end). Check them with
# `python -m pytest lessons/02_autograd_from_scratch`.

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
# ## The chain rule, by hand
#
# Take $f(a, b, c) = e^{ab} + ab\,c$ and name the intermediate $u = ab$. Then
# $f = e^{u} + u c$ and the chain rule gives
#
# $$\frac{\partial f}{\partial a} = \frac{\partial f}{\partial u}\frac{\partial u}{\partial a}
#   = (e^{u} + c)\, b .$$
#
# Notice two things. First, $\partial f/\partial u$ collects **two** contributions, because $u$
# is used twice; gradients from different uses *add up*. Second, we computed
# $\partial f / \partial u$ before $\partial f / \partial a$: a node's gradient is complete only
# once everything computed *from* it has passed its gradient back. That is the order in which
# backward must visit the graph.

# %%
a, b, c = 0.5, -1.2, 2.0
u = a * b
f = np.exp(u) + u * c
df_du = np.exp(u) + c  # both uses of u
print(f"f = {f:.6f}")
print(f"df/da = {df_du * b:.6f}, df/db = {df_du * a:.6f}, df/dc = {u:.6f}")

# %% [markdown]
# ## A tiny engine
#
# `exercises.py` gives you `Node` (data, grad, parents, and a `backward_fn` that maps the
# gradient of the node to the gradients of its parents) and two ops written for you, `add` and
# `exp`. You write `mul` (2.1) and `tanh` (2.2): each op computes its forward value and
# returns a closure for its *local* derivative.

# %%
print(inspect.getsource(ex.add))
print(inspect.getsource(ex.exp))

# %% [markdown]
# Then two functions turn local derivatives into gradients:
#
# - `topological_order(root)` (2.3): all nodes, each one after its parents. A depth-first search
#   emits a node after its parents; use an explicit stack, as real engines do, so that a graph
#   5,000 ops deep does not hit Python's recursion limit, and remember every node you have
#   reached, so that a node many paths lead to is expanded once (`y = y + y` forty times has 41
#   nodes but 2^40 paths).
# - `backward(root)` (2.4): set `root.grad = 1`, then walk the order **in reverse** and let each
#   node hand its gradient to its parents (`+=`, because of shared nodes like `u` above).
#
# Once 2.1-2.4 are done, this cell reproduces the hand computation:

# %%
na, nb, nc = ex.Node(a), ex.Node(b), ex.Node(c)
nu = ex.mul(na, nb)
nf = ex.add(ex.exp(nu), ex.mul(nu, nc))
print("order:", [n.op or "leaf" for n in ex.topological_order(nf)])
ex.backward(nf)
print(f"f = {float(nf.data):.6f}")
print(f"df/da = {float(na.grad):.6f}, df/db = {float(nb.grad):.6f}, df/dc = {float(nc.grad):.6f}")

# %% [markdown]
# ## Same answer from minigenesis
#
# minigenesis records the same graph while you compute with tensors that `requires_grad`, and
# `backward()` fills the leaves' `.grad`:

# %%
ta, tb, tc = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (a, b, c))
tu = ta * tb
tf = tu.exp() + tu * tc
tf.backward()
print(f"df/da = {ta.grad.item():.6f}, df/db = {tb.grad.item():.6f}, df/dc = {tc.grad.item():.6f}")

# %% [markdown]
# Our nodes hold arrays, so the engine differentiates whole vectors at once. Here is $\tanh$ and
# its derivative from *your* engine, next to a finite difference:

# %%
xs = np.linspace(-4, 4, 200)
node = ex.Node(xs)
y = ex.tanh(node)
ex.backward(y)  # the root is a vector: the seed of ones gives d(sum y)/dx = dy/dx elementwise
fd = (np.tanh(xs + 1e-5) - np.tanh(xs - 1e-5)) / 2e-5

fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(xs, y.data, label="tanh(x)")
ax.plot(xs, node.grad, label="d tanh/dx (your engine)", lw=3, alpha=0.5)
ax.plot(xs, fd, "k:", label="finite difference")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## How minigenesis does it
#
# Every result of an op carries a `grad_fn`: the op's node, which remembers its inputs (its
# *edges*) and what its forward saved. Walking the edges shows the graph you just built:


# %%
def show_graph(fn, depth=0):
    print("  " * depth + fn.name)
    for edge in fn.next_edges:
        if edge is None:
            continue
        nxt = edge[0]
        if isinstance(nxt, mg.Tensor):
            print("  " * (depth + 1) + f"leaf {tuple(nxt.shape)}")
        else:
            show_graph(nxt, depth + 1)


show_graph(tf.grad_fn)

# %% [markdown]
# The shared `Mul` (our $u = ab$) is printed under both of its consumers, but it is one node with
# two outgoing uses.
#
# ### Drawing the graph
#
# Before you run the next cells, draw the graph of `tf` on paper: one box per op (`Mul`, `Exp`,
# ...) and one per leaf (`a`, `b`, `c`), one arrow from each input to the op that used it. How
# many arrows leave the `Mul` box? Which box has no arrow leaving it?
#
# Exercise 2.5 (`graph_lists`) writes your sketch as two lists, the boxes and the arrows, found by
# walking `grad_fn.next_edges` as `show_graph` does but visiting each vertex once:

# %%
names = {"a": ta, "b": tb, "c": tc}
boxes, arrows = ex.graph_lists(tf, names)
print("boxes: ", sorted(boxes))
print("arrows:", sorted(arrows))

# %% [markdown]
# `mg.viz.draw_graph` draws the same boxes and arrows with matplotlib (`mg.viz.graph(...)` returns
# the graph itself; its `.to_dot()` is Graphviz text, for those who have Graphviz). Each op box
# gives the shape and dtype of the op's output and what its forward saved for backward; here the
# saved values read "freed by backward", because `tf.backward()` above already ran and released
# them. Leaves are named by `params`; `show_grad=True` adds the norm of each leaf's `.grad`.

# %%
mg.viz.draw_graph(tf, params=names, show_grad=True)

# %% [markdown]
# Before a backward, the same picture shows what the graph keeps alive. `Mul` saves both inputs
# (it needs $b$ for $\partial(ab)/\partial a$ and $a$ for $\partial(ab)/\partial b$), `Exp` its
# output ($\partial e^u/\partial u = e^u$), `Add` nothing:

# %%
tu = ta * tb
mg.viz.draw_graph(tu.exp() + tu * tc, params=names)

# %% [markdown]
# An op is a class with a `forward` on raw arrays and a `backward` on gradients. Here is `Exp`:

# %%
print(inspect.getsource(mg.ops.elementwise.Exp))

# %% [markdown]
# The backward pass (`minigenesis/autograd/engine.py`) orders the work slightly differently from
# your depth-first search: it first counts, for every node, how many edges lead into it, then runs
# a node only when all of its consumers have delivered their gradients (Kahn's algorithm). It is
# the same guarantee, "a node's gradient is complete before it is used", without recursion. Its
# docstring says so; read `run_backward` and `_Backward.run_ready` in that file for the loop
# itself:

# %%
print(mg.autograd.engine.__doc__)

# %% [markdown]
# ### A design decision: backward is written with Tensor ops
#
# In minigenesis, `backward` receives **Tensors** and builds its result from Tensor operations
# (`gy * y` above), never from raw arrays. Normally the engine runs it under `no_grad`, so this
# costs nothing. But with `create_graph=True` the backward pass records a graph of its own, and
# you can differentiate a gradient: second derivatives for every op, with no extra code. (PyTorch
# makes the same choice for its built-in formulas.)

# %%
x = mg.tensor([0.5], dtype=mg.float64, requires_grad=True)
(g,) = mg.autograd.grad(x.tanh(), x, create_graph=True)  # 1 - tanh^2
(gg,) = mg.autograd.grad(g, x)  # -2 tanh (1 - tanh^2)
t = np.tanh(0.5)
print(g.item(), 1 - t**2)
print(gg.item(), -2 * t * (1 - t**2))

# %% [markdown]
# The gradient `g` is an ordinary tensor with a graph of its own: the ops tanh's backward ran.
# Drawing it shows the backward pass as a graph, the thing that `create_graph=True` records:

# %%
(g,) = mg.autograd.grad(x.tanh(), x, create_graph=True)
mg.viz.draw_graph(g, params={"x": x})

# %% [markdown]
# ## PyTorch's rules, which minigenesis follows
#
# - Gradients **accumulate** in `.grad` across `backward()` calls; optimizers' `zero_grad()`
#   clears them between steps.
# - Only leaves (tensors you created with `requires_grad=True`) keep `.grad`; intermediate
#   results have `.grad = None` unless you call `retain_grad()` on them.
# - `backward()` frees what the graph saved; a second `backward()` through the same graph raises,
#   unless the first one passed `retain_graph=True`.
# - Inside `with mg.no_grad():` nothing is recorded (evaluation, parameter updates).

# %%
w = mg.tensor([1.0, 2.0], requires_grad=True)
(w * w).sum().backward()
(w * w).sum().backward()
print("accumulated:", w.grad)  # 2w + 2w

h = w.exp()
loss = h.sum()
loss.backward()
print("intermediate grad:", h.grad, "| leaf?", h.is_leaf, w.is_leaf)
try:
    loss.backward()
except RuntimeError as err:
    print("second backward:", err)

with mg.no_grad():
    q = w * 2
print("under no_grad:", q.requires_grad, q.grad_fn)

# %% [markdown]
# ## Your own op: `Function`
#
# When an op is missing, or its automatic gradient is unstable, write a `Function`: a `forward`
# on Tensors (run without recording) and a `backward` that returns one gradient per input.
# Exercise 2.6 is softplus, $\log(1 + e^x)$, whose derivative is the sigmoid. `gradcheck`
# compares your backward with central finite differences in float64:

# %%
xs64 = mg.tensor(np.linspace(-5, 5, 7), dtype=mg.float64, requires_grad=True)
print("gradcheck:", mg.autograd.gradcheck(ex.Softplus.apply, (xs64,)))
print(ex.Softplus.apply(mg.tensor([-1000.0, 0.0, 1000.0])))  # no overflow: the stable form

# %% [markdown]
# ## Summary
#
# - Reverse mode = one forward pass that records a graph + one backward pass in reverse
#   topological order, each node applying its local derivative (the chain rule).
# - Gradients of a value used several times add up.
# - minigenesis orders the pass by dependency counting, writes every backward with Tensor ops
#   (so `create_graph=True` gives higher derivatives), and follows PyTorch's rules for `.grad`,
#   `retain_graph` and `no_grad`.
# - `mg.viz.draw_graph` draws the recorded graph: ops, leaves, and what each op saved.
#
# To read the real engine from end to end, follow "Read the engine in an afternoon" in
# ARCHITECTURE.md: the dozen functions, in order, that make one training step.
#
# Next: chapter 3, where tensors of different shapes meet (broadcasting) and the engine must
# undo it in the backward pass.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 2.7**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/02_autograd_from_scratch -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** With your engine from this chapter:
#
# ```python
# a = Node(2.0)
# b = mul(a, a)
# backward(b)
# ```
#
# What is `a.grad`?
#
# - (a) 8.0: the chain rule multiplies the two local gradients, 2 * 2 * 2
# - (b) 0.0: a node that is its own parent makes a cycle, and the walk skips it
# - (c) 4.0: both inputs of `mul` are `a`, each use sends back a gradient of 2, and they add up
# - (d) 2.0: `b = a^2` and the gradient of the last use overwrites the first
#
# **q2.** A learner's `backward` forgets `reversed`: it seeds `root.grad` with ones, then runs each
# node's `backward_fn` in the order `topological_order(root)` returns (inputs first). For `loss =
# tanh(mul(x, w))`, what comes out?
#
# - (a) the right gradient for `x`, and 0 for `w`
# - (b) a RecursionError, since the walk now goes the wrong way
# - (c) the right gradients: the order of a sum does not change it
# - (d) `x.grad` and `w.grad` stay 0: `mul` passes its gradient on before `tanh` has sent it any
#
# **q3.** Why does exercise 2.3 ask for an explicit stack instead of a recursive depth-first search?
#
# - (a) a long chain (an RNN unrolled over 2,000 steps) is deeper than Python's recursion limit; a
#   list used as a stack grows as long as it needs
# - (b) recursion returns the nodes in a different order, which gives wrong gradients
# - (c) a stack is asymptotically faster: recursion is O(n^2)
# - (d) recursion visits a node shared by two consumers twice
#
# **q4.** minigenesis writes every op's `backward` with Tensor operations, never with raw arrays.
# What does that buy?
#
# - (a) speed: Tensor ops are faster than NumPy
# - (b) gradients become exact instead of approximations
# - (c) the saved tensors are freed earlier, so backward uses less memory
# - (d) with `create_graph=True` the backward pass records a graph of its own, so a gradient can be
#   differentiated again (second derivatives for every op)
