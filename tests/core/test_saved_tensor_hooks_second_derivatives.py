"""A backward that records (create_graph=True) through values kept by saved_tensors_hooks or
save_on_cpu: the unpacked value takes the saved tensor's place in the graph (PyTorch's
SavedVariable), so second derivatives equal those without hooks, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = np.linspace(-1.3, 0.9, 6).reshape(2, 3)


def _hooks(kind: str):
    if kind == "identity":
        return mg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)
    if kind == "copy":  # the saved value kept as a detached copy: no graph of its own
        return mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t)
    return mg.autograd.graph.save_on_cpu()


# f, and d/dx of sum(f'(x)^2) in closed form (x a leaf)
CASES = {
    "sin": (lambda x: x.sin(), lambda x: -2 * np.cos(x) * np.sin(x)),
    "x_cubed": (lambda x: x * x * x, lambda x: 2 * (3 * x**2) * 6 * x),
    "exp": (lambda x: x.exp(), lambda x: 2 * np.exp(2 * x)),
    "tanh": (
        lambda x: x.tanh(),
        lambda x: 2 * (1 - np.tanh(x) ** 2) * (-2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    ),
    "sigmoid_times_x": (
        lambda x: x.sigmoid() * x,
        lambda x: (
            lambda s: 2 * (s + x * s * (1 - s)) * (2 * s * (1 - s) + x * s * (1 - s) * (1 - 2 * s))
        )(1 / (1 + np.exp(-x))),
    ),
}


@pytest.mark.parametrize("kind", ["identity", "copy", "save_on_cpu"])
@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("leaf", [True, False])
def test_second_derivative_through_saved_tensor_hooks(name: str, kind: str, leaf: bool) -> None:
    f, closed_form = CASES[name]
    x = mg.tensor(X, requires_grad=True)
    scale = 1.0 if leaf else 1.5
    with _hooks(kind):
        y = f(x if leaf else x * scale)
    (g,) = mg.autograd.grad(y.sum(), x, create_graph=True)
    (g2,) = mg.autograd.grad((g * g).sum(), x)
    # chain rule for a = scale * x: d/dx sum((scale f'(a))^2) = scale^3 * closed_form(a)
    np.testing.assert_allclose(g2.numpy(), scale**3 * closed_form(scale * X), rtol=1e-12)
