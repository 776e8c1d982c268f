"""3-d convolution and pooling (F.conv3d, F.conv_transpose3d, F.avg_pool3d, F.max_pool3d) and
max unpooling (F.max_unpool1d/2d/3d): values against direct NumPy loops over the definitions,
gradients against float64 central differences, PyTorch's argument rules."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck

rng = np.random.default_rng(0)


def _conv3d_loops(x, w, b, stride, pad, dil, groups):
    """y[n, o, z, r, c] = b[o] + sum w[o, ch, i, j, k] x_pad[n, g*Cg + ch, z s + i d, ...]."""
    n, c_in = x.shape[:2]
    c_out, cg = w.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in pad))
    outs = [
        (xp.shape[2 + a] - dil[a] * (w.shape[2 + a] - 1) - 1) // stride[a] + 1 for a in range(3)
    ]
    y = np.zeros((n, c_out, *outs))
    per_group = c_out // groups
    for o in range(c_out):
        g = o // per_group
        for z, r, q in itertools.product(*(range(k) for k in outs)):
            for i, j, k in itertools.product(*(range(s) for s in w.shape[2:])):
                v = xp[
                    :,
                    g * cg : (g + 1) * cg,
                    z * stride[0] + i * dil[0],
                    r * stride[1] + j * dil[1],
                    q * stride[2] + k * dil[2],
                ]
                y[:, o, z, r, q] += v @ w[o, :, i, j, k]
        y[:, o] += 0 if b is None else b[o]
    return y


def test_conv3d_matches_the_direct_sum_with_stride_padding_dilation_and_groups():
    x, w, b = rng.standard_normal((2, 4, 5, 6, 5)), rng.standard_normal((6, 2, 2, 3, 2)), None
    b = rng.standard_normal(6)
    y = F.conv3d(mg.tensor(x), mg.tensor(w), mg.tensor(b), (1, 2, 1), (1, 0, 1), (1, 1, 2), 2)
    want = _conv3d_loops(x, w, b, (1, 2, 1), (1, 0, 1), (1, 1, 2), 2)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)


def test_conv3d_same_padding_keeps_the_size_and_unbatched_input_works():
    x, w = rng.standard_normal((3, 4, 5, 6)), rng.standard_normal((2, 3, 3, 2, 3))
    y = F.conv3d(mg.tensor(x), mg.tensor(w), padding="same")
    assert tuple(y.shape) == (2, 4, 5, 6)
    # 'same' with an even kernel puts the extra zero after the input, as PyTorch
    padded = np.pad(x[None], ((0, 0), (0, 0), (1, 1), (0, 1), (1, 1)))
    want = _conv3d_loops(padded, w, None, (1, 1, 1), (0, 0, 0), (1, 1, 1), 1)[0]
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-12, atol=1e-12)


def test_conv3d_gradients_match_central_differences_to_second_order():
    x = mg.tensor(rng.standard_normal((1, 2, 3, 4, 3)), requires_grad=True)
    w = mg.tensor(rng.standard_normal((4, 1, 2, 2, 2)), requires_grad=True)
    b = mg.tensor(rng.standard_normal(4), requires_grad=True)

    def f(x, w, b):
        return F.conv3d(x, w, b, stride=(2, 1, 1), padding=1, groups=2)

    assert gradcheck(f, (x, w, b), eps=1e-6, atol=1e-6)
    v = mg.tensor(rng.standard_normal(tuple(f(x, w, b).shape)))

    def grads(x, w, b):  # the first derivatives, differentiated again
        return mg.autograd.grad((f(x, w, b) * v).sum(), (x, w), create_graph=True)

    assert gradcheck(grads, (x, w, b), eps=1e-6, atol=1e-6)


def test_conv_transpose3d_is_the_adjoint_of_conv3d():
    # <conv3d(x, w), y> = <x, conv_transpose3d(y, w)> for matching geometry
    x = rng.standard_normal((2, 3, 5, 6, 7))
    w = rng.standard_normal((4, 3, 3, 2, 3))
    s, p, d = (2, 1, 3), (1, 0, 1), (1, 2, 1)
    y = F.conv3d(mg.tensor(x), mg.tensor(w), None, s, p, d)
    g = rng.standard_normal(tuple(y.shape))
    # output_padding recovers the sizes that the strided conv3d floored away
    op = tuple(
        x.shape[2 + a] - ((y.shape[2 + a] - 1) * s[a] - 2 * p[a] + d[a] * (w.shape[2 + a] - 1) + 1)
        for a in range(3)
    )
    xt = F.conv_transpose3d(mg.tensor(g), mg.tensor(w), None, s, p, op, 1, d)
    assert tuple(xt.shape) == x.shape
    np.testing.assert_allclose((y.numpy() * g).sum(), (x * xt.numpy()).sum(), rtol=1e-11)


def test_conv_transpose3d_gradients_match_central_differences():
    x = mg.tensor(rng.standard_normal((1, 2, 2, 3, 2)), requires_grad=True)
    w = mg.tensor(rng.standard_normal((2, 2, 2, 2, 3)), requires_grad=True)
    b = mg.tensor(rng.standard_normal(4), requires_grad=True)

    def f(x, w, b):
        return F.conv_transpose3d(x, w, b, stride=2, padding=(0, 1, 1), output_padding=1, groups=2)

    assert gradcheck(f, (x, w, b), eps=1e-6, atol=1e-6)


def test_conv3d_refuses_mismatched_channels_and_a_wrong_weight_rank():
    x = mg.randn(1, 3, 4, 4, 4)
    with pytest.raises(RuntimeError, match="groups"):
        F.conv3d(x, mg.randn(2, 2, 3, 3, 3))
    with pytest.raises(RuntimeError, match="5-d"):
        F.conv3d(x, mg.randn(2, 3, 3, 3))
    with pytest.raises(RuntimeError, match="output padding"):
        F.conv_transpose3d(x, mg.randn(3, 2, 3, 3, 3), stride=2, output_padding=2)


def _windows(x, k, s, p, d, fill):
    """Every window of x (N, C, D, H, W) as (N, C, D', H', W', kd*kh*kw), plain loops (no
    ceil_mode): the pooling references."""
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple((a, a) for a in p), constant_values=fill)
    outs = [(xp.shape[2 + a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in range(3)]
    out = np.empty(x.shape[:2] + tuple(outs) + (k[0] * k[1] * k[2],))
    for z, r, q in itertools.product(*(range(o) for o in outs)):
        for m, (i, j, l) in enumerate(itertools.product(*(range(a) for a in k))):
            out[:, :, z, r, q, m] = xp[
                :, :, z * s[0] + i * d[0], r * s[1] + j * d[1], q * s[2] + l * d[2]
            ]
    return out


def test_avg_pool3d_with_and_without_padding_in_the_divisor():
    x = rng.standard_normal((2, 3, 5, 6, 4))
    k, s, p = (3, 2, 3), (2, 2, 1), (1, 1, 1)
    sums = _windows(x, k, s, p, (1, 1, 1), 0.0).sum(-1)
    ones = _windows(np.ones_like(x), k, s, p, (1, 1, 1), 0.0).sum(-1)
    y = F.avg_pool3d(mg.tensor(x), k, s, p)
    np.testing.assert_allclose(y.numpy(), sums / 18, rtol=1e-12)
    y = F.avg_pool3d(mg.tensor(x), k, s, p, count_include_pad=False)
    np.testing.assert_allclose(y.numpy(), sums / ones, rtol=1e-12)
    y = F.avg_pool3d(mg.tensor(x), k, s, p, divisor_override=7)
    np.testing.assert_allclose(y.numpy(), sums / 7, rtol=1e-12)


def test_avg_pool3d_ceil_mode_keeps_a_last_partial_window_counting_only_its_inside():
    x = rng.standard_normal((1, 1, 5, 5, 5))
    y = F.avg_pool3d(mg.tensor(x), 2, ceil_mode=True)  # 3 windows per dim, the last one 1 wide
    assert tuple(y.shape) == (1, 1, 3, 3, 3)
    np.testing.assert_allclose(y.numpy()[0, 0, 2, 2, 2], x[0, 0, 4, 4, 4], rtol=1e-12)
    np.testing.assert_allclose(y.numpy()[0, 0, 0, 0, 2], x[0, 0, :2, :2, 4].mean(), rtol=1e-12)


def test_avg_pool3d_of_integers_truncates_towards_zero():
    x = mg.tensor([[[[[-5, -4], [-4, -4]], [[1, 2], [3, 4]]]]])  # (1, 1, 2, 2, 2), int64
    y = F.avg_pool3d(x, (1, 2, 2))
    assert y.dtype == mg.int64
    assert y.flatten().tolist() == [-4, 2]  # -17/4 = -4.25 -> -4; 10/4 = 2.5 -> 2


def test_avg_pool3d_gradient_matches_central_differences():
    x = mg.tensor(rng.standard_normal((1, 2, 3, 4, 5)), requires_grad=True)

    def f(x):
        return F.avg_pool3d(x, 2, (1, 2, 2), 1, ceil_mode=True, count_include_pad=False)

    assert gradcheck(f, (x,), eps=1e-6, atol=1e-7)


def test_max_pool3d_values_and_indices_match_the_windows():
    x = rng.standard_normal((2, 2, 6, 5, 7))
    k, s, p, d = (2, 3, 2), (2, 1, 2), (1, 1, 0), (2, 1, 1)
    win = _windows(x, k, s, p, d, -np.inf)
    y, idx = F.max_pool3d(mg.tensor(x), k, s, p, d, return_indices=True)
    np.testing.assert_array_equal(y.numpy(), win.max(-1))
    # each index names the element holding the maximum in its (D, H, W) volume
    picked = np.take_along_axis(x.reshape(2, 2, -1), idx.numpy().reshape(2, 2, -1), axis=-1)
    np.testing.assert_array_equal(picked.reshape(y.shape), y.numpy())


def test_max_pool3d_gradient_goes_to_the_first_maximum_and_a_nan_wins():
    x = np.zeros((1, 1, 2, 2, 2))  # one window, all tied: the first element gets the gradient
    t = mg.tensor(x, requires_grad=True)
    F.max_pool3d(t, 2).sum().backward()
    assert t.grad.numpy().ravel().tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    x[0, 0, 0, 1, 0] = x[0, 0, 1, 0, 1] = np.nan  # the last NaN wins (PyTorch's CPU rule)
    y, idx = F.max_pool3d(mg.tensor(x), 2, return_indices=True)
    assert np.isnan(y.item()) and idx.item() == 5


def test_max_pool3d_gradient_matches_central_differences():
    x = mg.tensor(rng.permutation(60).reshape(1, 1, 3, 4, 5) / 7.0, requires_grad=True)
    assert gradcheck(lambda x: F.max_pool3d(x, 2, 1, 1), (x,), eps=1e-6, atol=1e-7)


def test_max_pool3d_keeps_integer_dtypes_and_refuses_too_much_padding():
    x = mg.arange(64, dtype=mg.int32).reshape(1, 1, 4, 4, 4)
    y = F.max_pool3d(x, 2)
    assert y.dtype == mg.int32 and y.flatten().tolist() == [21, 23, 29, 31, 53, 55, 61, 63]
    with pytest.raises(NotImplementedError, match="avg_pool3d"):  # int64 only, as PyTorch
        F.avg_pool3d(x, 2)
    with pytest.raises(RuntimeError, match="at most half"):
        F.max_pool3d(x.float(), 2, padding=2)


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_puts_each_maximum_back_and_zeros_elsewhere(dims):
    shape = (2, 3) + (6,) * dims
    x = mg.tensor(rng.standard_normal(shape), requires_grad=True)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[dims]
    unpool = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[dims]
    v, idx = pool(x, 2, return_indices=True)
    u = unpool(v, idx, 2)
    assert tuple(u.shape) == shape
    kept = u.detach().numpy() != 0
    np.testing.assert_array_equal(u.detach().numpy()[kept], x.detach().numpy()[kept])
    assert kept.sum() == v.numel()  # one maximum per window, the rest zero
    u.sum().backward()  # each maximum reached once, through unpool and pool
    np.testing.assert_array_equal(x.grad.numpy(), kept.astype(float))


def test_max_unpool2d_output_size_and_its_range():
    v, idx = F.max_pool2d(mg.randn(1, 1, 5, 5), 2, return_indices=True)  # 2x2 of a 5x5
    assert tuple(F.max_unpool2d(v, idx, 2, output_size=(1, 1, 5, 5)).shape) == (1, 1, 5, 5)
    assert tuple(nn.MaxUnpool2d(2)(v, idx).shape) == (1, 1, 4, 4)
    with pytest.raises(ValueError, match="must be between 2 and 6"):
        F.max_unpool2d(v, idx, 2, output_size=(7, 7))


def test_max_unpool_refuses_an_index_outside_the_output_and_non_int64_indices():
    v, idx = F.max_pool2d(mg.randn(1, 1, 4, 4), 2, return_indices=True)
    with pytest.raises(RuntimeError, match="invalid max index"):
        F.max_unpool2d(v, idx + 100, 2)
    with pytest.raises(RuntimeError, match="int64"):
        F.max_unpool2d(v, idx.int(), 2)


def test_max_unpool1d_gradient_matches_central_differences():
    x = mg.tensor(rng.standard_normal((2, 2, 3)), requires_grad=True)
    idx = mg.tensor([[[0, 3, 5], [1, 2, 4]], [[1, 3, 4], [0, 2, 5]]])
    assert gradcheck(lambda x: F.max_unpool1d(x, idx, 2), (x,), eps=1e-6, atol=1e-8)


def test_3d_layers_hold_triples_and_print_as_pytorch():
    conv = nn.Conv3d(2, 4, 3, padding=1)
    assert tuple(conv.weight.shape) == (4, 2, 3, 3, 3) and conv.kernel_size == (3, 3, 3)
    assert repr(conv) == (
        "Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1), padding=(1, 1, 1))"
    )
    bound = 1 / np.sqrt(2 * 27)
    assert np.abs(conv.weight.detach().numpy()).max() <= bound
    up = nn.ConvTranspose3d(4, 2, 2, stride=2)
    assert tuple(up(mg.randn(1, 4, 2, 3, 2)).shape) == (1, 2, 4, 6, 4)
    assert tuple(up(mg.randn(1, 4, 2, 3, 2), output_size=(5, 7, 5)).shape) == (1, 2, 5, 7, 5)
    assert (
        repr(nn.MaxUnpool1d(3, 2, 1)) == "MaxUnpool1d(kernel_size=(3,), stride=(2,), padding=(1,))"
    )
    bn = nn.BatchNorm3d(3)
    y = bn(mg.randn(4, 3, 2, 3, 2) * 5 + 2)
    np.testing.assert_allclose(y.detach().numpy().mean(axis=(0, 2, 3, 4)), 0, atol=1e-6)
    with pytest.raises(ValueError, match="5D"):
        bn(mg.randn(4, 3, 2, 3))


def _adaptive_reference(x, out, reduce):
    """Loops over PyTorch's adaptive windows [floor(i n / m), ceil((i + 1) n / m))."""

    def bounds(n, m, i):
        return (i * n) // m, -(-((i + 1) * n) // m)

    y = np.empty(x.shape[:2] + tuple(out))
    for i, j, k in itertools.product(*(range(o) for o in out)):
        (a, b), (c, d), (e, f) = (
            bounds(x.shape[2 + t], out[t], v) for t, v in enumerate((i, j, k))
        )
        y[:, :, i, j, k] = reduce(x[:, :, a:b, c:d, e:f].reshape(x.shape[:2] + (-1,)), axis=-1)
    return y


@pytest.mark.parametrize("out", [(2, 3, 4), (3, 1, 2), (5, 6, 7)])
def test_adaptive_pool3d_reduces_pytorchs_adaptive_windows(out):
    x = rng.standard_normal((2, 3, 5, 6, 7))
    got = F.adaptive_avg_pool3d(mg.tensor(x), out).numpy()
    np.testing.assert_allclose(got, _adaptive_reference(x, out, np.mean), rtol=1e-12)
    values, idx = F.adaptive_max_pool3d(mg.tensor(x), out, return_indices=True)
    np.testing.assert_array_equal(values.numpy(), _adaptive_reference(x, out, np.max))
    picked = np.take_along_axis(x.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1), axis=-1)
    np.testing.assert_array_equal(picked.reshape(values.shape), values.numpy())
    assert tuple(nn.AdaptiveAvgPool3d((2, None, 3))(mg.tensor(x)).shape) == (2, 3, 2, 6, 3)


def test_adaptive_pool3d_gradients_match_central_differences():
    x = mg.tensor(rng.permutation(60).reshape(1, 1, 3, 4, 5) / 7.0, requires_grad=True)
    assert gradcheck(lambda x: F.adaptive_avg_pool3d(x, (2, 3, 2)), (x,), eps=1e-6, atol=1e-7)
    assert gradcheck(lambda x: F.adaptive_max_pool3d(x, (2, 3, 2)), (x,), eps=1e-6, atol=1e-7)
