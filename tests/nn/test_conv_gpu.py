"""Conv, pooling, padding, losses and attention on CuPy: the same numbers as on the CPU (skipped
without CUDA)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

RNG = np.random.default_rng(5)


def on_both(fn, *arrays):
    """Run ``fn`` on float32 tensors on each device; return {device: (output, input grads)}."""
    out = {}
    for dev in ("cpu", "cuda"):
        ts = [mg.tensor(a, device=dev, requires_grad=a.dtype.kind == "f") for a in arrays]
        y = fn(*ts)
        y.sum().backward()
        grads = [t.grad.cpu().numpy() for t in ts if t.grad is not None]
        assert y.device.type == dev
        out[dev] = (y.detach().cpu().numpy(), grads)
    return out


def assert_same(results, rtol=1e-4, atol=1e-5):
    (y0, g0), (y1, g1) = results["cpu"], results["cuda"]
    np.testing.assert_allclose(y1, y0, rtol=rtol, atol=atol)
    for a, b in zip(g1, g0):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def test_conv2d_and_pools_match_cpu():
    x, w, b = f32(2, 4, 9, 8), f32(6, 2, 3, 3), f32(6)
    assert_same(on_both(lambda x, w, b: F.conv2d(x, w, b, 2, 1, 1, 2), x, w, b))
    assert_same(on_both(lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), x))
    assert_same(on_both(lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), x))
    assert_same(on_both(lambda x: F.pad(x, (1, 2, 2, 1), mode="reflect"), x))


def test_losses_match_cpu():
    x = f32(6, 5, 2)
    t = RNG.integers(0, 5, (6, 2))
    t[0, 0] = -100
    w = (RNG.random(5) + 0.5).astype(np.float32)

    def ce(x, t, w):
        return F.cross_entropy(x, t, w, label_smoothing=0.1)

    assert_same(on_both(ce, x, t, w))
    z, y = f32(4, 3), RNG.random((4, 3)).astype(np.float32)
    assert_same(on_both(lambda z, y: F.binary_cross_entropy_with_logits(z, y), z, y))
    assert_same(on_both(lambda z, y: F.binary_cross_entropy(z.sigmoid(), y), z, y))
    assert_same(on_both(lambda z, y: F.mse_loss(z, y) + F.l1_loss(z, y), z, y))


def test_attention_matches_cpu():
    q, k, v = f32(2, 2, 5, 4), f32(2, 2, 5, 4), f32(2, 2, 5, 4)
    assert_same(
        on_both(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), q, k, v)
    )
    mask = np.ones((5, 5), dtype=bool)
    mask[1] = False  # a query that sees nothing: zeros, no NaN

    def masked(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mg.tensor(mask, device=q.device))

    assert_same(on_both(masked, q, k, v))
    mha = nn.MultiheadAttention(8, 2)
    x = f32(5, 3, 8)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[0, 3:] = True
    results = {}
    for dev in ("cpu", "cuda"):
        m = mha.to(dev)
        xt = mg.tensor(x, device=dev)
        out, w = m(xt, xt, xt, key_padding_mask=mg.tensor(kpm, device=dev))
        results[dev] = (out.detach().cpu().numpy(), [w.detach().cpu().numpy()])
    assert_same(results)


def test_small_cnn_step_on_gpu():
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3)
    ).cuda()
    x = mg.randn(8, 1, 8, 8, device="cuda")
    t = mg.tensor(RNG.integers(0, 3, 8), device="cuda")
    loss = nn.CrossEntropyLoss()(model(x), t)
    loss.backward()
    assert all(p.grad is not None and p.grad.device.type == "cuda" for p in model.parameters())


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(scale_factor=2, mode="nearest"),
        dict(size=(5, 9), mode="nearest-exact"),
        dict(scale_factor=(1.5, 0.7), mode="bilinear"),
        dict(size=(7, 3), mode="bilinear", align_corners=True),
    ],
)
def test_interpolate_matches_cpu(kwargs):
    x = RNG.standard_normal((2, 3, 6, 5)).astype(np.float32)
    assert_same(on_both(lambda t: F.interpolate(t, **kwargs) * 1.5, x))


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda t: F.max_pool1d(t, 3, 2, 1), (2, 3, 9)),
        (lambda t: F.avg_pool1d(t, 3, 2, 1), (2, 3, 9)),
        (lambda t: F.adaptive_avg_pool1d(t, 4), (2, 3, 9)),
        (lambda t: F.adaptive_max_pool1d(t, 4), (2, 3, 9)),
        (lambda t: F.adaptive_max_pool2d(t, (3, 2)), (2, 3, 7, 5)),
    ],
)
def test_1d_and_adaptive_max_pooling_match_cpu(fn, shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    assert_same(on_both(lambda t: fn(t) * 1.5, x))


@pytest.mark.parametrize(
    "fn, shape",
    [
        (lambda t: F.instance_norm(t), (2, 3, 4, 5)),
        (lambda t: F.local_response_norm(t, 3, alpha=0.5), (2, 5, 3, 4)),
        (lambda t: F.conv_transpose1d(t, t[0, :, :2].reshape(3, 1, 2) * 1.0, stride=2), (2, 3, 5)),
    ],
)
def test_instance_lrn_and_conv_transpose1d_match_cpu(fn, shape):
    x = RNG.standard_normal(shape).astype(np.float32)
    assert_same(on_both(lambda t: fn(t) * 1.5, x))


def test_instance_norm_running_stats_match_cpu():
    x = RNG.standard_normal((3, 2, 6)).astype(np.float32)
    stats = {}
    for dev in ("cpu", "cuda"):
        layer = nn.InstanceNorm1d(2, track_running_stats=True).to(dev)
        layer(mg.tensor(x, device=dev))
        stats[dev] = layer.running_var.cpu().numpy()
    np.testing.assert_allclose(stats["cuda"], stats["cpu"], rtol=1e-6)
