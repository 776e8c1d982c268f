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
# # Chapter 4: Modules and layers
#
# A network is a tree of **modules**. Each module owns its parameters (tensors the optimizer
# will update), its buffers (state that is saved but not trained, like BatchNorm's running
# mean), and its sub-modules; `forward` says how to compute. Autograd does the rest: a layer
# written with Tensor ops needs no backward.
#
# Exercises: `exercises.py` (4.1-4.6, the last one the self-check at the end). Check them with
# `python -m pytest lessons/04_modules_and_layers`.

# %%
import sys

sys.path.insert(0, "..")  # lessons/, where the course helper lives
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (solutions.py when MINIGENESIS_SOLUTIONS=1)

import inspect

import matplotlib.pyplot as plt

import minigenesis as mg
from minigenesis import nn

mg.manual_seed(0)

# %% [markdown]
# ## How a module finds its parameters
#
# There is no list to fill in: assigning an `nn.Parameter` (or a `Module`) to an attribute
# registers it. `Module.__setattr__` sorts each assignment into the right registry:

# %%
print(inspect.getsource(nn.Module.__setattr__))

# %% [markdown]
# Everything else follows from those registries: `parameters()` and `named_parameters()` walk
# the tree, `state_dict()` collects parameters and persistent buffers under dotted names,
# `train()` / `eval()` set the `training` flag on every sub-module, and `module(x)` calls
# `forward` (plus any hooks).
#
# ## Exercise 4.1: a Linear layer
#
# `y = x W^T + b` with `W` of shape `(out, in)`: PyTorch's convention, so state dicts are
# interchangeable. The default initialisation draws both from $U(-k, k)$, $k = 1/\sqrt{\text{in}}$.

# %%
mine = ex.MyLinear(3, 2)
ref = nn.Linear(3, 2)
print([(n, tuple(p.shape)) for n, p in mine.named_parameters()])
mine.load_state_dict(ref.state_dict())  # same names and shapes: loads as is
x = mg.randn(4, 3)
print("max difference from nn.Linear:", (mine(x) - ref(x)).abs().max().item())

# %% [markdown]
# ## Why the scale of the initialisation matters
#
# Each layer multiplies the variance of its input by about $\text{in} \cdot \text{Var}(W)$
# (times 1/2 after a ReLU, which zeroes half of its inputs). Over many layers that factor is
# raised to a power: below 1 the signal dies, above 1 it explodes. Kaiming (He) initialisation
# picks $\text{Var}(W) = 2/\text{in}$ to keep it at 1 for ReLU networks. PyTorch's default for
# `Linear`, $U(-k, k)$, has $\text{Var}(W) = 1/(3\,\text{in})$: the signal shrinks by a factor of
# about $\sqrt{6}$ per ReLU layer (fine for shallow nets; deep ones use better inits or
# normalisation layers).


# %%
def activation_stds(init, depth=12, width=256):
    h = mg.randn(512, width)
    stds = []
    with mg.no_grad():
        for _ in range(depth):
            layer = nn.Linear(width, width, bias=False)
            init(layer.weight)
            h = layer(h).relu()
            stds.append(h.std().item())
    return stds


inits = {
    "N(0, 1)": lambda w: nn.init.normal_(w, 0.0, 1.0),
    "PyTorch default U(-k, k)": lambda w: None,
    "Kaiming normal": lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu"),
}
fig, ax = plt.subplots(figsize=(6, 3.2))
for name, init in inits.items():
    ax.semilogy(range(1, 13), activation_stds(init), "o-", ms=3, label=name)
ax.set_xlabel("layer")
ax.set_ylabel("std of activations")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Exercise 4.2: containers
#
# `nn.Sequential` chains modules; `nn.ModuleList` holds them for a `forward` you write yourself
# (a plain Python list would hide their parameters from the registries!). Parameters are named
# by their path: `layers.0.weight`.

# %%
mlp = ex.MLP([2, 16, 16, 1])
print(mlp)
print([n for n, _ in mlp.named_parameters()])
print("parameters:", sum(p.numel() for p in mlp.parameters()))

# %% [markdown]
# ## Exercise 4.3: normalisation from Tensor ops
#
# LayerNorm normalises each example over its features: subtract the mean, divide by the standard
# deviation (biased, and with `eps` inside the square root), then scale and shift by learned
# `weight` and `bias`. Written with Tensor ops, its backward comes from autograd:

# %%
ln = nn.LayerNorm(6)
xl = mg.randn(3, 6) * 4 + 2
mine_ln = ex.layer_norm(xl, ln.weight, ln.bias)
print("max difference from nn.LayerNorm:", (mine_ln - ln(xl)).abs().max().item())
print("per-row mean:", mine_ln.mean(dim=-1).detach())
print("per-row std: ", mine_ln.std(dim=-1, unbiased=False).detach())  # biased, as LayerNorm

# %% [markdown]
# ## Exercise 4.4: train and eval modes
#
# Dropout zeroes a random fraction `p` of activations during training and scales the rest by
# $1/(1-p)$ ("inverted dropout"), so nothing changes at evaluation time, where it does nothing.
# Forgetting `model.eval()` before evaluating is a classic bug: predictions become random.

# %%
drop = ex.MyDropout(0.5)
ones = mg.ones(2, 8)
print("train:", drop(ones))
drop.eval()
print("eval: ", drop(ones))

# %% [markdown]
# ## Exercise 4.5: buffers, and BatchNorm's two behaviours
#
# BatchNorm normalises each feature over the **batch**. In training it uses the batch's
# statistics and updates running averages (`momentum=0.1`: 10% new, 90% old; the running
# variance uses the unbiased estimate). In eval it uses the running averages, so one example's
# output no longer depends on the rest of the batch. The running statistics are **buffers**: in
# the `state_dict`, never seen by the optimizer.

# %%
bn = ex.MyBatchNorm1d(3)
print("state_dict:", list(bn.state_dict()))
print("parameters:", [n for n, _ in bn.named_parameters()])
for _ in range(50):
    bn(mg.randn(32, 3) * 2 + 5)  # features with mean 5, variance 4
print("running mean:", bn.running_mean, "running var:", bn.running_var)

# %% [markdown]
# ## Hooks: looking inside without changing the model
#
# `register_forward_hook(fn)` calls `fn(module, inputs, output)` after each forward. Chapter 12
# uses this to monitor activations; here we record the output of every ReLU-fed layer.

# %%
seen = {}
handles = [
    layer.register_forward_hook(
        lambda mod, inp, out, name=f"layers.{i}": seen.__setitem__(name, tuple(out.shape))
    )
    for i, layer in enumerate(mlp.layers)
]
mlp(mg.randn(5, 2))
print(seen)
for h in handles:
    h.remove()

# %% [markdown]
# ## Summary
#
# - Assigning a `Parameter` or a `Module` to an attribute registers it; `named_parameters`,
#   `state_dict`, `train`/`eval` and `to` all walk those registries.
# - Layers are a forward made of Tensor ops; autograd supplies the backward.
# - Initialisation scale decides whether a deep signal survives.
# - Some layers (Dropout, BatchNorm) behave differently in training and evaluation: call
#   `model.train()` / `model.eval()`.
#
# Next: chapter 5 adds a loss function and trains.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 4.6**), for example `{"q1": "b",
# "q2": "d", ...}`, and check them with `python -m pytest lessons/04_modules_and_layers -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** A model stores its layers as `self.layers = [nn.Linear(4, 8), nn.Linear(8, 2)]` (a plain
# list). What happens when it is trained?
#
# - (a) the layers train, but are missing from state_dict()
# - (b) Python raises a TypeError at the assignment
# - (c) `model.parameters()` is empty of those layers' weights, so the optimizer never updates them
#   (`nn.ModuleList` registers them)
# - (d) it trains normally: a module finds every Linear inside it
#
# **q2.** Inverted dropout with `p = 0.5` in training mode: what happens to the elements that are
# kept?
#
# - (a) they are multiplied by 2, so the expected output equals the input and eval mode needs no
#   change
# - (b) they are replaced by their mean
# - (c) they are unchanged; eval mode multiplies by 0.5
# - (d) they are multiplied by 0.5
#
# **q3.** A CNN with BatchNorm scores 97% on the validation set in batches of 256, but 60% when the
# same images are fed one at a time. What did the evaluation forget?
#
# - (a) `mg.no_grad()`: gradients change the predictions
# - (b) to scale the inputs by the batch size
# - (c) `model.eval()`: in training mode BatchNorm normalizes with the batch's own statistics, which
#   one image cannot give
# - (d) to shuffle the validation set
#
# **q4.** Why does `Linear`'s default initialisation shrink the weights as `1/sqrt(in_features)`?
#
# - (a) so that every layer starts with the same weights
# - (b) smaller weights train faster at any width
# - (c) to keep the weights inside float16's range
# - (d) each output sums in_features products, so its variance grows with in_features unless the
#   weights' variance shrinks as 1/in_features
