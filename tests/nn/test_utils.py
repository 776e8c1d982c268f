"""nn.utils: gradient clipping against closed forms, parameters <-> vector."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.utils as nn_utils
from minigenesis import nn

RNG = np.random.default_rng(0)


def params_with_grads(shapes=((3, 4), (5,), (2, 2, 2)), scale=3.0, dtype=mg.float64):
    params = []
    for s in shapes:
        p = nn.Parameter(mg.zeros(*s, dtype=dtype))
        p.grad = mg.tensor(RNG.standard_normal(s) * scale, dtype=dtype)
        params.append(p)
    return params


def flat(params):
    return np.concatenate([p.grad.numpy().ravel() for p in params])


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
def test_clip_grad_norm_returns_the_pre_clip_norm_and_scales_to_max_norm(p):
    params = params_with_grads()
    g = flat(params)
    expected = np.abs(g).max() if p == math.inf else (np.abs(g) ** p).sum() ** (1 / p)
    total = nn_utils.clip_grad_norm_(params, max_norm=1.0, norm_type=p)
    assert isinstance(total, mg.Tensor) and total.ndim == 0
    assert total.item() == pytest.approx(expected, rel=1e-12)
    clipped = flat(params)
    np.testing.assert_allclose(clipped, g * (1.0 / (expected + 1e-6)), rtol=1e-12)
    new_norm = np.abs(clipped).max() if p == math.inf else (np.abs(clipped) ** p).sum() ** (1 / p)
    assert new_norm == pytest.approx(1.0, rel=1e-5)


def test_clip_grad_norm_leaves_small_gradients_alone_and_skips_missing_grads():
    params = params_with_grads(scale=1e-3)
    params.append(nn.Parameter(mg.zeros(3)))  # no .grad
    before = flat(params[:-1])
    total = nn_utils.clip_grad_norm_(iter(params), max_norm=10.0)
    np.testing.assert_array_equal(flat(params[:-1]), before)
    assert total.item() == pytest.approx(np.linalg.norm(before))
    assert nn_utils.clip_grad_norm_([], 1.0).item() == 0.0
    single = params_with_grads(shapes=((4,),))[0]
    assert nn_utils.clip_grad_norm_(single, 1.0).item() > 0  # a lone tensor is accepted


def test_clip_grad_norm_float32_and_low_precision_gradients():
    params = params_with_grads(dtype=mg.float32)
    ref = np.linalg.norm(flat(params).astype(np.float64))
    assert nn_utils.clip_grad_norm_(params, 1.0).item() == pytest.approx(ref, rel=1e-5)
    assert params[0].grad.dtype is mg.float32
    # float16 gradients whose squares overflow float16 (300^2 > 65504): the norm is still right
    p = nn.Parameter(mg.zeros(4, dtype=mg.float16))
    p.grad = mg.full((4,), 300.0, dtype=mg.float16)
    assert nn_utils.clip_grad_norm_([p], 1.0).item() == pytest.approx(600.0, rel=1e-3)


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # inf * 0 = nan, as torch
def test_clip_grad_norm_nonfinite():
    params = params_with_grads()
    params[1].grad._data[0] = np.inf
    with pytest.raises(RuntimeError, match="non-finite"):
        nn_utils.clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    assert math.isinf(nn_utils.clip_grad_norm_(params, 1.0).item())


def test_clip_grad_value():
    params = params_with_grads()
    g = flat(params)
    assert nn_utils.clip_grad_value_(params, clip_value=0.5) is None
    np.testing.assert_array_equal(flat(params), np.clip(g, -0.5, 0.5))


def test_clip_grad_norm_matches_pytorch():
    torch = pytest.importorskip("torch")
    grads = [RNG.standard_normal(s).astype(np.float32) * 2 for s in ((4, 3), (7,))]
    for p in (2.0, 1.0, math.inf, 4.0):
        tp = [torch.zeros(g.shape, requires_grad=True) for g in grads]
        mp = [nn.Parameter(mg.zeros(*g.shape)) for g in grads]
        for t, m, g in zip(tp, mp, grads):
            t.grad = torch.tensor(g)
            m.grad = mg.tensor(g)
        tn = torch.nn.utils.clip_grad_norm_(tp, 0.7, norm_type=p)
        mn = nn_utils.clip_grad_norm_(mp, 0.7, norm_type=p)
        assert mn.item() == pytest.approx(tn.item(), rel=1e-5)
        for t, m in zip(tp, mp):
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_parameters_to_vector_and_back():
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    vec = nn_utils.parameters_to_vector(model.parameters())
    assert vec.shape == (3 * 4 + 4 + 4 * 2 + 2,)
    np.testing.assert_array_equal(
        vec.detach().numpy(),
        np.concatenate([p.detach().numpy().ravel() for p in model.parameters()]),
    )
    (vec * vec).sum().backward()  # differentiable
    np.testing.assert_allclose(model[0].weight.grad.numpy(), 2 * model[0].weight.detach().numpy())

    objs = [id(p) for p in model.parameters()]
    nn_utils.vector_to_parameters(mg.arange(vec.numel()).float(), model.parameters())
    assert [id(p) for p in model.parameters()] == objs
    np.testing.assert_array_equal(model[0].weight.detach().numpy().ravel(), np.arange(12))
    np.testing.assert_array_equal(model[2].bias.detach().numpy(), [24, 25])
    with pytest.raises(ValueError, match="the parameters need 26"):
        nn_utils.vector_to_parameters(mg.zeros(5), model.parameters())
    with pytest.raises(ValueError, match="1-D"):
        nn_utils.vector_to_parameters(mg.zeros(2, 13), model.parameters())


def test_both_import_spellings_work():
    assert mg.nn.utils.clip_grad_norm_ is nn_utils.clip_grad_norm_
    from minigenesis.nn.utils import clip_grad_value_

    assert clip_grad_value_ is nn_utils.clip_grad_value_


@pytest.mark.parametrize(
    "clip, name, bad",
    [
        (lambda ps, v: nn_utils.clip_grad_norm_(ps, v), "max_norm", -1.0),
        (lambda ps, v: nn_utils.clip_grad_norm_(ps, v), "max_norm", math.nan),
        (lambda ps, v: nn_utils.clip_grad_norm_(ps, 1.0, norm_type=v), "norm_type", math.nan),
        (lambda ps, v: nn_utils.clip_grad_value_(ps, v), "clip_value", -0.5),
        (lambda ps, v: nn_utils.clip_grad_value_(ps, v), "clip_value", math.nan),
    ],
    ids=["max_norm=-1", "max_norm=nan", "norm_type=nan", "clip_value=-0.5", "clip_value=nan"],
)
def test_clipping_refuses_a_negative_or_nan_bound_and_leaves_the_gradients_alone(clip, name, bad):
    """A negative max_norm would flip every gradient's sign, a negative clip_value set every
    element to it, NaN make every gradient NaN: refused, naming the argument and the value."""
    g = np.array([3.0, -4.0])
    p = mg.zeros(2, dtype=mg.float64, requires_grad=True)
    p.grad = mg.tensor(g)
    with pytest.raises(ValueError, match=rf"Invalid {name}: {bad} \({name} must be"):
        clip([p], bad)
    np.testing.assert_array_equal(p.grad.numpy(), g)


def test_clipping_with_an_infinite_bound_measures_and_changes_nothing():
    g = np.array([3.0, -4.0])
    p = mg.zeros(2, dtype=mg.float64, requires_grad=True)
    p.grad = mg.tensor(g)
    assert nn_utils.clip_grad_norm_([p], math.inf).item() == 5.0
    nn_utils.clip_grad_value_([p], math.inf)
    np.testing.assert_array_equal(p.grad.numpy(), g)
