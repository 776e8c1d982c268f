"""as_strided: any sizes and strides over a contiguous tensor's row-major memory, as a view
(writes go through), with PyTorch's geometry errors and the gradient that adds over every
element read more than once."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd.gradcheck import gradcheck


def _reference(flat, size, stride, offset):
    """y[i] = flat[offset + sum_k i_k stride_k], by explicit index arithmetic."""
    out = np.empty(size)
    for i in np.ndindex(*size):
        out[i] = flat[offset + sum(a * s for a, s in zip(i, stride))]
    return out


@pytest.mark.parametrize(
    ("size", "stride", "offset"),
    [
        ((2, 3), (3, 1), 0),
        ((3, 2), (1, 1), 2),
        ((4,), (0,), 5),
        ((2, 2), (1, 3), 1),
        ((0, 3), (1, 1), 6),
    ],
)
def test_as_strided_reads_offset_plus_index_times_stride(size, stride, offset):
    flat = np.arange(12.0)
    x = mg.tensor(flat.reshape(3, 4))
    got = x.as_strided(size, stride, offset)
    assert got.shape == size and got.stride() == stride
    np.testing.assert_array_equal(got.numpy(), _reference(flat, size, stride, offset))
    np.testing.assert_array_equal(mg.as_strided(x, size, stride, offset).numpy(), got.numpy())


def test_as_strided_is_a_view_writes_reach_the_tensor():
    z = mg.zeros(5)
    v = z.as_strided((2,), (2,), 1)
    v.add_(1)
    np.testing.assert_array_equal(z.numpy(), [0, 1, 0, 1, 0])
    assert v._version == z._version


def test_as_strided_gradient_adds_over_overlapping_reads():
    w = mg.arange(6.0, requires_grad=True)
    w.as_strided((3, 2), (1, 1)).sum().backward()
    # element j is read by every (i, k) with i + k = j, i < 3, k < 2
    np.testing.assert_array_equal(w.grad.numpy(), [1, 2, 2, 1, 0, 0])


def test_as_strided_gradient_matches_central_differences():
    w = mg.tensor(np.random.default_rng(1).normal(size=(2, 4)), requires_grad=True)
    assert gradcheck(lambda t: t.as_strided((3, 3), (2, 1), 1) ** 2, (w,))


@pytest.mark.parametrize(
    ("size", "stride", "offset", "message"),
    [
        ((2, 3), (1, 2), 1, "out of bounds for storage of size 24"),
        ((2, 3), (-1, 2), 0, "Negative strides"),
        ((2, 3), (1,), 0, "mismatch in length of strides and shape"),
        ((2, -3), (1, 1), 0, "overflowed"),
    ],
)
def test_as_strided_bad_geometry_raises_pytorchs_errors(size, stride, offset, message):
    with pytest.raises(RuntimeError, match=message):
        mg.arange(6.0).as_strided(size, stride, offset)


def test_as_strided_refuses_a_non_contiguous_tensor():
    with pytest.raises(RuntimeError, match="not contiguous"):
        mg.ones(2, 3).t().as_strided((2,), (1,))
