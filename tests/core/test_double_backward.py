"""Gradients of the ops whose derivative is a 0/1 mask (relu, where, clamp, max, pooling...) and
their second derivatives, against PyTorch:

- an inf or NaN upstream gradient stays out of the elements the mask turns off (PyTorch selects,
  it does not multiply by the mask: inf * 0 would be NaN);
- ``autograd.grad(..., create_graph=True)`` returns a gradient that is in the graph exactly when
  PyTorch's is (relu, leaky_relu and max pooling keep their input in it, with a zero
  derivative), and differentiating it again gives PyTorch's second derivatives.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as mF

torch = pytest.importorskip("torch")
tF = torch.nn.functional

# Values with ties, zeros and both signs, so every mask has both kinds of elements.
X = np.array([[1.5, -1.0, 0.0], [2.0, 3.0, 3.0], [-2.0, 0.5, 1.0], [0.0, -0.5, 3.0]])
Y = np.array([[1.5, 0.0, -1.0], [2.5, 3.0, 1.0], [-2.0, 0.5, 2.0], [0.0, -0.5, 3.0]])


def _lib(lib):
    return (mg, mF) if lib == "mg" else (torch, tF)


# name -> (function of (lib, F, x, y), whether y is an input that gets a gradient)
OPS = {
    "relu": (lambda L, F, x, y: F.relu(x), False),
    "leaky_relu": (lambda L, F, x, y: F.leaky_relu(x, 0.1), False),
    "clamp": (lambda L, F, x, y: x.clamp(-1.0, 1.5), False),
    "clamp_min": (lambda L, F, x, y: x.clamp(min=0.0), False),
    "clamp_tensor_bounds": (lambda L, F, x, y: x.clamp(y - 1, y), True),
    "where": (lambda L, F, x, y: L.where(x > 0.2, x, y), True),
    "max": (lambda L, F, x, y: x.max(), False),
    "min": (lambda L, F, x, y: x.min(), False),
    "max_dim": (lambda L, F, x, y: x.max(1).values, False),
    "min_dim_keepdim": (lambda L, F, x, y: x.min(0, keepdim=True).values, False),
    "amax_dim": (lambda L, F, x, y: x.amax(1), False),
    "maximum": (lambda L, F, x, y: L.maximum(x, y), True),
    "minimum": (lambda L, F, x, y: L.minimum(x, y), True),
    "maximum_scalar": (lambda L, F, x, y: x.maximum(L.tensor(0.0)), False),
    "abs": (lambda L, F, x, y: x.abs(), False),
    "sign": (lambda L, F, x, y: x.sign() * x, False),
    "max_pool2d": (lambda L, F, x, y: F.max_pool2d(x.reshape(1, 1, 4, 3), 2, 1), False),
    "max_pool2d_padded": (
        lambda L, F, x, y: F.max_pool2d(x.reshape(1, 1, 4, 3), 3, 2, padding=1),
        False,
    ),
    "masked_fill": (lambda L, F, x, y: x.masked_fill(x > 0.7, 2.0) * y, True),
    "avg_pool2d": (lambda L, F, x, y: F.avg_pool2d(x.reshape(1, 1, 4, 3), 2, 1) ** 2, False),
    "copy_": (lambda L, F, x, y: F.softplus((x * 2).clone().copy_(y)) * x, True),
    "dropout_eval": (lambda L, F, x, y: F.dropout(x, 0.5, training=False) * x, False),
    "relu_squared": (lambda L, F, x, y: F.relu(x) * x, False),
    "where_product": (lambda L, F, x, y: L.where(x > 0, x * y, y * y), True),
    "sigmoid": (lambda L, F, x, y: x.sigmoid(), False),
    "tanh": (lambda L, F, x, y: x.tanh(), False),
    "gelu": (lambda L, F, x, y: F.gelu(x), False),
}


def _inputs(lib: str, needs_y: bool):
    L = _lib(lib)[0]
    x = L.tensor(X, dtype=L.float64, requires_grad=True)
    y = L.tensor(Y, dtype=L.float64, requires_grad=needs_y)
    return x, y


def _np(t):
    # through a list: PyTorch's second derivative of abs is a "zero tensor" with no array
    return None if t is None else np.asarray((t.detach() + 0).tolist(), dtype=np.float64)


def _same(ours, theirs, what: str) -> None:
    if theirs is None or ours is None:
        assert ours is None and theirs is None, f"{what}: ours {ours}, PyTorch's {theirs}"
        return
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12, err_msg=what)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # inf * 0 where PyTorch has it
@pytest.mark.parametrize("upstream", [np.inf, -np.inf, np.nan])
@pytest.mark.parametrize("name", sorted(OPS))
def test_masked_gradient_keeps_inf_and_nan_upstream_out_of_masked_elements(name, upstream):
    fn, needs_y = OPS[name]
    grads = {}
    for lib in ("mg", "torch"):
        L, F = _lib(lib)
        x, y = _inputs(lib, needs_y)
        out = fn(L, F, x, y)
        up = np.full(tuple(out.shape), 1.0)
        up.flat[::2] = upstream  # every other element: finite ones show the mask as well
        out.backward(L.tensor(up, dtype=L.float64))
        grads[lib] = (_np(x.grad), _np(y.grad) if needs_y else None)
    _same(grads["mg"][0], grads["torch"][0], f"{name}: gradient of x")
    _same(grads["mg"][1], grads["torch"][1], f"{name}: gradient of y")


@pytest.mark.parametrize("name", sorted(OPS))
def test_second_derivatives_match_pytorch(name):
    fn, needs_y = OPS[name]
    rng = np.random.default_rng(0)
    results = {}
    for lib in ("mg", "torch"):
        L, F = _lib(lib)
        x, y = _inputs(lib, needs_y)
        out = fn(L, F, x, y)
        w = L.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=L.float64)
        inputs = (x, y) if needs_y else (x,)
        first = L.autograd.grad((out * w).sum(), inputs, create_graph=True)
        in_graph = [g.requires_grad for g in first]
        second = (None, None)
        if any(in_graph):
            v = [L.tensor(rng.standard_normal(X.shape), dtype=L.float64) for _ in first]
            total = sum((g * vi).sum() for g, vi in zip(first, v) if g.requires_grad)
            total.backward()
            second = (_np(x.grad), _np(y.grad) if needs_y else None)
        rng = np.random.default_rng(0)  # the same v for both libraries
        results[lib] = ([_np(g) for g in first], in_graph, second)
    ours, theirs = results["mg"], results["torch"]
    for i, (a, b) in enumerate(zip(ours[0], theirs[0])):
        _same(a, b, f"{name}: first derivative {i}")
    assert ours[1] == theirs[1], f"{name}: first derivative in the graph: {ours[1]} vs {theirs[1]}"
    _same(ours[2][0], theirs[2][0], f"{name}: second derivative of x")
    _same(ours[2][1], theirs[2][1], f"{name}: second derivative of y")


def test_relu_gradient_under_create_graph_can_be_differentiated_again():
    x = mg.tensor([1.0, -1.0, 2.0], requires_grad=True)
    (g,) = mg.autograd.grad(x.relu().sum(), x, create_graph=True)
    assert g.requires_grad
    g.sum().backward()  # PyTorch: the derivative of relu's gradient with respect to x is 0
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


def test_relu_third_derivative_through_the_upstream_gradient():
    # d/dv of (relu'(x) * v) is relu'(x): the selection itself is differentiated again
    x = mg.tensor([1.0, -1.0, 2.0], requires_grad=True)
    v = mg.tensor([3.0, 4.0, 5.0], requires_grad=True)
    (g,) = mg.autograd.grad(x.relu(), x, grad_outputs=v, create_graph=True)
    (gv,) = mg.autograd.grad(g.sum(), v, create_graph=True)
    np.testing.assert_array_equal(gv.detach().numpy(), [1.0, 0.0, 1.0])
