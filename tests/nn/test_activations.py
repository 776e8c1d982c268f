"""LogSigmoid, Softmin, Softsign, Tanhshrink, Hardswish, Hardsigmoid, SELU, CELU, GLU, Threshold,
ReLU6, RReLU, Softshrink, Hardshrink, Softmax2d: values against NumPy formulas, float64
finite-difference gradients away from the kinks, PyTorch's subgradient at the kinks, in-place
forms, reprs and clear errors; and, when torch is installed, values + gradients + reprs side by
side with torch."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck

ALPHA, SCALE = 1.6732632423543772, 1.0507009873554805


def _both(expr: str, torch):
    """The layer ``nn.<expr>`` built by minigenesis and by torch (the same constructor call)."""
    return eval(f"nn.{expr}", {"nn": nn}), eval(f"nn.{expr}", {"nn": torch.nn})


def _np_softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _sig(x):
    return 1 / (1 + np.exp(-x))


# name -> (module, numpy reference of the forward)
CASES = {
    "logsigmoid": (nn.LogSigmoid(), lambda x: np.log(_sig(x))),
    "softmin": (nn.Softmin(dim=1), lambda x: _np_softmax(-x, 1)),
    "softsign": (nn.Softsign(), lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (nn.Tanhshrink(), lambda x: x - np.tanh(x)),
    "hardswish": (nn.Hardswish(), lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (nn.Hardsigmoid(), lambda x: np.clip(x + 3, 0, 6) / 6),
    "selu": (nn.SELU(), lambda x: SCALE * np.where(x > 0, x, ALPHA * np.expm1(x))),
    "celu": (nn.CELU(0.7), lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * np.expm1(x / 0.7))),
    "glu": (nn.GLU(dim=1), lambda x: x[:, :2] * _sig(x[:, 2:])),
    "threshold": (nn.Threshold(0.3, -2.0), lambda x: np.where(x > 0.3, x, -2.0)),
    "relu6": (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    "rrelu_eval": (nn.RReLU(0.1, 0.3).eval(), lambda x: np.where(x > 0, x, 0.2 * x)),
    "softshrink": (
        nn.Softshrink(0.4),
        lambda x: np.where(x > 0.4, x - 0.4, np.where(x < -0.4, x + 0.4, 0)),
    ),
    "hardshrink": (nn.Hardshrink(0.4), lambda x: np.where(np.abs(x) > 0.4, x, 0)),
    "softmax2d": (nn.Softmax2d(), lambda x: _np_softmax(x, -3)),
}


def _input(seed=0, shape=(2, 4, 3, 3)):
    # spread over [-8, 8] so every piece of every piecewise function is hit
    return np.random.default_rng(seed).uniform(-8, 8, shape)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_forward_matches_numpy_formula(name):
    module, ref = CASES[name]
    x = _input()
    y = module(mg.tensor(x))
    np.testing.assert_allclose(y.numpy(), ref(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(CASES))
def test_activation_gradient_matches_finite_differences(name):
    module, _ = CASES[name]
    x = _input(1)
    # keep every point at least 1e-3 from the kinks, where a difference quotient straddles them
    kinks = np.array([-3, 0, 3, 6, 0.3, 0.4, -0.4])
    near = np.abs(x[..., None] - kinks).min(-1) < 1e-3
    x[near] += 0.01
    t = mg.tensor(x, requires_grad=True)
    assert gradcheck(module, (t,), eps=1e-6, atol=1e-7, rtol=1e-5)


def _grad_at(fn, points):
    t = mg.tensor(points, dtype=mg.float64, requires_grad=True)
    fn(t).sum().backward()
    return t.grad.numpy()


def test_kinks_take_pytorchs_subgradient():
    pts = [-3.0, 0.0, 3.0, 6.0]
    np.testing.assert_array_equal(_grad_at(F.relu6, pts), [0, 0, 1, 0])
    np.testing.assert_array_equal(_grad_at(F.hardswish, pts), [0, 0.5, 1, 1])
    np.testing.assert_allclose(_grad_at(F.hardsigmoid, pts), [0, 1 / 6, 0, 0])
    np.testing.assert_array_equal(_grad_at(lambda t: F.threshold(t, 3.0, 1.0), pts), [0, 0, 0, 1])
    shrink_pts = [-0.5, 0.5, 0.0]
    np.testing.assert_array_equal(_grad_at(F.softshrink, shrink_pts), [0, 0, 0])
    np.testing.assert_array_equal(_grad_at(F.hardshrink, shrink_pts), [0, 0, 0])
    np.testing.assert_allclose(_grad_at(F.selu, [0.0]), [SCALE * ALPHA])
    np.testing.assert_allclose(_grad_at(lambda t: F.celu(t, 2.0), [0.0]), [1.0])
    np.testing.assert_allclose(_grad_at(F.softsign, [0.0]), [1.0])
    np.testing.assert_allclose(_grad_at(lambda t: F.rrelu(t, 0.1, 0.3), [0.0]), [0.2])


def test_rrelu_training_draws_one_slope_per_negative_element_within_bounds():
    mg.manual_seed(0)
    x = mg.tensor(-np.ones((200, 50)), requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert len(np.unique(slopes)) > 1000  # a fresh draw per element
    assert abs(slopes.mean() - 0.2) < 0.005  # U(0.1, 0.3) has mean 0.2
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), slopes)  # dy/dx is the drawn slope
    pos = mg.tensor([1.0, 2.0])
    np.testing.assert_array_equal(F.rrelu(pos, training=True).numpy(), [1.0, 2.0])


def test_rrelu_module_follows_train_and_eval_mode():
    m = nn.RReLU(0.1, 0.3)
    x = mg.tensor(-np.ones(1000))
    assert len(np.unique(m(x).numpy())) > 10
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), -0.2)


@pytest.mark.parametrize(
    "fn",
    [
        F.relu6,
        F.hardswish,
        F.hardsigmoid,
        F.selu,
        lambda t, inplace: F.celu(t, 1.5, inplace),
        lambda t, inplace: F.threshold(t, 0.5, 7.0, inplace),
        lambda t, inplace: F.rrelu(t, inplace=inplace),
    ],
)
def test_inplace_form_writes_the_result_into_the_input(fn):
    x = _input(2, (5, 6))
    expected = fn(mg.tensor(x), inplace=False).numpy()
    t = mg.tensor(x)
    out = fn(t, inplace=True)
    np.testing.assert_allclose(t.numpy(), expected)
    assert out is t


def test_selu_keeps_standard_normal_activations_standardised():
    # the point of SELU's constants: N(0, 1) in -> mean ~0, variance ~1 out
    z = np.random.default_rng(0).standard_normal(1_000_000)
    y = F.selu(mg.tensor(z)).numpy()
    assert abs(y.mean()) < 0.005 and abs(y.var() - 1) < 0.01


def test_glu_and_softmax2d_reject_bad_shapes():
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(mg.zeros(2, 5))
    with pytest.raises(ValueError, match="3D or 4D"):
        nn.Softmax2d()(mg.zeros(2, 5))
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):  # (PyTorch's)
        F.softshrink(mg.zeros(3), -1.0)


def test_softmin_without_dim_warns_and_picks_pytorchs_dim():
    x = _input(3, (3, 4))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        y = F.softmin(mg.tensor(x))
    np.testing.assert_allclose(y.numpy(), _np_softmax(-x, 1))


def test_new_activations_are_in_pytorchs_module_paths():
    assert nn.modules.activation.RReLU is nn.RReLU
    assert nn.modules.activation.Softmax2d is nn.Softmax2d


# ------------------------------------------------------------------------------ side by side
REPR_CASES = [
    "LogSigmoid()",
    "Softmin(dim=1)",
    "Softmin()",
    "Softsign()",
    "Tanhshrink()",
    "Hardswish()",
    "Hardswish(True)",
    "Hardsigmoid(inplace=True)",
    "SELU()",
    "SELU(inplace=True)",
    "CELU()",
    "CELU(2.0, True)",
    "GLU()",
    "GLU(1)",
    "Threshold(0.1, 20)",
    "Threshold(0.1, 20.0, inplace=True)",
    "ReLU6()",
    "ReLU6(inplace=True)",
    "RReLU()",
    "RReLU(0.1, 0.3, inplace=True)",
    "Softshrink()",
    "Softshrink(0.25)",
    "Hardshrink(1.5)",
    "Softmax2d()",
]


@pytest.mark.parametrize("expr", REPR_CASES)
def test_repr_matches_torch(expr):
    torch = pytest.importorskip("torch")
    ours, theirs = _both(expr, torch)
    assert repr(ours) == repr(theirs)


TORCH_MODULES = [
    "LogSigmoid()",
    "Softmin(dim=1)",
    "Softsign()",
    "Tanhshrink()",
    "Hardswish()",
    "Hardsigmoid()",
    "SELU()",
    "CELU(0.7)",
    "GLU(dim=1)",
    "Threshold(0.3, -2.0)",
    "ReLU6()",
    "RReLU(0.1, 0.3).eval()",
    "Softshrink(0.4)",
    "Hardshrink(0.4)",
    "Softmax2d()",
]


@pytest.mark.parametrize("expr", TORCH_MODULES)
def test_values_and_gradients_match_torch(expr):
    torch = pytest.importorskip("torch")
    x = _input(4)
    # include the kinks themselves: the subgradients must agree too
    x.flat[:8] = [-3.0, 0.0, 3.0, 6.0, 0.3, 0.4, -0.4, 0.0]
    ours, theirs = _both(expr, torch)
    a = mg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    g = np.random.default_rng(5).standard_normal(ours(a).shape)
    ya, yb = ours(a), theirs(b)
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-12, atol=1e-14)
    ya.backward(mg.tensor(g))
    yb.backward(torch.tensor(g))
    # torch rounds a few constants to float32 even in float64 (hardsigmoid's slope 1/6, CELU's
    # 1/alpha in its backward): hence rtol 1e-6 rather than float64's ulps
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-12)


def test_float32_values_match_torch():
    torch = pytest.importorskip("torch")
    x = _input(6).astype(np.float32)
    for expr in TORCH_MODULES:
        ours, theirs = _both(expr, torch)
        ya = ours(mg.tensor(x))
        yb = theirs(torch.tensor(x))
        assert ya.dtype == mg.float32, expr
        np.testing.assert_allclose(ya.numpy(), yb.numpy(), rtol=2e-6, atol=1e-6, err_msg=expr)
