"""``Module.register_backward_hook`` (PyTorch's older module backward hook): a hook on the graph
node of the module's output, ``hook(module, grad_input, grad_output)`` with the gradients of that
last op's inputs; a returned tuple replaces them. It cannot be mixed with full backward hooks.
Gradients are closed forms: d/dx sum(sin(x)^2) = 2 sin x cos x."""

import numpy as np
import pytest

import minigenesis as mg


class Sin(mg.nn.Module):
    def forward(self, x):
        return x.sin()


class TwoOps(mg.nn.Module):
    def forward(self, x):
        return (x * 2).exp()


def _x():
    return mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)


def test_the_hook_sees_the_output_node_gradients_and_may_replace_them():
    m, seen = Sin(), []

    def hook(mod, grad_input, grad_output):
        seen.append((mod, grad_input[0].tolist(), grad_output[0].tolist()))
        return (grad_input[0] * 10,)

    m.register_backward_hook(hook)
    x = _x()
    y = m(x * 1)  # (x * 1: the module's input has a graph of its own, as PyTorch's example)
    (y * y).sum().backward()
    xs = np.array([0.5, -1.0, 2.0])
    assert seen[0][0] is m
    np.testing.assert_allclose(seen[0][2], 2 * np.sin(xs), rtol=1e-12)  # d(y^2)/dy
    np.testing.assert_allclose(seen[0][1], 2 * np.sin(xs) * np.cos(xs), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 20 * np.sin(xs) * np.cos(xs), rtol=1e-12)


def test_a_removed_hook_does_not_run():
    m, seen = Sin(), []
    m.register_backward_hook(lambda *a: seen.append(1)).remove()
    m(_x()).sum().backward()
    assert seen == []


def test_a_module_of_several_ops_warns_and_its_hook_sees_only_the_last_op():
    m, seen = TwoOps(), []
    m.register_backward_hook(lambda mod, gi, go: seen.append(gi[0].tolist()))
    x = _x()
    with pytest.warns(FutureWarning, match="multiple autograd Nodes"):
        y = m(x)
    y.sum().backward()
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(seen[0], np.exp(2 * xs), rtol=1e-12)  # d exp(u)/du, not d/dx
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * xs), rtol=1e-12)


def test_backward_hooks_of_both_kinds_on_one_module_are_refused():
    m = Sin()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both"):
        m.register_backward_hook(lambda *a: None)
    m = Sin()
    m.register_backward_hook(lambda *a: None)
    with pytest.raises(RuntimeError, match="Cannot use both"):
        m.register_full_backward_hook(lambda *a: None)


def test_a_global_older_backward_hook_runs_for_every_module_before_its_own():
    m, seen = Sin(), []
    m.register_backward_hook(lambda mod, gi, go: seen.append("own"))
    register = mg.nn.modules.module.register_module_backward_hook
    handle = register(lambda mod, gi, go: seen.append(type(mod).__name__) or (gi[0] * 2,))
    try:
        x = _x()
        m(x * 1).sum().backward()
        relu = mg.nn.ReLU()
        relu(x * 1).sum().backward()
    finally:
        handle.remove()
    assert seen == ["Sin", "own", "ReLU"]
    xs = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(xs) + 2 * (xs > 0), rtol=1e-12)
    Sin()(_x()).sum().backward()  # removed: no longer called
    assert seen == ["Sin", "own", "ReLU"]


def test_global_backward_hooks_of_both_kinds_are_refused():
    full = mg.nn.modules.module.register_module_full_backward_hook(lambda *a: None)
    try:
        with pytest.raises(RuntimeError, match="Cannot use both"):
            mg.nn.modules.module.register_module_backward_hook(lambda *a: None)
    finally:
        full.remove()
