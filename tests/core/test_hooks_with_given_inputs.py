"""A backward pass given inputs (``autograd.grad(out, inputs)``, ``backward(inputs=...)``) runs, as
PyTorch's engine, only the nodes with a path to one of the inputs, and runs the hooks of those
nodes and of the leaves among the inputs only: a hook on a leaf left out of ``inputs`` does not
fire. Inside ``autograd.grad``, ``register_multi_grad_hook(mode="all")`` over a leaf that is one
of the grad's inputs raises PyTorch's RuntimeError; mode="any" takes it, and
``backward(inputs=...)`` takes it in both modes."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.graph import register_multi_grad_hook


def _graph():
    """a, b leaves; x = a * b; out = sum(2 x): dout/da = 2 b, dout/db = 2 a, dout/dx = 2."""
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    log: list = []
    for name, t in (("a", a), ("b", b)):
        t.register_hook(lambda g, name=name: log.append((name, g.tolist())))
    x = a * b
    x.register_hook(lambda g: log.append(("x", g.tolist())))
    return a, b, x, (2 * x).sum(), log


def test_backward_with_inputs_runs_no_hook_of_a_leaf_left_out():
    a, b, x, out, log = _graph()
    out.backward(inputs=[b])
    assert log == [("x", [2.0, 2.0]), ("b", [2.0, 4.0])]
    assert a.grad is None and b.grad.tolist() == [2.0, 4.0]


def test_grad_runs_only_the_nodes_and_hooks_on_a_path_to_its_inputs():
    a, b, x, out, log = _graph()
    (gx,) = mg.autograd.grad(out, [x], retain_graph=True)
    assert gx.tolist() == [2.0, 2.0] and log == [("x", [2.0, 2.0])]
    log.clear()
    (gb,) = mg.autograd.grad(out, [b], retain_graph=True)
    assert gb.tolist() == [2.0, 4.0] and log == [("x", [2.0, 2.0]), ("b", [2.0, 4.0])]
    log.clear()
    out.backward()  # no inputs: every hook
    assert sorted(name for name, _ in log) == ["a", "b", "x"]
    np.testing.assert_array_equal(a.grad.numpy(), [6.0, 8.0])


def test_a_leaf_hook_does_not_fire_through_a_view_when_left_out():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    fired: list = []
    a.register_hook(lambda g: fired.append(g))
    (a.expand(2, 2).sum() * b).sum().backward(inputs=[b])
    assert fired == [] and b.grad.tolist() == [6.0, 6.0]


def _hooked(tensors, mode):
    log: list = []
    register_multi_grad_hook(tensors, lambda g: log.append(g), mode=mode)
    return log


def test_multi_grad_hook_all_refuses_a_leaf_input_of_autograd_grad():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    _hooked((a, b), "all")
    with pytest.raises(RuntimeError, match="A leaf node was passed to _will_engine_execute_node"):
        mg.autograd.grad((a * b).sum(), [a])


def test_multi_grad_hook_all_takes_leaves_outside_the_inputs_and_backward_inputs():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    x = a * 2
    log = _hooked((x, b), "all")
    mg.autograd.grad((x * b).sum(), [a])  # b is no input: its node does not run
    assert [[None if g is None else g.tolist() for g in gs] for gs in log] == [[[3.0, 4.0], None]]
    log = _hooked((a, b), "all")
    (a * b).sum().backward(inputs=[b])
    assert [[None if g is None else g.tolist() for g in gs] for gs in log] == [[None, [1.0, 2.0]]]


def test_multi_grad_hook_any_takes_a_leaf_input_of_autograd_grad():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    log = _hooked((a, b), "any")
    (ga,) = mg.autograd.grad((a * b).sum(), [a])
    assert [g.tolist() for g in log] == [[3.0, 4.0]] and ga.tolist() == [3.0, 4.0]


def test_grad_of_a_non_leaf_input_runs_its_tensor_hook_but_not_its_node_hooks():
    """out = sum(2 x), x = a * b: autograd.grad(out, x) stops at x, so x.grad_fn's backward
    does not run: its pre-hook and post-hook stay silent (the tensor hook on x still runs).
    A later full backward then runs both, and the pre-hook's replacement (grad_outputs * 10)
    reaches the leaves: da = 10 * 2 * b (a stale record of the first pass must not be used)."""
    a, b, x, out, log = _graph()
    node_log: list = []

    def pre(grad_outputs):
        node_log.append(("pre", grad_outputs[0].tolist()))
        return (grad_outputs[0] * 10,)

    x.grad_fn.register_prehook(pre)
    x.grad_fn.register_hook(lambda gi, go: node_log.append(("post", go[0].tolist())))
    (gx,) = mg.autograd.grad(out, [x], retain_graph=True)
    assert gx.tolist() == [2.0, 2.0] and node_log == []
    out.backward()
    assert node_log == [("pre", [2.0, 2.0]), ("post", [20.0, 20.0])]
    np.testing.assert_array_equal(a.grad.numpy(), [60.0, 80.0])
    np.testing.assert_array_equal(b.grad.numpy(), [20.0, 40.0])
