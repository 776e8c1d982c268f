"""Saved-tensor hooks (autograd.graph.saved_tensors_hooks) and backwards that stream their
gradients (a generator backward, as Linear's): checked against the same computation without them
and against closed-form gradients."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd.graph import (
    disable_saved_tensors_hooks,
    save_on_cpu,
    saved_tensors_hooks,
)


def test_pack_sees_every_saved_value_and_unpack_gives_it_back():
    a = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = mg.tensor([4.0, 5.0, 6.0], requires_grad=True)
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.detach().numpy().copy())
        return len(packed) - 1  # the graph keeps this int only

    def unpack(i):
        unpacked.append(i)
        return mg.tensor(packed[i])

    with saved_tensors_hooks(pack, unpack):
        y = (a * b).tanh()  # Mul saves a and b, Tanh saves its output
    assert len(packed) == 3
    an, bn = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_allclose(packed[2], np.tanh(an * bn), rtol=1e-6)
    y.sum().backward()
    assert sorted(unpacked) == [0, 1, 2]
    d = 1 - np.tanh(an * bn) ** 2
    np.testing.assert_allclose(a.grad.numpy(), d * bn, rtol=1e-5)
    np.testing.assert_allclose(b.grad.numpy(), d * an, rtol=1e-5)


def test_what_unpack_returns_is_what_backward_uses():
    x = mg.tensor([2.0, 3.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: None, lambda _: mg.tensor([10.0, 10.0])):
        y = x * x  # d(x*x)/dx = 2x, computed from the saved x (here replaced by 10)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 20.0])


def test_hooks_nest_end_with_their_block_and_constants_skip_them():
    seen = []
    outer = saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t)
    inner = saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t)
    x = mg.randn(3, requires_grad=True)
    with outer:
        x.exp()
        with inner:
            x.exp()
        x.exp()
    x.exp()
    assert seen == ["outer", "inner", "outer"]
    seen.clear()
    with outer:
        x * 2  # saves the constant 2 (not a tensor) and x only if 2 needed a gradient: nothing
        x.reshape(3, 1)  # saves a shape
    assert seen == []


def test_hooks_are_per_thread():
    seen = []
    started, release = threading.Event(), threading.Event()

    def other():
        started.set()
        release.wait(5)
        mg.randn(2, requires_grad=True).exp()

    thread = threading.Thread(target=other)
    thread.start()
    started.wait(5)
    with saved_tensors_hooks(lambda t: seen.append(1) or t, lambda t: t):
        release.set()
        thread.join(5)
    assert seen == []


def test_hooks_must_be_callables():
    with pytest.raises(TypeError, match="must be callables"):
        saved_tensors_hooks(None, lambda t: t)


# ---------------------------------------------------------------------------------------------
# Streaming backward
# ---------------------------------------------------------------------------------------------
class ScaleShift(mg.autograd.Function):
    """y = a * s + b, whose backward yields the gradient of b first, then of s, then of a."""

    @staticmethod
    def forward(ctx, a, s, b):
        ctx.save_for_backward(a, s)
        return a * s + b

    @staticmethod
    def backward(ctx, gy):
        a, s = ctx.saved_tensors
        yield 2, gy
        ctx.b_grad_when_s_was_computed = ctx.leaf_b.grad
        yield 1, (gy * a).sum()
        yield 0, gy * s


def test_a_streamed_gradient_reaches_its_leaf_before_the_next_is_computed():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    s = mg.tensor(3.0, requires_grad=True)
    b = mg.tensor([0.5, 0.5], requires_grad=True)
    y = ScaleShift.apply(a, s, b)
    y.grad_fn.leaf_b = b
    node = y.grad_fn
    (y * mg.tensor([1.0, 10.0])).sum().backward()
    np.testing.assert_allclose(node.b_grad_when_s_was_computed.numpy(), [1.0, 10.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 10.0])
    np.testing.assert_allclose(s.grad.numpy(), 1.0 + 20.0)
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 30.0])


def test_a_leaf_fed_by_several_streamed_gradients_is_finished_once_with_the_sum():
    mg.manual_seed(0)
    lin = nn.Linear(3, 3).double()
    calls = []
    lin.weight.register_hook(lambda g: calls.append(g.numpy().copy()))
    x = mg.randn(4, 3, dtype=mg.float64)
    w = lin.weight.detach().numpy()
    h = lin(x)
    out = lin(h)  # the same weight twice: two streamed contributions
    out.sum().backward()
    # closed form: d sum(W h + b)/dW = 1 h^T summed over rows; through h: W^T 1 x^T
    ones = np.ones((4, 3))
    hn = h.detach().numpy()
    expected = ones.T @ hn + (ones @ w).T @ x.numpy()
    assert len(calls) == 1
    np.testing.assert_allclose(calls[0], expected, rtol=1e-12)
    np.testing.assert_allclose(lin.weight.grad.numpy(), expected, rtol=1e-12)


def test_streamed_gradients_work_with_autograd_grad_and_unneeded_inputs():
    mg.manual_seed(1)
    lin = nn.Linear(3, 2).double()
    lin.bias.requires_grad_(False)
    x = mg.randn(5, 3, dtype=mg.float64, requires_grad=True)
    gx, gw = mg.autograd.grad(lin(x).sum(), [x, lin.weight])
    np.testing.assert_allclose(gx.numpy(), np.ones((5, 2)) @ lin.weight.detach().numpy())
    np.testing.assert_allclose(gw.numpy(), np.ones((2, 5)) @ x.detach().numpy())
    assert lin.weight.grad is None and lin.bias.grad is None


def test_disable_saved_tensors_hooks_refuses_hooks_inside_and_around_it():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        with disable_saved_tensors_hooks("inner"):
            pass
        with pytest.raises(RuntimeError, match="no hooks here"):
            with save_on_cpu():
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again after the block
        with pytest.raises(RuntimeError, match="not while hooks"):
            with disable_saved_tensors_hooks("not while hooks"):
                pass
