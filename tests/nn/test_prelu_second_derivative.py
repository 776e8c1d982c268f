"""PReLU under create_graph: its first derivative stays in the graph of the input and the slope
(PyTorch's prelu backward is an op of both), so differentiating it again gives the closed form:
zeros with respect to the input for a linear loss, 2 y'^2 and 4 a x (x < 0) for the loss y^2."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

X = np.array([[-2.5, -0.3, 0.7], [0.4, 1.7, -7.0]])


@pytest.mark.parametrize("channels", [1, 3])
def test_prelu_second_derivative_of_a_linear_loss_is_zeros_not_missing(channels):
    a = np.array([0.25, 0.5, 0.1])[:channels]
    x = mg.tensor(X, requires_grad=True)
    w = mg.tensor(a, requires_grad=True)
    gx, gw = mg.autograd.grad(mg.nn.functional.prelu(x, w).sum(), (x, w), create_graph=True)
    slope = np.broadcast_to(a, X.shape)
    np.testing.assert_allclose(gx.detach().numpy(), np.where(X > 0, 1.0, slope))
    assert gx.requires_grad and gw.requires_grad
    hxx, hxw = mg.autograd.grad(gx.sum(), (x, w), retain_graph=True)
    np.testing.assert_array_equal(hxx.numpy(), np.zeros_like(X))
    # d/da of sum(dy/dx) counts the negative inputs of each channel
    counts = (X < 0).sum(0) if channels == 3 else [(X < 0).sum()]
    np.testing.assert_allclose(hxw.numpy(), counts)
    (hww,) = mg.autograd.grad(gw.sum(), w)
    np.testing.assert_array_equal(hww.numpy(), np.zeros(channels))


@pytest.mark.parametrize("channels", [1, 3])
def test_prelu_second_derivatives_of_a_square_loss_are_the_closed_form(channels):
    a = np.array([0.25, 0.5, 0.1])[:channels]
    slope = np.broadcast_to(a, X.shape)
    x = mg.tensor(X, requires_grad=True)
    w = mg.tensor(a, requires_grad=True)
    y = mg.nn.functional.prelu(x, w)
    gx, _ = mg.autograd.grad((y * y).sum(), (x, w), create_graph=True)
    hxx, hxw = mg.autograd.grad(gx.sum(), (x, w))
    d = np.where(X > 0, 1.0, slope)  # y' ; y'' = 0 away from 0
    np.testing.assert_allclose(hxx.numpy(), 2 * d * d)
    mixed = np.where(X < 0, 4 * slope * X, 0.0)  # d/da (2 y y') = 4 a x for x < 0
    expected = mixed.sum(0) if channels == 3 else [mixed.sum()]
    np.testing.assert_allclose(hxw.numpy(), expected)
    # PyTorch agrees (no input at the kink, where its double backward takes x >= 0)
    xt, wt = torch.tensor(X, requires_grad=True), torch.tensor(a, requires_grad=True)
    yt = torch.nn.functional.prelu(xt, wt)
    (gt,) = torch.autograd.grad((yt * yt).sum(), xt, create_graph=True)
    ht = torch.autograd.grad(gt.sum(), (xt, wt))
    np.testing.assert_allclose(hxx.numpy(), ht[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(hxw.numpy(), ht[1].numpy(), rtol=1e-12)


def test_prelu_module_gradient_penalty_reaches_the_input():
    m = mg.nn.PReLU(3, init=0.2).double()
    x = mg.tensor(X, requires_grad=True)
    (g,) = mg.autograd.grad(m(x).sum(), x, create_graph=True)
    (g * g).sum().backward()  # a gradient penalty: works, gives x zeros, the slope 2 a count
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros_like(X))
    np.testing.assert_allclose(m.weight.grad.numpy(), 2 * 0.2 * (X < 0).sum(0))


def test_prelu_second_derivatives_at_zero_follow_pytorchs_double_backward():
    """At x = 0 the first derivative is the slope a (x > 0 is false), but PyTorch's double
    backward takes x >= 0: d gx/d gy = 1 and d gx/da = 0 there, so d^2(y^2)/dx^2 = 2 a (not
    2 a^2) and d/da sum(dy/dx) counts only x < 0."""
    x0, a0 = np.array([0.0, -1.5, 2.0]), np.array([0.25])
    results = []
    for lib in (mg, torch):
        x, w = lib.tensor(x0, requires_grad=True), lib.tensor(a0, requires_grad=True)
        y = lib.nn.functional.prelu(x, w)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        hxx = lib.autograd.grad(gx.sum(), x)[0]
        gx1, gw1 = lib.autograd.grad(lib.nn.functional.prelu(x, w).sum(), (x, w), create_graph=True)
        hxw, hxx1 = lib.autograd.grad(gx1.sum(), (w, x), retain_graph=True)
        (hww,) = lib.autograd.grad(gw1.sum(), w)
        results.append([t.detach().numpy() for t in (gx1, hxx, hxw, hxx1, hww)])
    expected = [[0.25, 0.25, 1.0], [2 * 0.25, 2 * 0.25**2, 2.0], [1.0], [0, 0, 0], [0.0]]
    for ours, theirs, closed in zip(*results, expected):
        np.testing.assert_allclose(ours, closed, rtol=1e-12)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
