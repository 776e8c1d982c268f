"""``func.functional_call(module, {"weight": v}, args)`` on a module whose ``weight`` is
parametrized (``parametrize.register_parametrization``): as in PyTorch, ``v`` goes through the
parametrization's right_inverse into its original for the call, and afterwards the module's own
weight is back. (It used to stay overwritten by ``v``.) Closed forms: Scale(W) = 2 W."""

import numpy as np

import minigenesis as mg
from minigenesis.nn.utils import parametrize


class Scale(mg.nn.Module):
    def forward(self, X):
        return X * 2

    def right_inverse(self, A):
        return A / 2


def _module():
    m = mg.nn.Linear(4, 3).double()
    parametrize.register_parametrization(m, "weight", Scale())
    return m


def test_functional_call_with_the_parametrized_name_restores_the_weight():
    m = _module()
    w0 = m.weight.detach().numpy().copy()
    x = mg.tensor(np.arange(8.0).reshape(2, 4))
    y = mg.func.functional_call(m, {"weight": mg.ones(3, 4, dtype=mg.float64)}, (x,))
    bias = m.bias.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), x.numpy() @ np.ones((4, 3)) + bias)
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-15)
    np.testing.assert_allclose(
        m.parametrizations.weight.original.detach().numpy(), w0 / 2, rtol=1e-15
    )


def test_functional_call_restores_the_weight_even_when_forward_raises():
    m = _module()
    w0 = m.weight.detach().numpy().copy()
    try:
        mg.func.functional_call(m, {"weight": mg.ones(3, 4, dtype=mg.float64)}, (mg.ones(2, 5),))
    except RuntimeError:
        pass
    np.testing.assert_allclose(m.weight.detach().numpy(), w0, rtol=1e-15)
