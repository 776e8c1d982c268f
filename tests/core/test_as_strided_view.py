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


def test_as_strided_offsets_count_from_the_storage_of_a_view():
    flat = np.arange(20.0)
    x = mg.tensor(flat.reshape(4, 5))
    rows = x[1:]  # starts at storage element 5
    np.testing.assert_array_equal(rows.as_strided((2,), (1,), 0).numpy(), flat[[0, 1]])
    default = rows.as_strided((2, 2), (1, 5))  # the offset defaults to the view's own
    assert default.storage_offset() == 5
    np.testing.assert_array_equal(default.numpy(), _reference(flat, (2, 2), (1, 5), 5))


@pytest.mark.parametrize(
    "make", [lambda x: x.t(), lambda x: x[:, 1:], lambda x: x[1].expand(3, 5)], ids=str
)
def test_as_strided_of_a_non_contiguous_view_reads_the_storage(make):
    flat = np.arange(20.0)
    x = mg.tensor(flat.reshape(4, 5))
    got = make(x).as_strided((3, 2), (1, 2), 1)
    np.testing.assert_array_equal(got.numpy(), _reference(flat, (3, 2), (1, 2), 1))
    got.zero_()  # a view still: the write reaches the storage
    written = flat.copy()
    written[[1, 2, 3, 4, 5]] = 0  # the places 1 + i + 2 k read
    np.testing.assert_array_equal(x.numpy().reshape(-1), written)


def test_as_strided_gradient_of_a_view_goes_to_the_views_own_elements():
    a = mg.tensor(np.arange(20.0).reshape(4, 5), requires_grad=True)
    rows = (a * 2)[1:]  # storage elements 5..19 of a fresh (4, 5) result
    rows.as_strided((3, 3), (1, 1), 4).sum().backward()
    # y reads storage 4..8 (4, 5, 6 once or more); only 5..19 belong to rows
    reads = np.zeros(20)
    for i in range(3):
        for k in range(3):
            reads[4 + i + k] += 1
    want = np.zeros(20)
    want[5:] = 2 * reads[5:]
    np.testing.assert_array_equal(a.grad.numpy().reshape(-1), want)


def test_as_strided_gradient_of_an_expanded_input_is_shared_by_its_copies():
    w = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    wide = w.expand(2, 3)  # both rows are the same three storage elements
    wide.as_strided((3,), (1,)).sum().backward()
    # each storage element's gradient 1 is split over the 2 places of wide that hold it,
    # then summed back by expand: 1 per element of w
    np.testing.assert_array_equal(w.grad.numpy(), [1.0, 1.0, 1.0])


@pytest.mark.parametrize(
    "make", [lambda b: b[1:], lambda b: b[:, 2:], lambda b: b.t(), lambda b: b], ids=str
)
def test_in_place_write_through_as_strided_of_a_view_reaches_values_and_gradients(make):
    data = np.arange(20.0).reshape(4, 5) + 1
    a = mg.tensor(data, requires_grad=True)
    b = a * 1
    view = make(b).as_strided((2, 2), (5, 1))  # storage places o, o+1, o+5, o+6
    o = view.storage_offset()
    view.mul_(3)
    (b * b).sum().backward()
    tripled = np.zeros(20, dtype=bool)
    tripled[[o, o + 1, o + 5, o + 6]] = True
    want_b = np.where(tripled, 3 * data.ravel(), data.ravel())
    np.testing.assert_array_equal(b.detach().numpy().ravel(), want_b)
    # d/da of sum(b^2) with b = 3a on the tripled places: 18 a there, 2 a elsewhere
    want_grad = np.where(tripled, 18 * data.ravel(), 2 * data.ravel())
    np.testing.assert_array_equal(a.grad.numpy().ravel(), want_grad)


def test_as_strided_in_place_gives_the_tensor_the_new_geometry_over_its_storage():
    x = mg.arange(20.0, dtype=mg.float64)
    y = x[2:]
    assert y.as_strided_((2, 3), (1, 2), 3) is y
    assert y.shape == (2, 3) and y.stride() == (1, 2) and y.storage_offset() == 3
    np.testing.assert_array_equal(y.numpy(), _reference(np.arange(20.0), (2, 3), (1, 2), 3))
    y.fill_(-1.0)  # still over x's memory
    np.testing.assert_array_equal(x.numpy()[:10], [0, 1, 2, -1, -1, -1, -1, -1, -1, 9])
    # in a graph: the gradient adds over the elements read (w[1] and w[2] once, w[3] ... none)
    w = mg.arange(6.0, dtype=mg.float64, requires_grad=True)
    a = w * 2
    a.as_strided_((2, 2), (1, 1), 1)
    a.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0, 2, 4, 2, 0, 0])
