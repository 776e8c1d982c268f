"""register_module_full_backward_pre_hook / register_module_full_backward_hook
(torch.nn.modules.module): backward hooks on every module's call, run before the module's own
backward hooks, with the gradients checked against the closed form of tanh(x W^T + b)."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.modules.module import (
    Module,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
)

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]])
W = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
B = np.array([0.05, -0.1])
Y = np.tanh(X @ W.T + B)  # d(sum y)/dz = 1 - y^2, dz/dx = W


def _model() -> nn.Sequential:
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    with mg.no_grad():
        model[0].weight.copy_(mg.tensor(W))
        model[0].bias.copy_(mg.tensor(B))
    return model


def test_global_backward_hooks_run_on_every_module_before_its_own() -> None:
    model, log = _model(), []
    model[0].register_full_backward_pre_hook(lambda m, go: log.append("Linear pre (own)"))
    model[0].register_full_backward_hook(lambda m, gi, go: log.append("Linear hook (own)"))
    pre = register_module_full_backward_pre_hook(
        lambda m, go: log.append(f"{type(m).__name__} pre")
    )
    post = register_module_full_backward_hook(
        lambda m, gi, go: log.append(f"{type(m).__name__} hook")
    )
    try:
        model(mg.tensor(X, requires_grad=True)).sum().backward()
    finally:
        pre.remove()
        post.remove()
    assert log == [
        "Sequential pre",
        "Tanh pre",
        "Tanh hook",
        "Linear pre",
        "Linear pre (own)",
        "Linear hook",
        "Linear hook (own)",
        "Sequential hook",
    ]


def test_global_backward_hooks_see_each_modules_gradients() -> None:
    model, seen = _model(), {}

    def hook(m, grad_input, grad_output):
        seen[type(m).__name__] = (grad_input[0].numpy(), grad_output[0].numpy())

    handle = register_module_full_backward_hook(hook)
    try:
        model(mg.tensor(X, requires_grad=True)).sum().backward()
    finally:
        handle.remove()
    dz = 1 - Y**2
    np.testing.assert_allclose(seen["Tanh"][0], dz, rtol=1e-12)
    np.testing.assert_allclose(seen["Tanh"][1], np.ones_like(Y))
    np.testing.assert_allclose(seen["Linear"][0], dz @ W, rtol=1e-12)
    np.testing.assert_allclose(seen["Linear"][1], dz, rtol=1e-12)
    np.testing.assert_allclose(seen["Sequential"][0], dz @ W, rtol=1e-12)


def test_global_backward_hooks_replace_gradients_that_the_module_hooks_then_see() -> None:
    model, own = _model(), []
    model[0].register_full_backward_hook(lambda m, gi, go: own.append(gi[0].numpy()))
    pre = register_module_full_backward_pre_hook(
        lambda m, go: (go[0] * 3,) if isinstance(m, nn.Tanh) else None
    )
    post = register_module_full_backward_hook(
        lambda m, gi, go: (gi[0] * 2,) if isinstance(m, nn.Linear) else None
    )
    x = mg.tensor(X, requires_grad=True)
    try:
        model(x).sum().backward()
    finally:
        pre.remove()
        post.remove()
    dz = 3 * (1 - Y**2)  # the pre-hook tripled Tanh's grad_output
    np.testing.assert_allclose(model[0].weight.grad.numpy(), dz.T @ X, rtol=1e-12)
    np.testing.assert_allclose(own[0], 2 * dz @ W, rtol=1e-12)  # after the global hook
    np.testing.assert_allclose(x.grad.numpy(), 2 * dz @ W, rtol=1e-12)


def test_removing_the_global_backward_hooks_stops_them_and_restores_the_plain_call() -> None:
    plain, log = Module.__call__, []
    pre = register_module_full_backward_pre_hook(lambda m, go: log.append("pre"))
    post = register_module_full_backward_hook(lambda m, gi, go: log.append("hook"))
    assert Module.__call__ is not plain
    pre.remove()
    assert Module.__call__ is not plain  # one global hook is left
    post.remove()
    assert Module.__call__ is plain
    _model()(mg.tensor(X, requires_grad=True)).sum().backward()
    assert log == []


def test_global_backward_hook_gets_none_grad_input_where_no_input_needs_a_gradient() -> None:
    model, seen = _model(), []
    handle = register_module_full_backward_hook(
        lambda m, gi, go: seen.append((type(m).__name__, gi[0]))
    )
    try:  # only the weights need gradients (PyTorch warns that the hooks fire early)
        with pytest.warns(UserWarning, match="Full backward hook is firing when gradients"):
            model(mg.tensor(X)).sum().backward()
    finally:
        handle.remove()
    # Sequential's and Linear's input needs none: their hooks run when grad_output is known
    assert [name for name, _ in seen] == ["Sequential", "Tanh", "Linear"]
    assert seen[0][1] is None and seen[2][1] is None
    np.testing.assert_allclose(seen[1][1].numpy(), 1 - Y**2, rtol=1e-12)


def test_a_module_returning_a_dict_warns_that_backward_hooks_cannot_see_its_outputs() -> None:
    class Named(nn.Module):
        def forward(self, x):
            return {"y": x * 2}

    handle = register_module_full_backward_hook(lambda m, gi, go: None)
    try:
        with pytest.warns(UserWarning, match="module output should be a Tensor or a tuple"):
            out = Named()(mg.ones(2, requires_grad=True))
    finally:
        handle.remove()
    assert out["y"].tolist() == [2.0, 2.0]
