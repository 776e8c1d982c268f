"""The padding layers (Zero/Constant/Reflection/Replication/CircularPad 1d/2d/3d): values against
NumPy's np.pad (its 'reflect', 'edge' and 'wrap' modes are the same three rules), float64
finite-difference gradients, reprs, errors, and torch side by side."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck

NP_MODE = {"Reflection": "reflect", "Replication": "edge", "Circular": "wrap"}


def _np_pad(x, padding, dims, mode, value=0.0):
    # padding lists the LAST dim first; np.pad wants one (before, after) per dim in order
    pairs = [(padding[2 * i], padding[2 * i + 1]) for i in range(dims)][::-1]
    widths = [(0, 0)] * (x.ndim - dims) + pairs
    if mode == "constant":
        return np.pad(x, widths, mode="constant", constant_values=value)
    return np.pad(x, widths, mode=mode)


def _layers():
    for dims in (1, 2, 3):
        padding = (2, 1, 0, 2, 1, 1)[: 2 * dims]
        yield f"ZeroPad{dims}d", dims, padding, "constant", 0.0
        yield f"ConstantPad{dims}d", dims, padding, "constant", -1.5
        for kind, mode in NP_MODE.items():
            yield f"{kind}Pad{dims}d", dims, padding, mode, None


LAYERS = list(_layers())


def _make(name, padding, value):
    cls = getattr(nn, name)
    return cls(padding, value) if name.startswith("Constant") else cls(padding)


def _input(dims, batched=True, seed=0):
    shape = ((2,) if batched else ()) + (3,) + (4, 3, 3)[:dims]
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("name,dims,padding,mode,value", LAYERS)
def test_padding_layer_matches_numpy_pad(name, dims, padding, mode, value):
    layer = _make(name, padding, value)
    for batched in (True, False):
        x = _input(dims, batched)
        expected = _np_pad(x, padding, dims, mode, value or 0.0)
        np.testing.assert_array_equal(layer(mg.tensor(x)).numpy(), expected)


@pytest.mark.parametrize("name,dims,padding,mode,value", LAYERS)
def test_padding_layer_gradient_matches_finite_differences(name, dims, padding, mode, value):
    layer = _make(name, padding, value)
    x = mg.tensor(_input(dims, seed=1)[:1, :2], requires_grad=True)
    assert gradcheck(layer, (x,), atol=1e-8, rtol=1e-6)


def test_an_int_padding_pads_every_side():
    assert nn.ReflectionPad2d(2).padding == (2, 2, 2, 2)
    assert nn.ZeroPad3d(1).padding == (1,) * 6
    y = nn.ConstantPad1d(2, 7.0)(mg.tensor([[1.0, 2.0]]))
    np.testing.assert_array_equal(y.numpy(), [[7, 7, 1, 2, 7, 7]])


def test_bad_padding_and_bad_input_dims_are_named():
    with pytest.raises(ValueError, match="padding must be an int or 4 ints"):
        nn.ZeroPad2d((1, 2, 3))
    with pytest.raises(NotImplementedError, match="expected 2D or 3D input"):
        nn.ReflectionPad1d(1)(mg.zeros(1, 1, 4, 4))
    with pytest.raises(RuntimeError, match="reflect padding"):
        nn.ReflectionPad1d(4)(mg.zeros(1, 1, 4))


def test_new_padding_layers_are_in_pytorchs_module_paths():
    assert nn.modules.padding.CircularPad3d is nn.CircularPad3d
    assert nn.modules.padding.ZeroPad1d is nn.ZeroPad1d


@pytest.mark.parametrize("name,dims,padding,mode,value", LAYERS)
def test_padding_layer_matches_torch(name, dims, padding, mode, value):
    torch = pytest.importorskip("torch")
    ours = _make(name, padding, value)
    cls = getattr(torch.nn, name)
    theirs = cls(padding, value) if name.startswith("Constant") else cls(padding)
    assert repr(ours) == repr(theirs)
    x = _input(dims, seed=2)
    a, b = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ya, yb = ours(a), theirs(b)
    np.testing.assert_array_equal(ya.detach().numpy(), yb.detach().numpy())
    g = np.random.default_rng(3).standard_normal(ya.shape)
    ya.backward(mg.tensor(g))
    yb.backward(torch.tensor(g))
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-14)
