"""``nn.Buffer`` assigned to a Module attribute registers a buffer (persistent or not), and
``nn.parameter`` holds the lazy placeholders beside Parameter, as PyTorch's module does."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


class _Stats(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.mean = nn.Buffer(mg.zeros(3))
        self.scratch = nn.Buffer(mg.ones(2), persistent=False)
        self.lin = nn.Linear(3, 1)


def test_assigned_buffer_is_registered_and_persistent_by_default() -> None:
    m = _Stats()
    assert [n for n, _ in m.named_buffers()] == ["mean", "scratch"]
    assert "mean" in m.state_dict() and "scratch" not in m.state_dict()
    assert [n for n, _ in m.named_parameters()] == ["lin.weight", "lin.bias"]
    assert type(m.mean) is mg.Tensor  # a plain tensor once registered
    m.load_state_dict({"mean": mg.tensor([1.0, 2.0, 3.0]), **m.lin.state_dict(prefix="lin.")})
    np.testing.assert_array_equal(m.mean.numpy(), [1.0, 2.0, 3.0])


def test_buffer_detaches_and_marks_without_new_class() -> None:
    x = mg.ones(2, requires_grad=True)
    b = nn.Buffer(x * 2)
    assert isinstance(b, nn.Buffer) and isinstance(b, mg.Tensor)
    assert b.grad_fn is None and b.persistent is True
    assert not isinstance(mg.ones(2), nn.Buffer)
    assert nn.parameter.Buffer is nn.Buffer


def test_buffer_before_module_init_is_an_error() -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.b = nn.Buffer(mg.zeros(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_lazy_placeholders_live_in_nn_parameter() -> None:
    lin = nn.LazyLinear(4)
    assert isinstance(lin.weight, nn.parameter.UninitializedParameter)
    assert nn.parameter.UninitializedParameter is nn.UninitializedParameter
    assert nn.parameter.UninitializedBuffer is nn.UninitializedBuffer
    assert nn.parameter.is_lazy(lin.weight)
    lin(mg.ones(2, 5))
    assert type(lin.weight) is nn.Parameter and lin.weight.shape == (4, 5)
