"""Input rules of losses and layers that PyTorch enforces (or relaxes) and minigenesis now
follows: which shapes are refused, which are accepted, and what the accepted ones compute
(checked against NumPy closed forms)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _softplus(z: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, z)


@pytest.mark.parametrize(("x_shape", "y_shape"), [((), (4,)), ((4,), (3, 4)), ((2, 4), (2, 2, 4))])
def test_soft_margin_loss_refuses_a_target_larger_than_the_input(x_shape, y_shape) -> None:
    with pytest.raises(RuntimeError, match="does not broadcast"):
        F.soft_margin_loss(mg.zeros(*x_shape), mg.ones(*y_shape))


def test_soft_margin_loss_broadcasts_a_smaller_target() -> None:
    x = np.random.default_rng(0).standard_normal((3, 4))
    y = np.array([1.0, -1.0, 1.0, -1.0])
    got = F.soft_margin_loss(mg.tensor(x), mg.tensor(y), reduction="none")
    np.testing.assert_allclose(got.numpy(), _softplus(-y * x), rtol=1e-12)


@pytest.mark.parametrize(("x_shape", "y_shape"), [((4,), (2, 4)), ((3,), (3, 3)), ((2, 3), (2, 3))])
def test_multilabel_soft_margin_loss_averages_over_the_inputs_last_dim(x_shape, y_shape) -> None:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(x_shape), (rng.random(y_shape) < 0.5) * 1.0
    got = F.multilabel_soft_margin_loss(mg.tensor(x), mg.tensor(y), reduction="none")
    per_element = y * _softplus(-x) + (1 - y) * _softplus(x)
    dim = len(x_shape) - 1  # the input's class dim, also after broadcasting
    np.testing.assert_allclose(got.numpy(), per_element.sum(dim) / x_shape[-1], rtol=1e-12)


@pytest.mark.parametrize(("x_shape", "y_shape"), [((6,), (5,)), ((3, 5), (3, 4)), ((5,), (3, 5))])
def test_multilabel_margin_loss_needs_a_target_of_the_inputs_shape(x_shape, y_shape) -> None:
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multilabel_margin_loss(mg.zeros(*x_shape), mg.zeros(*y_shape, dtype=mg.int64))


@pytest.mark.parametrize("fn", [F.nll_loss, F.cross_entropy])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_an_unbatched_input_takes_a_target_of_shape_one(fn, reduction: str) -> None:
    x = np.random.default_rng(2).standard_normal(3)
    got = fn(mg.tensor(x), mg.tensor([1]), reduction=reduction)
    logp = x if fn is F.nll_loss else x - np.log(np.exp(x).sum())
    assert got.shape == ()
    np.testing.assert_allclose(got.item(), -logp[1], rtol=1e-12)
    with pytest.raises(ValueError, match="0-d or of shape"):
        fn(mg.tensor(x), mg.tensor([1, 0]))


@pytest.mark.parametrize("dim", [-4, 3, 5])
def test_unflatten_refuses_a_dim_out_of_range(dim: int) -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        mg.nn.Unflatten(dim, (3, 1))(mg.zeros(1, 2, 3))


def test_dropout3d_of_another_rank_warns_and_drops_whole_slices_of_dim_0() -> None:
    mg.manual_seed(0)
    x = mg.ones(8, 2, 1, 3, 1, 2)
    with pytest.warns(UserWarning, match="dropout3d: Received a 6-D input"):
        y = F.dropout3d(x, 0.5, True).numpy()
    per_slice = y.reshape(8, -1)
    assert set(np.unique(per_slice)) <= {0.0, 2.0}
    assert (per_slice.min(1) == per_slice.max(1)).all()  # one draw per index of dim 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.dropout3d(mg.ones(2, 2, 2, 2), 0.5, True).shape == (2, 2, 2, 2)


@pytest.mark.parametrize(
    ("s1", "s2", "st"), [((4,), (4, 4), (4,)), ((3, 4), (3, 4), ()), ((4,), (4,), (4,))]
)
def test_cosine_embedding_loss_needs_inputs_one_dim_above_the_target(s1, s2, st) -> None:
    with pytest.raises(RuntimeError, match="target tensor expects"):
        F.cosine_embedding_loss(mg.ones(*s1), mg.ones(*s2), mg.ones(*st))


def test_cosine_embedding_loss_of_one_pair_is_one_minus_the_cosine() -> None:
    a, b = np.array([1.0, 2.0, 2.0]), np.array([2.0, 0.0, 1.0])
    got = F.cosine_embedding_loss(mg.tensor(a), mg.tensor(b), mg.tensor(1.0))
    np.testing.assert_allclose(got.item(), 1 - a @ b / 3 / np.sqrt(5), rtol=1e-9)


def test_transposed_conv_output_size_range_is_set_by_the_stride_not_the_dilation() -> None:
    """Smallest output (L - 1) s - 2 p + d (k - 1) + 1; a requested size may add up to s - 1."""
    conv = mg.nn.ConvTranspose2d(1, 1, 1, stride=(3, 1), dilation=2)
    x = mg.zeros(1, 1, 4, 4)  # smallest output: 10 x 4
    assert tuple(conv(x, output_size=[12, 4]).shape) == (1, 1, 12, 4)
    with pytest.raises(ValueError, match="range from 4 to 4"):
        conv(x, output_size=[10, 5])  # dilation 2 does not widen the range along dim 1


def test_glu_of_an_empty_dim_is_empty() -> None:
    y = mg.nn.GLU(0)(mg.zeros(0, 3, 2))
    assert tuple(y.shape) == (0, 3, 2)
    x = np.random.default_rng(3).standard_normal((4, 3))
    got = F.glu(mg.tensor(x), 0).numpy()
    np.testing.assert_allclose(got, x[:2] / (1 + np.exp(-x[2:])), rtol=1e-12)


@pytest.mark.parametrize("ignore_index", [0, 3])
def test_cross_entropy_with_probability_targets_refuses_a_class_to_ignore(ignore_index):
    x, p = mg.randn(3, 4), mg.softmax(mg.randn(3, 4), dim=1)
    with pytest.raises(RuntimeError, match="ignore_index is not supported"):
        F.cross_entropy(x, p, ignore_index=ignore_index)
    with pytest.raises(RuntimeError, match="ignore_index is not supported"):
        mg.nn.CrossEntropyLoss(ignore_index=ignore_index, label_smoothing=0.1)(x, p)


def test_cross_entropy_with_probability_targets_takes_a_negative_ignore_index():
    x, p = mg.randn(3, 4), mg.softmax(mg.randn(3, 4), dim=1)
    expected = -(p.numpy() * mg.log_softmax(x, dim=1).numpy()).sum(1).mean()
    for ignore_index in (-100, -1):
        got = float(F.cross_entropy(x, p, ignore_index=ignore_index))
        np.testing.assert_allclose(got, expected, rtol=1e-6)
