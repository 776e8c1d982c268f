"""Hooks on a graph node (PyTorch's ``y.grad_fn.register_prehook`` / ``register_hook``): a
pre-hook sees ``grad_outputs`` before the node's backward and may replace them; a hook sees
``(grad_inputs, grad_outputs)`` after it and may replace ``grad_inputs``. The gradients are
closed forms (d/dx of x * w is w, of sin x is cos x)."""

import numpy as np
import pytest

import minigenesis as mg


def _xw():
    x = mg.tensor([1.0, -2.0, 0.5], dtype=mg.float64, requires_grad=True)
    w = mg.tensor([3.0, 0.5, -1.0], dtype=mg.float64, requires_grad=True)
    return x, w


def test_node_hooks_see_the_gradients_of_outputs_and_inputs():
    x, w = _xw()
    y = x * w
    seen = []
    y.grad_fn.register_prehook(lambda go: seen.append(("pre", go[0].tolist())))
    y.grad_fn.register_hook(
        lambda gi, go: seen.append(("post", [g.tolist() for g in gi], go[0].tolist()))
    )
    (y * mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)).sum().backward()
    v = [1.0, 2.0, 3.0]
    assert seen == [
        ("pre", v),
        ("post", [[3.0, 1.0, -3.0], [1.0, -4.0, 1.5]], v),  # (v * w, v * x)
    ]


def test_a_prehook_replaces_grad_outputs_and_a_hook_replaces_grad_inputs():
    x, w = _xw()
    y = x.sin()
    y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
    y.sum().backward()
    expect = 2 * np.cos([1.0, -2.0, 0.5]) + 1
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-12)


def test_removed_node_hooks_do_not_run():
    x, w = _xw()
    y = x * w
    calls = []
    handles = [
        y.grad_fn.register_prehook(lambda go: calls.append("pre")),
        y.grad_fn.register_hook(lambda gi, go: calls.append("post")),
    ]
    for h in handles:
        h.remove()
    y.sum().backward()
    assert calls == []
    np.testing.assert_array_equal(x.grad.numpy(), w.detach().numpy())


def test_hooks_see_only_the_inputs_pytorch_lists_and_none_for_a_missing_output_grad():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=mg.float64, requires_grad=True)
    s = x.sum(0)  # SumBackward1: one input (x), not dim / keepdim
    seen = []
    s.grad_fn.register_hook(lambda gi, go: seen.append(len(gi)))
    s.sum().backward()
    assert seen == [1]
    parts = x.split(1)  # SplitBackward0: the first piece gets no gradient
    seen.clear()
    parts[1].grad_fn.register_prehook(lambda go: seen.append([g is None for g in go]))
    parts[1].grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in go]))
    parts[1].sum().backward()
    assert seen == [[True, False], [True, False]]


def test_tensor_hooks_run_before_the_node_prehook():
    x, _ = _xw()
    y = x.exp()
    order = []
    y.register_hook(lambda g: order.append("tensor") or g * 3)
    y.grad_fn.register_prehook(lambda go: order.append(("node", go[0].tolist())))
    y.sum().backward()
    assert order == ["tensor", ("node", [3.0, 3.0, 3.0])]


def test_a_hook_returning_the_wrong_number_of_gradients_is_refused():
    x, w = _xw()
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="incorrect number of values"):
        y.sum().backward()


class _ScaleBy(mg.autograd.Function):
    @staticmethod
    def forward(ctx, a, k, b):
        return a * k * b

    @staticmethod
    def backward(ctx, g):
        return g * 5, None, g


def test_a_custom_function_lists_and_hooks_only_its_tensor_arguments():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = _ScaleBy.apply(x, 3.0, mg.ones(2))  # the number 3.0 is not an input of the node
    assert len(y.grad_fn.next_functions) == 2
    assert y.grad_fn.next_functions[1] == (None, 0)  # a tensor that needs no gradient
    seen = []
    y.grad_fn.register_hook(lambda gi, go: seen.append([g.tolist() for g in gi]))
    y.sum().backward()
    assert seen == [[[5.0, 5.0], [1.0, 1.0]]]
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0])
