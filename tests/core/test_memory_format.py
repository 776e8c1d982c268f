"""Memory formats: channels_last is a real NHWC layout behind an NCHW shape; values never change,
strides follow the closed form, and ops give the same numbers on either layout."""

import pickle

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _nchw(shape=(2, 3, 4, 5), seed=0):
    return mg.tensor(np.random.default_rng(seed).standard_normal(shape))


def _channels_last_strides(n, c, h, w):
    """NHWC row-major strides, read back in NCHW order (sizes of 1 count as 1)."""
    return (h * w * c, 1, w * c, c)


def test_channels_last_strides_are_nhwc_row_major_and_values_unchanged():
    x = _nchw()
    y = x.to(memory_format=mg.channels_last)
    assert y.stride() == _channels_last_strides(2, 3, 4, 5)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.is_contiguous(memory_format=mg.channels_last) and not y.is_contiguous()
    # the memory itself is the NHWC array
    np.testing.assert_array_equal(
        np.asarray(y._data).transpose(0, 2, 3, 1).ravel(order="K"),
        x.numpy().transpose(0, 2, 3, 1).ravel(),
    )


def test_channels_last_3d_strides_are_ndhwc_row_major():
    x = _nchw((2, 3, 4, 5, 6))
    y = x.contiguous(memory_format=mg.channels_last_3d)
    assert y.stride() == (4 * 5 * 6 * 3, 1, 5 * 6 * 3, 6 * 3, 3)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert y.contiguous(memory_format=mg.channels_last_3d) is y
    back = y.contiguous()
    assert back.is_contiguous() and back.stride() == (360, 120, 30, 6, 1)


def test_to_with_a_memory_format_returns_self_when_the_strides_already_suggest_it():
    x = _nchw()
    assert x.to(memory_format=mg.preserve_format) is x
    assert x.to(memory_format=mg.contiguous_format) is x
    y = x.to(memory_format=mg.channels_last)
    assert y.to(memory_format=mg.channels_last) is y
    t = mg.ones(3, 4).t()  # contiguous_format is suggested for any non-channels-last matrix
    assert t.to(memory_format=mg.contiguous_format) is t
    # one channel: row-major strides are also channels_last-contiguous, yet to() restrides
    one = mg.ones(2, 1, 4, 5)
    assert one.is_contiguous(memory_format=mg.channels_last)
    assert one.to(memory_format=mg.channels_last).stride() == (20, 1, 5, 1)


def test_to_memory_format_with_a_dtype_keeps_the_layout():
    y = _nchw().to(mg.float32, memory_format=mg.channels_last)
    assert y.dtype == mg.float32 and y.stride() == _channels_last_strides(2, 3, 4, 5)


def test_wrong_rank_and_preserve_format_are_refused_like_pytorch():
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        mg.ones(3, 4, 5).to(memory_format=mg.channels_last)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        mg.ones(3, 4, 5).contiguous(memory_format=mg.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d"):
        mg.ones(2, 3, 4, 5).contiguous(memory_format=mg.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        mg.ones(2, 3, 4, 5).contiguous(memory_format=mg.preserve_format)
    with pytest.raises(TypeError, match="memory_format must be a memory format"):
        mg.ones(2).contiguous(memory_format="channels_last")
    assert not mg.ones(3, 4, 5).is_contiguous(memory_format=mg.channels_last)


def test_elementwise_ops_and_clone_preserve_channels_last():
    y = _nchw().to(memory_format=mg.channels_last)
    cl = _channels_last_strides(2, 3, 4, 5)
    for out in (y + 1, y * y, mg.relu(y), y.exp(), y.clone(), y.to(mg.float32)):
        assert out.stride() == cl
    assert y.clone(memory_format=mg.contiguous_format).is_contiguous()
    np.testing.assert_array_equal(y.clone(memory_format=mg.contiguous_format).numpy(), y.numpy())


def test_like_constructors_follow_preserve_format_and_explicit_formats():
    w = mg.ones(2, 3, 4, 5).transpose(2, 3)  # dense but permuted: strides kept exactly
    assert mg.empty_like(w).stride() == w.stride() == (60, 20, 1, 5)
    assert mg.full_like(w, 2.0).stride() == w.stride()
    assert mg.zeros_like(w, memory_format=mg.channels_last).stride() == (60, 1, 12, 3)
    assert mg.ones_like(w, memory_format=mg.contiguous_format).is_contiguous()
    np.testing.assert_array_equal(mg.full_like(w, 2.0).numpy(), np.full((2, 3, 5, 4), 2.0))
    gaps = mg.ones(2, 3, 4, 5)[:, :, ::2]  # not dense: dense strides in its dims' order
    assert mg.empty_like(gaps).stride() == (30, 10, 5, 1)
    cl_gaps = mg.ones(2, 4, 5, 3).permute(0, 3, 1, 2)[:, :, ::2]  # channels_last with gaps
    assert mg.empty_like(cl_gaps).stride() == cl_gaps.clone().stride() == (30, 1, 15, 3)
    r = mg.randn_like(w)
    assert r.stride() == w.stride() and r.shape == w.shape


def test_contiguous_to_channels_last_passes_the_gradient_through_unchanged():
    x = _nchw().requires_grad_()
    g = _nchw(seed=1)
    x.contiguous(memory_format=mg.channels_last).backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), g.numpy())


def test_conv_batchnorm_and_pooling_give_the_same_values_on_channels_last_inputs():
    rng = np.random.default_rng(2)
    x = mg.tensor(rng.standard_normal((2, 3, 8, 8)))
    w = mg.tensor(rng.standard_normal((4, 3, 3, 3)))
    y = x.to(memory_format=mg.channels_last)
    for f in (
        lambda t: F.conv2d(t, w, padding=1),
        lambda t: F.batch_norm(t, None, None, training=True),
        lambda t: F.max_pool2d(t, 2),
        lambda t: F.avg_pool2d(t, 3, stride=2, padding=1),
        lambda t: F.adaptive_avg_pool2d(t, 1),
    ):
        np.testing.assert_allclose(f(y).numpy(), f(x).numpy(), rtol=1e-12, atol=1e-12)


def test_conv2d_gradients_are_the_same_for_channels_last_inputs():
    rng = np.random.default_rng(3)
    x = mg.tensor(rng.standard_normal((2, 3, 6, 6)))
    w = mg.tensor(rng.standard_normal((4, 3, 3, 3)))
    grads = []
    for leaf in (x.clone(), x.to(memory_format=mg.channels_last)):
        leaf.requires_grad_()
        F.conv2d(leaf, w).square().sum().backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_module_to_channels_last_converts_4d_parameters_only():
    conv, lin = mg.nn.Conv2d(3, 4, 3), mg.nn.Linear(3, 2)
    model = mg.nn.Sequential(conv, lin)
    before = conv.weight.detach().clone()
    assert model.to(memory_format=mg.channels_last) is model
    assert conv.weight.stride() == (27, 1, 9, 3) and isinstance(conv.weight, mg.nn.Parameter)
    np.testing.assert_array_equal(conv.weight.detach().numpy(), before.numpy())
    assert conv.bias.is_contiguous() and lin.weight.is_contiguous()


def test_memory_formats_print_and_pickle_as_themselves():
    assert repr(mg.channels_last) == "minigenesis.channels_last"
    assert isinstance(mg.preserve_format, mg.memory_format)
    assert pickle.loads(pickle.dumps(mg.channels_last)) is mg.channels_last


def test_channels_last_layouts_data_ptr_and_like_work_on_either_device(device):
    x = mg.arange(120.0).reshape(2, 3, 4, 5).to(device)
    y = x.to(memory_format=mg.channels_last)
    assert y.device.type == device and y.stride() == _channels_last_strides(2, 3, 4, 5)
    assert (y + 1).stride() == y.clone().stride() == mg.empty_like(y).stride() == y.stride()
    assert y.contiguous().is_contiguous()
    np.testing.assert_array_equal(y.cpu().numpy(), np.arange(120.0).reshape(2, 3, 4, 5))
    assert x[1].data_ptr() - x.data_ptr() == 60 * 4
    assert x[1].untyped_storage().data_ptr() == x.data_ptr()


def test_empty_takes_a_memory_format():
    assert mg.empty(2, 3, 4, 5, memory_format=mg.channels_last).stride() == (60, 1, 15, 3)
    assert mg.empty((2, 3, 4, 5), memory_format=mg.contiguous_format).is_contiguous()
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        mg.empty(2, 3, 4, 5, memory_format=mg.preserve_format)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        mg.empty(3, 4, 5, memory_format=mg.channels_last)


def test_dtype_and_device_shortcuts_pass_a_memory_format_on():
    x = mg.ones(2, 3, 4, 5, dtype=mg.float64)
    for y in (x.float(memory_format=mg.channels_last), x.cpu(memory_format=mg.channels_last)):
        assert y.stride() == (60, 1, 15, 3)
    assert x.float(memory_format=mg.channels_last).dtype == mg.float32
    assert x.double() is x and x.cpu() is x


def test_memory_format_arguments_are_keyword_only_and_preserve_tests_row_major():
    x = mg.ones(2, 3, 4, 5)
    with pytest.raises(TypeError):
        x.is_contiguous(mg.channels_last)
    with pytest.raises(TypeError):
        x.contiguous(mg.channels_last)
    with pytest.raises(TypeError):
        x.clone(mg.channels_last)
    assert x.is_contiguous(memory_format=mg.preserve_format)
    assert not x.transpose(2, 3).is_contiguous(memory_format=mg.preserve_format)
    assert not x.to(memory_format=mg.channels_last).is_contiguous(memory_format=mg.preserve_format)


def _dense_strides_in_order_of(strides: tuple, shape: tuple) -> tuple:
    """Row-major strides over the dims ordered by the given strides, largest first (PyTorch's
    infer_dense_strides, for strides without ties or zeros)."""
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    out, step = [0] * len(shape), 1
    for d in reversed(order):
        out[d], step = step, step * shape[d]
    return tuple(out)


@pytest.mark.parametrize(
    "make",
    [
        lambda: mg.ones(3, 4)[:, 1::2].t(),
        lambda: mg.ones(4, 6, 8)[:, ::2, 1::3].permute(2, 0, 1),
        lambda: mg.ones(5, 6).t()[::2],
        lambda: mg.ones(2, 3, 4, 5)[:, :, ::2].permute(0, 2, 3, 1),
    ],
)
def test_like_constructors_of_a_sliced_permuted_tensor_keep_its_dim_order(make):
    x = make()
    expected = _dense_strides_in_order_of(x.stride(), tuple(x.shape))
    like = [mg.empty_like(x), mg.zeros_like(x), mg.full_like(x, 2.0), mg.rand_like(x)]
    like += [mg.randn_like(x), mg.randint_like(x, 5), x.clone()]
    for y in like:
        assert y.shape == x.shape and y.stride() == expected


def test_random_like_constructors_take_dtype_and_requires_grad():
    x = mg.ones(2, 3, dtype=mg.float16)
    r = mg.rand_like(x, dtype=mg.float64, requires_grad=True)
    assert r.dtype is mg.float64 and r.requires_grad and r.is_leaf
    assert mg.randn_like(x, requires_grad=True).requires_grad
    i = mg.randint_like(x, 2, 7, dtype=mg.int32)
    assert i.dtype is mg.int32 and set(i.flatten().tolist()) <= set(range(2, 7))
