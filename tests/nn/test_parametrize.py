"""nn.utils.parametrize (register_parametrization, right_inverse, cached, remove) and weight
normalisation (parametrizations.weight_norm and the older hook form): values against the
closed forms, gradients to the original tensors against central differences."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck
from minigenesis.nn.utils import parametrize as P


class Symmetric(nn.Module):
    def forward(self, x):
        return x.triu() + x.triu(1).mT

    def right_inverse(self, a):
        return a.triu()


class Scale(nn.Module):
    def forward(self, x):
        return 2 * x

    def right_inverse(self, a):
        return a / 2


def test_a_parametrized_weight_is_recomputed_from_the_original_on_every_read():
    layer = nn.Linear(3, 3)
    original = layer.weight
    P.register_parametrization(layer, "weight", Symmetric())
    assert type(layer).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(layer) is nn.Linear and P.is_parametrized(layer, "weight")
    w = layer.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    # the learned tensor is the same Parameter object, now holding right_inverse(w) = triu(w)
    assert layer.parametrizations.weight.original is original
    assert [n for n, _ in layer.named_parameters()] == ["bias", "parametrizations.weight.original"]
    with mg.no_grad():
        layer.parametrizations.weight.original.add_(1.0)
    np.testing.assert_allclose(layer.weight.detach().numpy(), w + 1.0)  # read again: recomputed


def test_assigning_to_a_parametrized_tensor_goes_through_right_inverse():
    layer = nn.Linear(2, 2)
    P.register_parametrization(layer, "weight", Symmetric())
    P.register_parametrization(layer, "weight", Scale())  # a chain: 2 * sym(original)
    target = mg.tensor([[1.0, 2.0], [2.0, 5.0]])
    layer.weight = target
    np.testing.assert_allclose(layer.weight.detach().numpy(), target.numpy())
    np.testing.assert_allclose(
        layer.parametrizations.weight.original.detach().numpy(), [[0.5, 1.0], [0.0, 2.5]]
    )


def test_the_gradient_reaches_the_original_through_the_parametrization():
    layer = nn.Linear(3, 3).double()
    P.register_parametrization(layer, "weight", Symmetric())
    x = mg.randn(4, 3, dtype=mg.float64)
    original = layer.parametrizations.weight.original

    def loss(o):
        return x @ (o.triu() + o.triu(1).mT).mT

    layer(x).sum().backward()
    want = mg.autograd.grad(loss(original).sum(), original)[0]
    np.testing.assert_allclose(original.grad.numpy(), want.numpy(), rtol=1e-12)
    assert gradcheck(loss, (original.detach().clone().requires_grad_(),))


def test_cached_computes_a_parametrized_tensor_once_per_block():
    calls = []

    class Counting(nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 1.0

    layer = nn.Linear(2, 2)
    P.register_parametrization(layer, "weight", Counting())
    calls.clear()
    with P.cached():
        a, b = layer.weight, layer.weight
    assert a is b and len(calls) == 1
    layer.weight, layer.weight  # noqa: B018  (outside: every read computes)
    assert len(calls) == 3


def test_remove_parametrizations_leaves_a_plain_parameter_and_the_class_restored():
    layer = nn.Linear(2, 2)
    P.register_parametrization(layer, "weight", Scale())
    value = layer.weight.detach().numpy().copy()
    P.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and not P.is_parametrized(layer)
    assert isinstance(layer.weight, nn.Parameter)
    np.testing.assert_allclose(layer.weight.detach().numpy(), value)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]


def test_a_parametrization_that_changes_the_shape_is_refused_unless_unsafe():
    class Row(nn.Module):
        def forward(self, x):
            return x[0]

    with pytest.raises(ValueError, match="shape"):
        P.register_parametrization(nn.Linear(2, 3), "weight", Row())
    with pytest.raises(ValueError, match="does not have"):
        P.register_parametrization(nn.Linear(2, 3), "nope", Scale())


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_parametrization_is_g_v_over_the_norm_of_v(dim):
    conv = nn.Conv2d(2, 3, 3).double()
    w0 = conv.weight.detach().numpy().copy()
    nn.utils.parametrizations.weight_norm(conv, dim=dim)
    g = conv.parametrizations.weight.original0.detach().numpy()
    v = conv.parametrizations.weight.original1.detach().numpy()
    axes = None if dim is None else tuple(a for a in range(4) if a != dim)
    norm = np.sqrt((v**2).sum(axis=axes, keepdims=dim is not None))
    np.testing.assert_allclose(g, norm, rtol=1e-14)  # registered at w's own value
    np.testing.assert_allclose(conv.weight.detach().numpy(), w0, rtol=1e-14)
    g2 = mg.tensor(g * 3, requires_grad=True)
    v2 = mg.tensor(v, requires_grad=True)
    math = conv.parametrizations.weight[0]
    np.testing.assert_allclose(math(g2, v2).detach().numpy(), 3 * w0, rtol=1e-14)
    assert gradcheck(math, (g2, v2))


def test_the_older_weight_norm_hook_recomputes_the_weight_before_each_call():
    layer = nn.Linear(3, 2).double()
    w0 = layer.weight.detach().numpy().copy()
    with pytest.warns(FutureWarning):
        nn.utils.weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_g", "weight_v"]
    assert tuple(layer.weight_g.shape) == (2, 1)
    with mg.no_grad():
        layer.weight_g.mul_(2.0)
    x = mg.randn(5, 3, dtype=mg.float64)
    np.testing.assert_allclose(
        layer(x).detach().numpy(), x.numpy() @ (2 * w0).T + layer.bias.detach().numpy()
    )
    layer(x).sum().backward()
    assert layer.weight_g.grad is not None and layer.weight_v.grad is not None
    nn.utils.remove_weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(layer.weight.detach().numpy(), 2 * w0, rtol=1e-14)
