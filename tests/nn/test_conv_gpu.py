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


# ----------------------------------------------------------------------------------------------
# The fused kernels (kernels/) give the array passes' numbers, bit for bit
# ----------------------------------------------------------------------------------------------
def special_values(shape, dtype):
    """Ties (values on a coarse grid), -0, +-inf and NaN among random values."""
    a = np.round(RNG.standard_normal(shape) * 2) / 2
    flat = a.reshape(-1)
    picks = RNG.choice(flat.size, 6 + flat.size // 8, replace=False)
    flat[picks] = RNG.choice([np.nan, np.inf, -np.inf, -0.0, 0.0, np.nan], picks.size)
    return a.astype(dtype)


def assert_same_bits(got, want):
    """Equal, NaN where NaN, and the sign of every zero the same. (Not the sign or payload of a
    NaN: a GPU's arithmetic returns its one canonical NaN, an x86 CPU's propagates the input's.)"""
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(want[numbers]))


@pytest.mark.parametrize(
    ("args", "offsets", "disjoint"),
    [
        (dict(kernel_size=2), 4, True),  # windows tile the image
        (dict(kernel_size=2, stride=3), 4, True),  # pixels in no window
        (dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), 9, False),  # overlapping
        (dict(kernel_size=(2, 3), stride=(2, 1), dilation=(2, 1)), 6, False),  # dilated
        (dict(kernel_size=2, stride=2, padding=1), 4, True),  # padded
    ],
)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_max_pool_kernels_give_the_array_passes_bits(
    args, offsets, disjoint, dtype, kernel_launches
):
    x = special_values((2, 3, 9, 8), dtype)
    gy = special_values(tuple(F.max_pool2d(mg.tensor(x), **args).shape), dtype)
    results = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        y, idx = F.max_pool2d(xt, return_indices=True, **args)
        y.backward(mg.tensor(gy, device=dev))
        results[dev] = [t.detach().cpu().numpy() for t in (y, idx, xt.grad)]
    for got, want in zip(results["cuda"], results["cpu"]):
        assert_same_bits(got, want)
    forward = f"max_pool_{offsets}" + ("_first_of_ties" if dtype == "float16" else "")
    backward = [f"max_pool_grad_{offsets}"] if disjoint else ["max_pool_grad_add"] * offsets
    assert kernel_launches == [forward] + backward


def test_max_pool_step_is_one_launch_each_way(kernel_launches):
    x = mg.tensor(f32(4, 3, 8, 8), device="cuda", requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    assert kernel_launches.count("max_pool_4") == 1
    assert kernel_launches.count("max_pool_grad_4") == 1


def test_max_pool_double_backward_on_the_gpu_matches_cpu():
    x = special_values((2, 2, 6, 6), "float64")
    x[np.isnan(x) | np.isinf(x)] = 1.5
    results = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        y = F.max_pool2d(xt, 3, 2, 1)
        (g,) = mg.autograd.grad((y * y).sum(), xt, create_graph=True)
        (gg,) = mg.autograd.grad((g * g).sum(), xt)
        results[dev] = [g.detach().cpu().numpy(), gg.cpu().numpy()]
    for got, want in zip(results["cuda"], results["cpu"]):
        assert_same_bits(got, want)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("shape", "dtype"), [((7, 5), "float32"), ((4, 6, 3), "float64")])
def test_cross_entropy_kernels_give_the_array_passes_bits(reduction, shape, dtype, kernel_launches):
    x = (RNG.standard_normal(shape) * 3).astype(dtype)
    x[1, 2] = 40.0  # a large logit: the shift by the row maximum matters
    target = RNG.integers(0, shape[1], (shape[0],) + shape[2:])
    target[0] = -100  # ignored samples
    results = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        loss = F.cross_entropy(xt, mg.tensor(target, device=dev), reduction=reduction)
        gl = np.linspace(-1, 2, loss.numel()).reshape(tuple(loss.shape)).astype(dtype)
        loss.backward(mg.tensor(gl, device=dev))
        results[dev] = [loss.detach().cpu().numpy(), xt.grad.cpu().numpy()]
    # the array passes' numbers: bit for bit on the stand-in; a GPU's exp, log and summation
    # order differ in the last bits
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-13)
    for got, want in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, **tol)
    mean = ["mean_of_valid"] if reduction == "mean" else []
    forward = ["log_sum_exp_shifted", "cross_entropy_loss"] + mean
    assert kernel_launches == forward + ["cross_entropy_grad"]


def test_cross_entropy_kernels_with_every_sample_ignored_give_nan_and_zero_gradient():
    results = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(f32(3, 4), device=dev, requires_grad=True)
        loss = F.cross_entropy(xt, mg.tensor([-100, -100, -100], device=dev))
        loss.backward()
        results[dev] = [loss.detach().cpu().numpy(), xt.grad.cpu().numpy()]
    assert np.isnan(results["cuda"][0]) and not results["cuda"][1].any()
    for got, want in zip(results["cuda"], results["cpu"]):
        assert_same_bits(got, want)


def test_cross_entropy_double_backward_on_the_gpu_matches_cpu():
    x, target = RNG.standard_normal((5, 4)), RNG.integers(0, 4, 5)
    results = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        loss = F.cross_entropy(xt, mg.tensor(target, device=dev))
        (g,) = mg.autograd.grad(loss, xt, create_graph=True)
        (gg,) = mg.autograd.grad((g * g).sum(), xt)
        results[dev] = [g.detach().cpu().numpy(), gg.cpu().numpy()]
    for got, want in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("geometry", "order"),
    [
        (((3, 3), (1, 1), (1, 1, 1, 1)), "conv"),  # the CNN's 3x3 convolution
        (((3, 2), (2, 1), (2, 2, 0, 0)), "conv"),  # dilated, padded rows only
        (((2, 3), (1, 2), (1, 0, 2, 2)), "pool"),  # average pooling's layout
        (((3, 3), (1, 1), (0, 0, 0, 0)), "conv"),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_col2im_kernel_gives_the_loops_bits(geometry, order, dtype, kernel_launches):
    from minigenesis.ops.conv import CONV_ORDER, POOL_ORDER, Col2Im, out_size

    (kh, kw), (dh, dw), pad = geometry
    n, c, h, w = 2, 3, 7, 6
    ho = out_size(h, kh, 1, pad[0], pad[1], dh)
    wo = out_size(w, kw, 1, pad[2], pad[3], dw)
    perm = CONV_ORDER if order == "conv" else POOL_ORDER
    cols = special_values(tuple(np.array([n, c, kh, kw, ho, wo])[list(perm)]), dtype)
    cols[(0,) * cols.ndim] = -np.abs(np.array(np.nan, dtype))  # a NaN with its sign bit set
    results = {}
    for dev in ("cpu", "cuda"):
        with np.errstate(invalid="ignore"):  # (inf - inf in the sums)
            x = Col2Im.apply(
                mg.tensor(cols, device=dev), (n, c, h, w), (kh, kw), (1, 1), (dh, dw), pad, perm
            )
        results[dev] = x.cpu().numpy()
    assert_same_bits(results["cuda"], results["cpu"])  # the same sums, in the same order
    assert kernel_launches == [f"col2im_{kh * kw}"]


def test_conv2d_input_gradient_is_one_col2im_launch_with_the_cpus_numbers(kernel_launches):
    x, w = f32(2, 3, 8, 8), f32(4, 3, 3, 3)
    results = on_both(lambda x, w: F.conv2d(x, w, padding=1), x, w)
    assert_same(results)  # (the matmuls are a GPU's BLAS: its own summation order)
    assert kernel_launches == ["col2im_9"]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_relu_gradient_select_is_one_kernel_with_the_cpus_bits(dtype, kernel_launches):
    x, gy = special_values((5, 7), dtype), special_values((5, 7), dtype)
    grads = {}
    for dev in ("cpu", "cuda"):
        xt = mg.tensor(x, device=dev, requires_grad=True)
        xt.relu().backward(mg.tensor(gy, device=dev))
        grads[dev] = xt.grad.cpu().numpy()
    assert_same_bits(grads["cuda"], grads["cpu"])
    assert kernel_launches.count("where_or_zero") == 1  # (ReLU's mask may be a kernel of its own)
