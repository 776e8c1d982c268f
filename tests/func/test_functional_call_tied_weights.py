"""functional_call with tied weights, strict and unexpected names, against NumPy."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.func import functional_call


class Tied(nn.Module):
    """Two linear layers sharing one weight: y = W (W x + a) + b."""

    def __init__(self) -> None:
        super().__init__()
        self.a = nn.Linear(3, 3).double()
        self.b = nn.Linear(3, 3).double()
        self.b.weight = self.a.weight

    def forward(self, x):
        return self.b(self.a(x))


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 3)), rng.standard_normal((3, 3))


def _expected(net: Tied, x: np.ndarray, w: np.ndarray) -> np.ndarray:
    a, b = net.a.bias.detach().numpy(), net.b.bias.detach().numpy()
    return (x @ w.T + a) @ w.T + b


@pytest.mark.parametrize("name", ["a.weight", "b.weight"])
def test_a_tied_weight_given_under_either_name_replaces_both_uses(name):
    net, (x, w) = Tied(), _data()
    out = functional_call(net, {name: mg.tensor(w)}, (mg.tensor(x),))
    np.testing.assert_allclose(out.detach().numpy(), _expected(net, x, w))


def test_tie_weights_false_replaces_only_the_name_given():
    net, (x, w) = Tied(), _data()
    out = functional_call(net, {"a.weight": mg.tensor(w)}, (mg.tensor(x),), tie_weights=False)
    own = net.a.weight.detach().numpy()
    a, b = net.a.bias.detach().numpy(), net.b.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), (x @ w.T + a) @ own.T + b)


def test_two_different_values_for_one_tie_are_a_value_error():
    net, (x, w) = Tied(), _data()
    with pytest.raises(ValueError, match="tied"):
        functional_call(net, {"a.weight": mg.tensor(w), "b.weight": mg.tensor(w)}, mg.tensor(x))


def test_strict_counts_a_tie_as_given_and_reports_unexpected_names():
    net, (x, w) = Tied(), _data()
    given = {
        "a.weight": mg.tensor(w),
        "a.bias": mg.zeros(3, dtype=mg.float64),
        "b.bias": mg.zeros(3, dtype=mg.float64),
    }
    functional_call(net, given, mg.tensor(x), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        functional_call(net, {**given, "zz": mg.zeros(1)}, mg.tensor(x), strict=True)


def test_unexpected_names_are_attributes_for_the_call_only():
    lin, (x, _) = nn.Linear(3, 3).double(), _data()
    seen = []
    lin.register_forward_pre_hook(lambda m, inp: seen.append(m.extra.item()))
    functional_call(lin, {"extra": mg.tensor(7.0)}, mg.tensor(x))
    assert seen == [7.0] and not hasattr(lin, "extra")
