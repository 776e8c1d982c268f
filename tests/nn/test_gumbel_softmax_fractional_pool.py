"""F.gumbel_softmax (a random draw: its law and its straight-through gradient) and the
nn.FractionalMaxPool2d/3d layers (their F functions are in the op database)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn


def test_gumbel_softmax_rows_are_distributions_along_dim() -> None:
    mg.manual_seed(0)
    logits = mg.randn(4, 5, 3)
    y = F.gumbel_softmax(logits, tau=0.7, dim=1)
    assert tuple(y.shape) == (4, 5, 3)
    assert np.allclose(y.sum(1).numpy(), 1.0)
    assert (y.numpy() > 0).all()


def test_gumbel_softmax_argmax_follows_the_softmax_of_the_logits() -> None:
    """The Gumbel-max trick: argmax(logits + g) ~ Categorical(softmax(logits)), whatever tau."""
    mg.manual_seed(1)
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    logits = mg.tensor(np.log(probs)).expand(20000, 4)
    picks = F.gumbel_softmax(logits, tau=0.5).argmax(-1).numpy()
    freq = np.bincount(picks, minlength=4) / picks.size
    # binomial standard error <= 0.0035: 5 of them
    assert np.abs(freq - probs).max() < 0.018


def test_gumbel_softmax_draws_from_the_package_generator() -> None:
    logits = mg.randn(3, 4)
    mg.manual_seed(7)
    a = F.gumbel_softmax(logits).numpy()
    mg.manual_seed(7)
    b = F.gumbel_softmax(logits).numpy()
    c = F.gumbel_softmax(logits).numpy()
    assert np.array_equal(a, b)
    assert not np.array_equal(b, c)


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_gradient() -> None:
    """hard: the forward value is one_hot(argmax y); the gradient is y's (straight-through)."""
    logits = mg.tensor(np.random.default_rng(0).normal(size=(6, 5)), requires_grad=True)
    weights = mg.tensor(np.random.default_rng(1).normal(size=(6, 5)))
    mg.manual_seed(3)
    hard = F.gumbel_softmax(logits, tau=0.8, hard=True)
    (hard * weights).sum().backward()
    hard_grad = logits.grad.numpy().copy()
    logits.grad = None
    mg.manual_seed(3)
    soft = F.gumbel_softmax(logits, tau=0.8)
    (soft * weights).sum().backward()
    values = hard.detach().numpy()
    assert set(np.unique(values)) == {0.0, 1.0}
    assert (values.sum(-1) == 1).all()
    assert np.array_equal(values.argmax(-1), soft.detach().numpy().argmax(-1))
    assert np.allclose(hard_grad, logits.grad.numpy())


def test_gumbel_softmax_soft_gradient_is_the_softmax_jacobian() -> None:
    """y = softmax((l + g) / tau): dy_i/dl_j = y_i (delta_ij - y_j) / tau, same noise."""
    tau = 0.6
    logits = mg.tensor([[0.2, -1.0, 0.5]], requires_grad=True)
    mg.manual_seed(4)
    y = F.gumbel_softmax(logits, tau=tau)
    y[0, 1].backward()
    yv = y.detach().numpy()[0]
    want = yv[1] * (np.eye(3)[1] - yv) / tau
    assert np.allclose(logits.grad.numpy()[0], want)


def test_gumbel_softmax_eps_is_deprecated() -> None:
    with pytest.warns(UserWarning, match="deprecated"):
        F.gumbel_softmax(mg.randn(2, 3), eps=1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.gumbel_softmax(mg.randn(2, 3))


def test_fractional_max_pool_layer_options_are_checked() -> None:
    with pytest.raises(ValueError, match="either an output size"):
        nn.FractionalMaxPool2d(2)
    with pytest.raises(ValueError, match="only one of"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.FractionalMaxPool3d(2, output_ratio=1.5)


def test_fractional_max_pool_fixed_samples_repeat_and_drawn_ones_follow_the_seed() -> None:
    x = mg.randn(2, 3, 12, 12)
    samples = mg.rand(2, 3, 2)
    fixed = nn.FractionalMaxPool2d(2, output_size=(5, 7), _random_samples=samples)
    assert np.array_equal(fixed(x).numpy(), fixed(x).numpy())
    assert "_random_samples" in dict(fixed.named_buffers())
    drawn = nn.FractionalMaxPool2d(3, output_ratio=0.5, return_indices=True)
    mg.manual_seed(5)
    a, ia = drawn(x)
    mg.manual_seed(5)
    b, ib = drawn(x)
    assert tuple(a.shape) == (2, 3, 6, 6)
    assert np.array_equal(a.numpy(), b.numpy()) and np.array_equal(ia.numpy(), ib.numpy())
    # each value is the input at its index
    flat = x.numpy().reshape(2, 3, -1)
    assert np.array_equal(np.take_along_axis(flat, ia.numpy().reshape(2, 3, -1), -1),
                          a.numpy().reshape(2, 3, -1))  # fmt: skip
