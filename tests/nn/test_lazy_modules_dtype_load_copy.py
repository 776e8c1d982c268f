"""Lazy modules after a dtype change, inside a model that loads a checkpoint, and copied or
pickled before their first call."""

from __future__ import annotations

import copy
import io
import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


@pytest.mark.parametrize(
    "make, x",
    [
        (lambda: nn.LazyLinear(3), (2, 5)),
        (lambda: nn.LazyConv2d(3, 2), (1, 2, 4, 4)),
        (lambda: nn.LazyConvTranspose1d(3, 2), (1, 2, 4)),
        (lambda: nn.LazyBatchNorm2d(), (2, 3, 2, 2)),
    ],
)
def test_a_lazy_module_made_double_materializes_in_float64(make, x):
    layer = make().double()
    y = layer(mg.ones(*x, dtype=mg.float64))  # (float32 tensors here were a dtype error)
    assert y.dtype == mg.float64
    assert all(t.dtype == mg.float64 for t in layer.parameters())
    assert all(b.dtype == mg.float64 for b in layer.buffers() if b.is_floating_point())


def test_a_model_holding_lazy_layers_loads_a_checkpoint_before_the_first_call():
    mg.manual_seed(0)
    trained = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.BatchNorm1d(4, affine=False))
    trained[2].running_mean.fill_(0.5)
    model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyBatchNorm1d(affine=False)).double()
    model.load_state_dict(trained.state_dict())
    assert tuple(model[0].weight.shape) == (4, 5) and model[0].weight.dtype == mg.float64
    np.testing.assert_array_equal(
        model[0].weight.detach().numpy(), trained[0].weight.detach().numpy()
    )
    np.testing.assert_array_equal(model[2].running_mean.numpy(), np.full(4, 0.5))
    model.eval()
    x = np.random.default_rng(0).standard_normal((3, 5))
    w, b = trained[0].weight.detach().numpy(), trained[0].bias.detach().numpy()
    rv = trained[2].running_var.numpy()
    want = (np.maximum(x @ w.T + b, 0) - 0.5) / np.sqrt(rv + 1e-5)
    np.testing.assert_allclose(model(mg.tensor(x)).detach().numpy(), want, rtol=1e-6)


def test_the_state_dict_of_a_lazy_module_keeps_it_lazy_where_it_is_loaded():
    sd = nn.LazyLinear(3).state_dict()
    assert isinstance(sd["weight"], nn.UninitializedParameter)
    other = nn.LazyLinear(3)
    other.load_state_dict(sd)
    assert other.has_uninitialized_params()
    assert tuple(other(mg.ones(2, 6)).shape) == (2, 3)
    with pytest.raises(RuntimeError):  # a materialized layer cannot take a placeholder
        nn.Linear(6, 3).load_state_dict(sd)


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))])
def test_a_copied_or_pickled_lazy_module_is_still_lazy(clone):
    model = clone(nn.Sequential(nn.LazyLinear(3), nn.LazyBatchNorm1d()).double())
    assert model[0].has_uninitialized_params() and model[1].has_uninitialized_params()
    y = model(mg.ones(2, 5, dtype=mg.float64))
    assert tuple(y.shape) == (2, 3) and tuple(model[0].weight.shape) == (3, 5)
    assert model[1].running_mean.dtype == mg.float64


def test_a_lazy_model_saved_whole_loads_lazy():
    buf = io.BytesIO()
    mg.save(nn.Sequential(nn.LazyConv1d(2, 3)), buf)
    buf.seek(0)
    model = mg.load(buf, weights_only=False)
    assert tuple(model(mg.ones(1, 4, 6)).shape) == (1, 2, 4)
    assert tuple(model[0].weight.shape) == (2, 4, 3)


def test_an_uninitialized_parameter_refuses_to_report_made_up_values():
    """Before its first call a lazy layer's weight has no shape: counting or reading it raises
    PyTorch's ValueError (the empty placeholder answered 0)."""
    lazy = mg.nn.LazyLinear(3)
    for use in (
        lambda p: sum(q.numel() for q in lazy.parameters()),
        lambda p: p.dim(),
        lambda p: p.sum(),
        lambda p: p.norm(),
        lambda p: p.tolist(),
        lambda p: p.mul_(2),
    ):
        with pytest.raises(ValueError, match="uninitialized parameter"):
            use(lazy.weight)
    assert lazy.weight.dtype == mg.float32 and lazy.weight.requires_grad  # still allowed
    lazy(mg.ones(2, 5))
    assert sum(q.numel() for q in lazy.parameters()) == 3 * 5 + 3
