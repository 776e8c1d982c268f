"""F.mse_loss / F.l1_loss's ``weight`` (PyTorch 2.13: per-element weights, the mean divided by
their sum), and PyTorch's parameter names and positions in F.pad and F.softmax/log_softmax."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

rng = np.random.default_rng(0)
X, Y, W = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0.1, 2, (3, 4))


@pytest.mark.parametrize("name, elem", [("mse_loss", np.square), ("l1_loss", np.abs)])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_weighted_mse_and_l1_losses_weigh_each_element(name, elem, reduction):
    x = mg.tensor(X, requires_grad=True)
    got = getattr(F, name)(x, mg.tensor(Y), reduction=reduction, weight=mg.tensor(W))
    losses = W * elem(X - Y)
    want = {"none": losses, "sum": losses.sum(), "mean": losses.sum() / W.sum()}[reduction]
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12)
    got.sum().backward()
    d = 2 * (X - Y) if name == "mse_loss" else np.sign(X - Y)
    scale = 1 / W.sum() if reduction == "mean" else 1.0
    np.testing.assert_allclose(x.grad.numpy(), W * d * scale, rtol=1e-12)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_a_weight_of_another_shape_than_the_input_is_refused(name):
    with pytest.raises(ValueError, match="same size"):
        getattr(F, name)(mg.tensor(X), mg.tensor(Y), weight=mg.tensor(W[0]))


def test_pad_takes_its_tensor_as_input():
    y = F.pad(input=mg.tensor([[1.0, 2.0]]), pad=(1, 0), value=5.0)
    np.testing.assert_array_equal(y.numpy(), [[5.0, 1.0, 2.0]])


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family_takes_dtype_fourth_after_stacklevel(name):
    # PyTorch's order (input, dim, _stacklevel, dtype): a positional dtype is the fourth
    y = getattr(F, name)(mg.tensor([[1.0, 2.0, 3.0]]), 1, 3, mg.float64)
    assert y.dtype == mg.float64
    p = np.exp([1.0, 2.0, 3.0] if name != "softmin" else [-1.0, -2.0, -3.0])
    p /= p.sum()
    want = np.log(p) if name == "log_softmax" else p
    np.testing.assert_allclose(y.numpy()[0], want, rtol=1e-6)


def test_sequential_and_rms_norm_take_their_input_by_pytorchs_keyword():
    seq = mg.nn.Sequential(mg.nn.Identity())
    np.testing.assert_array_equal(seq(input=mg.tensor([1.0, 2.0])).numpy(), [1.0, 2.0])
    y = mg.nn.RMSNorm(2, elementwise_affine=False)(x=mg.tensor([[3.0, 4.0]]))
    np.testing.assert_allclose(y.numpy(), [[3.0, 4.0]] / np.sqrt(12.5 + 1.1920929e-07), rtol=1e-6)
