"""copy.deepcopy of tensors that view one buffer: the copies view one new buffer, as PyTorch's
deepcopy copies each storage once (its memo) and rebuilds every view on it with the same offset,
shape and strides. The oracle is NumPy: the same writes applied to a copied NumPy base."""

import copy

import numpy as np
import pytest

import minigenesis as mg


def test_deepcopied_slices_of_one_tensor_still_share_memory():
    base = mg.arange(6.0)
    a, b, whole = copy.deepcopy([base[0:4], base[2:6], base])
    a[3] = 100.0  # element 3 of the buffer: b[1] and whole[3] see it, the original does not
    ref = np.arange(6.0)
    ref[3] = 100.0
    np.testing.assert_array_equal(whole.numpy(), ref)
    np.testing.assert_array_equal(b.numpy(), ref[2:6])
    np.testing.assert_array_equal(base.numpy(), np.arange(6.0))


def test_deepcopied_views_keep_their_strides_and_see_writes_through_each_other():
    base = mg.arange(6.0).reshape(2, 3)
    t, row, spread = copy.deepcopy([base.t(), base[1], base[0].expand(2, 3)])
    assert t.stride() == (1, 3) and not t.is_contiguous()
    assert spread.stride() == (0, 1)
    row[0] = -1.0  # element (1, 0) of the buffer is t[0, 1]
    ref = np.arange(6.0).reshape(2, 3)
    ref[1, 0] = -1.0
    np.testing.assert_array_equal(t.numpy(), ref.T)
    np.testing.assert_array_equal(spread.numpy(), np.broadcast_to(ref[0], (2, 3)))


def test_separate_deepcopy_calls_give_separate_buffers():
    base = mg.arange(4.0)
    first = copy.deepcopy(base[:2])
    second = copy.deepcopy(base[1:])
    first[1] = 9.0
    np.testing.assert_array_equal(second.numpy(), [1.0, 2.0, 3.0])


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16, mg.bool, mg.int8, mg.float64])
def test_deepcopied_module_with_buffers_viewing_one_buffer_keeps_them_tied(dtype):
    buf = mg.arange(8).to(dtype)
    m = mg.nn.Module()
    m.register_buffer("lo", buf[:4])
    m.register_buffer("hi", buf[2:])
    c = copy.deepcopy(m)
    c.lo.fill_(0)  # zeroes buffer elements 0..3, so hi[0] and hi[1] too
    kind = bool if dtype == mg.bool else np.float32
    ref = np.arange(8).astype(kind)
    ref[:4] = 0
    np.testing.assert_array_equal(c.hi.float().numpy(), ref[2:].astype(np.float32))
    original = np.arange(8).astype(kind)[:4].astype(np.float32)
    np.testing.assert_array_equal(m.lo.float().numpy(), original)  # the original is untouched


def test_deepcopy_of_a_meta_tensor_stays_on_meta():
    c = copy.deepcopy(mg.empty(2, 3, device="meta"))
    assert c.device.type == "meta" and tuple(c.shape) == (2, 3) and c.dtype == mg.float32
