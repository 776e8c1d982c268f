"""Dropout1d / Dropout3d (whole channels), AlphaDropout / FeatureAlphaDropout (SELU's
self-normalising dropout): which entries are dropped, the scaling, mean and variance kept, the
gradient, eval mode, errors, and reprs against torch."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

ALPHA_PRIME = 1.7580993408473766  # SELU's scale * alpha: it saturates at -ALPHA_PRIME


@pytest.mark.parametrize(
    "fn,shape", [(F.dropout1d, (8, 16, 5)), (F.dropout1d, (16, 5)), (F.dropout3d, (4, 8, 2, 3, 2))]
)
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(fn, shape):
    mg.manual_seed(0)
    x = mg.tensor(np.ones(shape), requires_grad=True)
    y = fn(x, 0.25, True)
    spatial = {F.dropout1d: 1, F.dropout3d: 3}[fn]
    flat = y.detach().numpy().reshape(shape[: len(shape) - spatial] + (-1,))
    # every channel is all 0 or all 1 / (1 - p)
    assert np.isin(flat, [0.0, 1 / 0.75]).all()
    assert (flat.min(-1) == flat.max(-1)).all()
    assert 0 < (flat[..., 0] == 0).sum() < flat[..., 0].size
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # dy/dx = mask / (1 - p)


def _both(expr: str, torch):
    """The layer ``nn.<expr>`` built by minigenesis and by torch (the same constructor call)."""
    return eval(f"nn.{expr}", {"nn": nn}), eval(f"nn.{expr}", {"nn": torch.nn})


def test_channel_dropout_is_the_identity_in_eval_mode_and_checks_dims():
    x = mg.randn(2, 3, 4)
    m = nn.Dropout1d(0.5).eval()
    assert m(x) is x
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(mg.zeros(2, 3, 4, 5))
    with pytest.warns(UserWarning, match="Received a 3-D input to dropout3d"):
        nn.Dropout3d()(mg.zeros(2, 3, 4))  # PyTorch only warns (deprecated)
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.AlphaDropout(1.5)


@pytest.mark.parametrize("p", [0.1, 0.5])
def test_alpha_dropout_keeps_mean_zero_and_variance_one(p):
    mg.manual_seed(1)
    z = np.random.default_rng(0).standard_normal(1_000_000)
    y = F.alpha_dropout(mg.tensor(z), p, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.01


def test_alpha_dropout_sends_dropped_units_to_the_affine_image_of_selus_floor():
    mg.manual_seed(2)
    p = 0.3
    a = 1 / np.sqrt((ALPHA_PRIME**2 * p + 1) * (1 - p))
    b = ALPHA_PRIME * a * p
    x = mg.tensor(np.full(10_000, 2.0), requires_grad=True)
    y = F.alpha_dropout(x, p, training=True)
    vals = y.detach().numpy()
    kept = np.isclose(vals, a * 2.0 + b)
    dropped = np.isclose(vals, a * -ALPHA_PRIME + b)
    assert (kept | dropped).all()
    assert abs(dropped.mean() - p) < 0.02
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, a, 0.0))


def test_feature_alpha_dropout_drops_whole_channels():
    mg.manual_seed(3)
    y = nn.FeatureAlphaDropout(0.5)(mg.randn(8, 16, 4, 4)).numpy().reshape(8, 16, -1)
    # a dropped channel is constant (the shifted floor); a kept one varies with the input
    constant = y.max(-1) == y.min(-1)
    assert 0 < constant.sum() < constant.size
    p, a = 0.5, 1 / np.sqrt((ALPHA_PRIME**2 * 0.5 + 1) * 0.5)
    np.testing.assert_allclose(y[constant][:, 0], a * -ALPHA_PRIME + ALPHA_PRIME * a * p, rtol=1e-6)


def test_alpha_dropouts_are_the_identity_by_default_and_in_eval():
    x = mg.randn(3, 4, 5)
    assert F.alpha_dropout(x, 0.5) is x  # training=False is F's default
    assert nn.AlphaDropout(0.5).eval()(x) is x
    assert nn.FeatureAlphaDropout(0.5).eval()(x) is x


@pytest.mark.parametrize(
    "expr",
    [
        "Dropout1d()",
        "Dropout3d(0.2, True)",
        "AlphaDropout()",
        "AlphaDropout(0.1)",
        "FeatureAlphaDropout(0.2, True)",
    ],
)
def test_dropout_reprs_match_torch(expr):
    torch = pytest.importorskip("torch")
    ours, theirs = _both(expr, torch)
    assert repr(ours) == repr(theirs)


def test_alpha_dropout_matches_torchs_levels_and_rate():
    torch = pytest.importorskip("torch")
    z = np.random.default_rng(0).standard_normal(200_000)
    torch.manual_seed(0)
    ours = F.alpha_dropout(mg.tensor(z), 0.2, True).numpy()
    theirs = torch.nn.functional.alpha_dropout(torch.tensor(z), 0.2, True).numpy()
    # different generators, so compare the rule: the same drop rate, the same two levels
    a = 1 / np.sqrt((ALPHA_PRIME**2 * 0.2 + 1) * 0.8)
    b = ALPHA_PRIME * a * 0.2
    for y in (ours, theirs):
        dropped = np.isclose(y, b - a * ALPHA_PRIME, rtol=0, atol=1e-12)
        assert abs(dropped.mean() - 0.2) < 0.005
        np.testing.assert_allclose(y[~dropped], a * z[~dropped] + b, rtol=1e-12)
