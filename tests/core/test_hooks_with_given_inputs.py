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
