"""Conv2d, MaxPool2d, AvgPool2d and F.pad: NumPy loop references, finite differences, PyTorch
parity (when importable), argument errors, and a small CNN that learns."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(1234)


def t64(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# ------------------------------------------------------------------------------------------------
# Independent references: plain loops over every output pixel
# ------------------------------------------------------------------------------------------------
def conv2d_loops(x, w, b, stride, padding, dilation, groups):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.zeros((n, c, h + 2 * ph, wd + 2 * pw))
    xp[:, :, ph : ph + h, pw : pw + wd] = x
    ho = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    wo = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, ho, wo))
    per_group = o // groups
    for ni in range(n):
        for oc in range(o):
            g = oc // per_group
            for i in range(ho):
                for j in range(wo):
                    acc = 0.0 if b is None else b[oc]
                    for ci in range(cg):
                        for a in range(kh):
                            for bb in range(kw):
                                acc += (
                                    w[oc, ci, a, bb]
                                    * xp[ni, g * cg + ci, i * sh + a * dh, j * sw + bb * dw]
                                )
                    out[ni, oc, i, j] = acc
    return out


def pool_loops(x, k, s, p, reduce, pad_value):
    n, c, h, w = x.shape
    xp = np.full((n, c, h + 2 * p, w + 2 * p), pad_value)
    xp[:, :, p : p + h, p : p + w] = x
    ho, wo = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, ho, wo))
    for i in range(ho):
        for j in range(wo):
            out[:, :, i, j] = reduce(xp[:, :, i * s : i * s + k, j * s : j * s + k], axis=(2, 3))
    return out


CONV_CASES = [
    # (N, C_in, H, W, C_out, kernel, stride, padding, dilation, groups)
    (2, 3, 6, 5, 4, (3, 3), (1, 1), (0, 0), (1, 1), 1),
    (1, 2, 7, 7, 3, (3, 2), (2, 1), (1, 2), (1, 1), 1),
    (2, 4, 8, 6, 6, (3, 3), (1, 2), (2, 1), (2, 1), 2),
    (1, 6, 5, 5, 6, (1, 1), (2, 2), (0, 0), (1, 1), 6),  # depthwise 1x1, stride 2
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_matches_loop_reference(case):
    n, c, h, w, o, k, s, p, d, g = case
    x = RNG.standard_normal((n, c, h, w))
    wt = RNG.standard_normal((o, c // g, *k))
    b = RNG.standard_normal(o)
    got = F.conv2d(t64(x), t64(wt), t64(b), s, p, d, g)
    ref = conv2d_loops(x, wt, b, s, p, d, g)
    assert got.shape == ref.shape
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-12)


@st.composite
def conv_geometry(draw):
    """Random small convolutions whose output is not empty."""
    groups = draw(st.sampled_from([1, 2]))
    c_in, c_out = groups * draw(st.integers(1, 2)), groups * draw(st.integers(1, 2))
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    p = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    span = [dd * (kk - 1) + 1 for dd, kk in zip(d, k)]
    h = draw(st.integers(max(1, span[0] - 2 * p[0]), 7))
    w = draw(st.integers(max(1, span[1] - 2 * p[1]), 7))
    return (draw(st.integers(1, 2)), c_in, h, w, c_out, k, s, p, d, groups)


@settings(max_examples=30, deadline=None)
@given(conv_geometry())
def test_conv2d_random_geometries_match_loop_reference(case):
    n, c, h, w, o, k, s, p, d, g = case
    rng = np.random.default_rng(0)
    x, wt, b = (rng.standard_normal(sh) for sh in ((n, c, h, w), (o, c // g, *k), (o,)))
    got = F.conv2d(t64(x), t64(wt), t64(b), s, p, d, g)
    np.testing.assert_allclose(got.numpy(), conv2d_loops(x, wt, b, s, p, d, g), atol=1e-12)


def test_conv2d_no_bias_and_unbatched_input():
    x = RNG.standard_normal((2, 5, 6))
    wt = RNG.standard_normal((3, 2, 3, 3))
    got = F.conv2d(t64(x), t64(wt), None, 1, 1)
    ref = conv2d_loops(x[None], wt, None, (1, 1), (1, 1), (1, 1), 1)[0]
    assert got.shape == (3, 5, 6)
    np.testing.assert_allclose(got.numpy(), ref, atol=1e-12)


@pytest.mark.parametrize("kernel,dilation", [(3, 1), (4, 1), (2, 3)])
def test_conv2d_same_and_valid_padding(kernel, dilation):
    x = RNG.standard_normal((1, 2, 7, 6))
    wt = RNG.standard_normal((3, 2, kernel, kernel))
    same = F.conv2d(t64(x), t64(wt), padding="same", dilation=dilation)
    assert same.shape == (1, 3, 7, 6)
    total = dilation * (kernel - 1)  # PyTorch pads the odd extra at the bottom/right
    lo, hi = total // 2, total - total // 2
    xp = np.pad(x, ((0, 0), (0, 0), (lo, hi), (lo, hi)))
    ref = conv2d_loops(xp, wt, None, (1, 1), (0, 0), (dilation, dilation), 1)
    np.testing.assert_allclose(same.numpy(), ref, atol=1e-12)
    valid = F.conv2d(t64(x), t64(wt), padding="valid", dilation=dilation)
    ref = conv2d_loops(x, wt, None, (1, 1), (0, 0), (dilation, dilation), 1)
    np.testing.assert_allclose(valid.numpy(), ref, atol=1e-12)


@pytest.mark.parametrize("case", CONV_CASES[:3])
def test_conv2d_gradients_finite_differences(case):
    n, c, h, w, o, k, s, p, d, g = case
    x = t64(RNG.standard_normal((1, c, min(h, 6), min(w, 5))), grad=True)
    wt = t64(RNG.standard_normal((o, c // g, *k)), grad=True)
    b = t64(RNG.standard_normal(o), grad=True)
    assert gradcheck(lambda x, wt, b: F.conv2d(x, wt, b, s, p, d, g), (x, wt, b))


def test_conv2d_second_derivatives():
    """conv2d's backward is itself differentiable (im2col <-> col2im call each other)."""
    x = t64(RNG.standard_normal((1, 2, 4, 4)), grad=True)
    wt = t64(RNG.standard_normal((2, 1, 3, 3)), grad=True)

    def grad_norm(x, wt):
        with mg.enable_grad():
            y = F.conv2d(x, wt, None, 1, 1, 1, 2)
            gx, gw = mg.autograd.grad((y * y).sum(), (x, wt), create_graph=True)
            return (gx * gx).sum() + (gw * gw).sum()

    assert gradcheck(grad_norm, (x, wt))


def test_conv2d_low_precision_matches_float32():
    x = RNG.standard_normal((2, 3, 6, 6)).astype(np.float32)
    wt = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    ref = F.conv2d(mg.tensor(x), mg.tensor(wt), padding=1).numpy()
    for dt, tol in ((mg.float16, 2e-2), (mg.bfloat16, 1.5e-1)):
        out = F.conv2d(mg.tensor(x).to(dt), mg.tensor(wt).to(dt), padding=1)
        assert out.dtype == dt
        np.testing.assert_allclose(out.float().numpy(), ref, atol=tol * np.abs(ref).max())


def test_conv2d_under_autocast_runs_low_and_grads_are_float32():
    conv = nn.Conv2d(3, 4, 3, padding=1)
    x = mg.randn(2, 3, 5, 5)
    with mg.autocast():
        y = conv(x)
    assert y.dtype == mg.bfloat16
    y.float().sum().backward()
    assert conv.weight.grad.dtype == mg.float32 and conv.bias.grad.dtype == mg.float32


# ------------------------------------------------------------------------------------------------
# Pooling
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k,s,p", [(2, 2, 0), (3, 2, 1), (3, 1, 1), (2, 1, 0)])
def test_pools_match_loop_reference(k, s, p):
    x = RNG.standard_normal((2, 3, 7, 6))
    got = F.max_pool2d(t64(x), k, s, p).numpy()
    np.testing.assert_array_equal(got, pool_loops(x, k, s, p, np.max, -np.inf))
    got = F.avg_pool2d(t64(x), k, s, p).numpy()  # count_include_pad=True: zeros count
    np.testing.assert_allclose(got, pool_loops(x, k, s, p, np.mean, 0.0), atol=1e-14)


def test_avg_pool_count_include_pad_false_and_divisor_override():
    x = RNG.standard_normal((1, 1, 4, 4))
    got = F.avg_pool2d(t64(x), 3, 2, 1, count_include_pad=False).numpy()
    sums = pool_loops(x, 3, 2, 1, np.sum, 0.0)
    counts = pool_loops(np.ones_like(x), 3, 2, 1, np.sum, 0.0)
    np.testing.assert_allclose(got, sums / counts, atol=1e-14)
    got = F.avg_pool2d(t64(x), 3, 2, 1, divisor_override=5).numpy()
    np.testing.assert_allclose(got, sums / 5, atol=1e-14)


def test_max_pool_gradient_goes_to_the_argmax():
    x = t64(
        [
            [
                [
                    [1.0, 5.0, 2.0, 0.0],
                    [3.0, 4.0, 9.0, 8.0],
                    [0.0, 0.0, 1.0, 1.0],
                    [7.0, 0.0, 1.0, 2.0],
                ]
            ]
        ],
        grad=True,
    )
    F.max_pool2d(x, 2).sum().backward()
    expected = np.zeros((4, 4))
    expected[0, 1] = expected[1, 2] = expected[3, 0] = expected[3, 3] = 1
    np.testing.assert_array_equal(x.grad.numpy()[0, 0], expected)


def test_max_pool_overlapping_windows_accumulate_gradient():
    x = t64(np.zeros((1, 1, 3, 3)), grad=True)
    x.data[0, 0, 1, 1] = 10.0  # the max of all four overlapping 2x2 windows
    F.max_pool2d(x, 2, stride=1).sum().backward()
    assert x.grad.numpy()[0, 0, 1, 1] == 4.0 and x.grad.numpy().sum() == 4.0


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=2, stride=1, dilation=2),
    ],
)
def test_max_pool_gradcheck(kwargs):
    x = t64(RNG.standard_normal((1, 2, 6, 5)), grad=True)
    assert gradcheck(lambda x: F.max_pool2d(x, **kwargs), (x,))


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kernel_size=3, stride=2, padding=1),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=2, divisor_override=3),
    ],
)
def test_avg_pool_gradcheck(kwargs):
    x = t64(RNG.standard_normal((1, 2, 6, 5)), grad=True)
    assert gradcheck(lambda x: F.avg_pool2d(x, **kwargs), (x,))


def test_max_pool_return_indices_and_unbatched():
    x = RNG.standard_normal((2, 5, 5))
    values, idx = F.max_pool2d(t64(x), 2, return_indices=True)
    assert values.shape == idx.shape == (2, 2, 2) and idx.dtype == mg.int64
    flat = x.reshape(2, 25)
    np.testing.assert_array_equal(
        np.take_along_axis(flat, idx.numpy().reshape(2, 4), 1), values.numpy().reshape(2, 4)
    )


def test_pool_modules_and_eval_mode_are_the_same():
    x = mg.randn(1, 2, 6, 6)
    for m, f in ((nn.MaxPool2d(2), F.max_pool2d), (nn.AvgPool2d(2), F.avg_pool2d)):
        np.testing.assert_array_equal(m(x).numpy(), f(x, 2).numpy())
        np.testing.assert_array_equal(m.eval()(x).numpy(), f(x, 2).numpy())
        assert list(m.parameters()) == []


# ------------------------------------------------------------------------------------------------
# F.pad
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pad,mode,numpy_mode",
    [
        ((1, 2, 0, 3), "constant", "constant"),
        ((2, 1, 1, 3), "reflect", "reflect"),
        ((2, 2, 3, 1), "replicate", "edge"),
        ((1, 3, 2, 2), "circular", "wrap"),
    ],
)
def test_pad_modes_match_numpy_and_gradcheck(pad, mode, numpy_mode):
    x = RNG.standard_normal((1, 2, 4, 5))
    got = F.pad(t64(x), pad, mode=mode).numpy()
    widths = ((0, 0), (0, 0), (pad[2], pad[3]), (pad[0], pad[1]))
    np.testing.assert_array_equal(got, np.pad(x, widths, mode=numpy_mode))
    xt = t64(x, grad=True)
    assert gradcheck(lambda t: F.pad(t, pad, mode=mode), (xt,))


def test_pad_constant_value_and_negative_crop():
    x = RNG.standard_normal((2, 3, 4))
    got = F.pad(t64(x), (1, -1, -1, 2), value=7.0).numpy()
    ref = np.pad(x[:, 1:, :-1], ((0, 0), (0, 2), (1, 0)), constant_values=7.0)
    np.testing.assert_array_equal(got, ref)


def test_pad_errors():
    x = mg.randn(1, 2, 3, 3)
    with pytest.raises(RuntimeError, match="even number"):
        F.pad(x, (1, 2, 3))
    with pytest.raises(RuntimeError, match="reflect padding"):
        F.pad(x[0], (3, 0), mode="reflect")
    with pytest.raises(NotImplementedError, match="mode must be"):
        F.pad(x, (1, 1), mode="mirror")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(("ndim", "amounts"), [(1, 2), (4, 2), (5, 2), (2, 4), (5, 4), (3, 6)])
def test_non_constant_pad_refuses_inputs_without_a_channel_dim_or_with_extra_dims(
    mode, ndim, amounts
):
    """Reflect, replicate and circular padding of k dims take a (batch, channel, *k dims) or
    (channel, *k dims) input, as PyTorch's (which raises NotImplementedError otherwise)."""
    x = mg.randn(*(3,) * ndim)
    with pytest.raises(NotImplementedError, match=f"{ndim}-d"):
        F.pad(x, (1,) * amounts, mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize(("ndim", "amounts"), [(2, 2), (3, 2), (3, 4), (4, 4), (4, 6), (5, 6)])
def test_non_constant_pad_of_k_dims_accepts_k_plus_one_or_two_dims(mode, ndim, amounts):
    x = mg.randn(*(3,) * ndim)
    out = F.pad(x, (1,) * amounts, mode=mode)
    k = amounts // 2
    assert out.shape == (3,) * (ndim - k) + (5,) * k


# ------------------------------------------------------------------------------------------------
# The Conv2d module
# ------------------------------------------------------------------------------------------------
def test_conv2d_module_default_init_is_pytorchs():
    mg.manual_seed(0)
    conv = nn.Conv2d(16, 32, 3, groups=2)
    fan_in = 16 // 2 * 3 * 3
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) and the bias rule agree here
    w, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
    assert conv.weight.shape == (32, 8, 3, 3) and conv.bias.shape == (32,)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.05 * bound  # U(-a, a) has std a/sqrt(3)
    assert np.abs(b).max() <= bound
    assert [n for n, _ in conv.named_parameters()] == ["weight", "bias"]
    assert nn.Conv2d(2, 2, 1, bias=False).bias is None


def test_conv2d_module_forward_and_repr():
    conv = nn.Conv2d(2, 3, (3, 2), stride=2, padding=1).double()
    x = RNG.standard_normal((2, 2, 7, 6))
    ref = conv2d_loops(
        x, conv.weight.detach().numpy(), conv.bias.detach().numpy(), (2, 2), (1, 1), (1, 1), 1
    )
    np.testing.assert_allclose(conv(t64(x)).detach().numpy(), ref, atol=1e-12)
    assert repr(conv).startswith("Conv2d(2, 3, kernel_size=(3, 2), stride=(2, 2), padding=(1, 1)")


def test_conv2d_module_padding_modes():
    x = RNG.standard_normal((1, 1, 5, 5))
    conv = nn.Conv2d(1, 1, 3, padding=1, padding_mode="replicate", bias=False).double()
    ref = conv2d_loops(
        np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge"),
        conv.weight.detach().numpy(),
        None,
        (1, 1),
        (0, 0),
        (1, 1),
        1,
    )
    np.testing.assert_allclose(conv(t64(x)).detach().numpy(), ref, atol=1e-12)


def test_conv2d_errors_name_the_shapes():
    conv = nn.Conv2d(3, 8, 3)
    with pytest.raises(RuntimeError, match=r"\(2, 4, 8, 8\) has 4 channels.*\(8, 3, 3, 3\)"):
        conv(mg.randn(2, 4, 8, 8))
    with pytest.raises(RuntimeError, match="4-d input"):
        conv(mg.randn(3, 8))
    with pytest.raises(RuntimeError, match="smaller than the 3x3 kernel"):
        conv(mg.randn(1, 3, 2, 2))
    with pytest.raises(ValueError, match="divisible by groups"):
        nn.Conv2d(3, 8, 3, groups=2)
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(3, 8, 3, stride=2, padding="same")
    with pytest.raises(RuntimeError, match="weight must be 4-d"):
        F.conv2d(mg.randn(1, 3, 5, 5), mg.randn(8, 3, 3))
    with pytest.raises(RuntimeError, match=r"bias must have shape \(8,\)"):
        F.conv2d(mg.randn(1, 3, 5, 5), mg.randn(8, 3, 3, 3), mg.randn(4))
    with pytest.raises(RuntimeError, match="same dtype, but got: double, float and float"):
        conv(mg.randn(1, 3, 5, 5, dtype=mg.float64))
    with pytest.raises(RuntimeError, match=r"padding \(2, 2\) should be at most half"):
        F.max_pool2d(mg.randn(1, 1, 4, 4), 2, padding=2)
    with pytest.raises(RuntimeError, match="4-d input"):
        F.avg_pool2d(mg.randn(4, 4), 2)


# ------------------------------------------------------------------------------------------------
# PyTorch parity (optional oracle)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs",
    [
        dict(stride=1, padding=1),
        dict(stride=2, padding=(0, 2), dilation=(2, 1)),
        dict(stride=(1, 3), padding=2, groups=2),
        dict(padding="same", dilation=2),
    ],
)
def test_conv2d_torch_parity_forward_and_backward(kwargs):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 4, 9, 8))
    w = RNG.standard_normal((6, 4 // kwargs.get("groups", 1), 3, 4))
    b = RNG.standard_normal(6)
    ours = [t64(a, grad=True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    y = F.conv2d(*ours, **kwargs)
    yt = torch.nn.functional.conv2d(*theirs, **kwargs)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    g = RNG.standard_normal(y.shape)
    y.backward(t64(g))
    yt.backward(torch.tensor(g))
    for a, at in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), at.grad.numpy(), atol=1e-11)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=(2, 3), stride=(2, 1), dilation=(1, 2)),
        dict(kernel_size=3, stride=3, ceil_mode=True),
    ],
)
def test_max_pool_torch_parity(kwargs):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 8, 9))
    ours, theirs = t64(x, grad=True), torch.tensor(x, requires_grad=True)
    y, idx = F.max_pool2d(ours, return_indices=True, **kwargs)
    yt, idxt = torch.nn.functional.max_pool2d(theirs, return_indices=True, **kwargs)
    np.testing.assert_array_equal(y.detach().numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), idxt.numpy())
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
@pytest.mark.parametrize(
    "kwargs",
    [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2, stride=1)],
)
def test_max_pool_ties_and_nans_pick_the_element_pytorch_picks(kwargs, dtype):
    # PyTorch's kernel keeps the first maximum of a window, and a NaN beats everything (the
    # last NaN of a window wins): values, indices and gradients must agree element for element.
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    x[0, 1, 2:4, 2:6] = 1.0  # ties inside windows
    x[0, 0, 0, :2] = np.nan  # two NaNs in one window
    x[1, 2, 5, 5] = np.nan
    ours = mg.tensor(x).to(getattr(mg, dtype)).requires_grad_()
    theirs = torch.tensor(x).to(getattr(torch, dtype)).requires_grad_()
    y, idx = F.max_pool2d(ours, return_indices=True, **kwargs)
    yt, idxt = torch.nn.functional.max_pool2d(theirs, return_indices=True, **kwargs)
    np.testing.assert_array_equal(y.float().detach().numpy(), yt.float().detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), idxt.numpy())
    g = RNG.standard_normal(y.shape).astype(np.float32)
    y.backward(mg.tensor(g).to(y.dtype))
    yt.backward(torch.tensor(g).to(yt.dtype))
    # (where windows overlap, a pixel sums several gradients: in another order than PyTorch's)
    tol = 1e-6 if dtype == "float32" else 2e-2
    np.testing.assert_allclose(
        ours.grad.float().numpy(), theirs.grad.float().numpy(), rtol=tol, atol=tol
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
        dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
        dict(kernel_size=2, stride=2, ceil_mode=True),
        dict(kernel_size=(3, 2), stride=1, padding=(1, 1), divisor_override=4),
    ],
)
def test_avg_pool_torch_parity(kwargs):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((2, 3, 7, 9))
    ours, theirs = t64(x, grad=True), torch.tensor(x, requires_grad=True)
    y = F.avg_pool2d(ours, **kwargs)
    yt = torch.nn.functional.avg_pool2d(theirs, **kwargs)
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), atol=1e-14)
    y.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-14)


def test_conv2d_module_torch_parity_with_copied_weights():
    torch = pytest.importorskip("torch")
    ref = torch.nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, padding_mode="circular")
    ours = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2, padding_mode="circular")
    ours.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = RNG.standard_normal((2, 4, 7, 7)).astype(np.float32)
    np.testing.assert_allclose(
        ours(mg.tensor(x)).detach().numpy(), ref(torch.tensor(x)).detach().numpy(), atol=1e-5
    )


# ------------------------------------------------------------------------------------------------
# A small CNN learns
# ------------------------------------------------------------------------------------------------
def bars_dataset(n: int, rng: np.random.Generator):
    """8x8 images holding one bar: horizontal, vertical, diagonal or anti-diagonal (4 classes),
    at a random position, with noise."""
    x = rng.normal(0.0, 0.3, size=(n, 1, 8, 8)).astype(np.float32)
    y = rng.integers(0, 4, size=n)
    pos = rng.integers(1, 7, size=n)
    idx = np.arange(8)
    for i in range(n):
        if y[i] == 0:
            x[i, 0, pos[i], :] += 1.0
        elif y[i] == 1:
            x[i, 0, :, pos[i]] += 1.0
        elif y[i] == 2:
            x[i, 0, idx, idx] += 1.0
        else:
            x[i, 0, idx, 7 - idx] += 1.0
    return x, y


def test_small_cnn_learns_bar_orientations():
    """Conv-ReLU-MaxPool-Conv-ReLU-AvgPool-Linear reaches >= 95% test accuracy on 4 classes."""
    rng = np.random.default_rng(0)
    mg.manual_seed(0)
    x_train, y_train = bars_dataset(512, rng)
    x_test, y_test = bars_dataset(256, rng)
    model = nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, padding=1),
        nn.ReLU(),
        nn.AvgPool2d(4),
        nn.Flatten(),
        nn.Linear(16, 4),
    )
    opt = mg.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    for _epoch in range(8):
        order = rng.permutation(len(x_train))
        for i in range(0, len(order), 64):
            b = order[i : i + 64]
            loss = loss_fn(model(mg.tensor(x_train[b])), mg.tensor(y_train[b]))
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    with mg.no_grad():
        pred = model(mg.tensor(x_test)).argmax(dim=1).numpy()
    accuracy = (pred == y_test).mean()
    assert accuracy >= 0.95, f"test accuracy {accuracy:.3f}"
