"""A parametrized module (its class swapped for a made Parametrized<Class>) refuses pickling with
PyTorch's RuntimeError (use state_dict), while copy.deepcopy gives an independent module that
computes the same function. Oracle: NumPy, x @ W_sym.T + b with W_sym = triu(W) + triu(W, 1).T."""

import copy
import io
import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import parametrize


class Symmetric(mg.nn.Module):
    def forward(self, w):
        return w.triu() + w.triu(1).transpose(-1, -2)


def _layer():
    layer = mg.nn.Linear(2, 2)
    with mg.no_grad():
        layer.weight.copy_(mg.tensor([[1.0, 2.0], [3.0, 4.0]]))
        layer.bias.copy_(mg.tensor([0.5, -0.5]))
    parametrize.register_parametrization(layer, "weight", Symmetric())
    return layer


@pytest.mark.parametrize(
    "how",
    [
        lambda m: pickle.dumps(m),
        lambda m: copy.copy(m),
        lambda m: mg.save(m, io.BytesIO()),
    ],
    ids=["pickle", "copy", "save"],
)
def test_pickling_a_parametrized_module_is_refused_with_pytorchs_error(how):
    with pytest.raises(RuntimeError, match="only supported through state_dict"):
        how(_layer())


def test_deepcopied_parametrized_module_computes_the_same_and_is_independent():
    layer = _layer()
    twin = copy.deepcopy(layer)
    x = np.array([[1.0, -1.0], [2.0, 0.5]], dtype=np.float32)
    w = np.array([[1.0, 2.0], [2.0, 4.0]], dtype=np.float32)  # triu + its transpose
    expected = x @ w.T + np.array([0.5, -0.5], dtype=np.float32)
    np.testing.assert_allclose(twin(mg.tensor(x)).detach().numpy(), expected, rtol=1e-6)
    with mg.no_grad():
        twin.parametrizations.weight.original.add_(1.0)
    np.testing.assert_allclose(layer(mg.tensor(x)).detach().numpy(), expected, rtol=1e-6)
    sd = twin.state_dict()  # the state_dict route PyTorch's error points to still works
    np.testing.assert_allclose(sd["parametrizations.weight.original"].numpy(), [[2, 3], [4, 5]])
