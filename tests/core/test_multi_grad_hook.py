"""autograd.graph.register_multi_grad_hook: ``mode="all"`` calls fn once per backward with the
gradients of every tensor that backward reaches (None for the others); ``mode="any"`` once per
backward with the first gradient. Gradients checked against their closed forms."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.graph import register_multi_grad_hook

A = np.array([1.0, 2.0, 3.0])
B = np.array([4.0, -5.0, 6.0])


def _graph():
    a = mg.tensor(A, requires_grad=True)
    b = mg.tensor(B, requires_grad=True)
    return a, b, a * b, a * b  # c and d: two products, one per backward below


def _values(grads) -> list:
    return [None if g is None else g.numpy().tolist() for g in grads]


def test_all_mode_calls_once_with_every_reached_gradient_and_none_for_the_others() -> None:
    a, b, c, d = _graph()
    calls: list = []
    register_multi_grad_hook((a, b, c, d), lambda grads: calls.append(_values(grads)))
    c.sum().backward(retain_graph=True)  # d is not in this graph: None, not waited for
    (2 * c + d).sum().backward()
    ones = np.ones(3).tolist()
    assert calls == [
        [B.tolist(), A.tolist(), ones, None],
        [(3 * B).tolist(), (3 * A).tolist(), (2 * np.ones(3)).tolist(), ones],
    ]


def test_all_mode_sees_the_gradients_before_they_are_accumulated() -> None:
    a, b, c, _ = _graph()
    grads_at_call: list = []
    register_multi_grad_hook((a, b), lambda grads: grads_at_call.append(a.grad))
    (c * c).sum().backward()  # d/da (ab)^2 = 2 a b^2: a's .grad is set after the hooks
    np.testing.assert_allclose(a.grad.numpy(), 2 * A * B**2)
    assert len(grads_at_call) == 1


def test_all_mode_waits_only_for_tensors_that_lead_to_the_inputs_asked_for() -> None:
    a, b, c, d = _graph()
    calls: list = []
    register_multi_grad_hook((a, b, c, d), lambda grads: calls.append(_values(grads)))
    c.sum().backward(inputs=(a,), retain_graph=True)  # b's gradient is not computed
    (grad_c,) = mg.autograd.grad(c.sum(), (c,))  # nothing below c is computed
    assert calls == [[B.tolist(), None, np.ones(3).tolist(), None], [None, None, [1.0] * 3, None]]
    np.testing.assert_allclose(a.grad.numpy(), B)
    assert b.grad is None and grad_c.tolist() == [1.0] * 3


def test_any_mode_calls_once_per_backward_with_the_first_gradient() -> None:
    a, b, c, _ = _graph()
    seen: list = []
    register_multi_grad_hook((a, b, c), lambda g: seen.append(g.numpy().tolist()), mode="any")
    (3 * c).sum().backward(retain_graph=True)
    (5 * c).sum().backward()
    assert seen == [[3.0, 3.0, 3.0], [5.0, 5.0, 5.0]]  # c's gradient comes first each time


def test_any_mode_ignores_tensors_that_need_no_gradient() -> None:
    a = mg.tensor(A, requires_grad=True)
    constant = mg.tensor(B)
    seen: list = []
    register_multi_grad_hook((constant, a), lambda g: seen.append(g.numpy()), mode="any")
    (a * constant).sum().backward()
    np.testing.assert_allclose(seen[0], B)
    assert len(seen) == 1


def test_removing_the_multi_grad_hook_stops_it() -> None:
    a, b, c, _ = _graph()
    calls: list = []
    handle = register_multi_grad_hook((a, b), calls.append)
    handle.remove()
    c.sum().backward()
    assert calls == []


def test_an_unknown_mode_is_a_value_error() -> None:
    a = mg.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="mode to be one of"):
        register_multi_grad_hook((a,), print, mode="some")
