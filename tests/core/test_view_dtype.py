"""Tensor.view(dtype): the same bytes read as another dtype, checked against NumPy's ``view``
(values bit for bit, shapes, strides, memory sharing), with PyTorch's refusals of layouts the
new element size cannot describe, and no gradient through it."""

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

NP = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16,
    "float32": np.float32,
    "float64": np.float64,
}


def _source(name: str, shape: tuple) -> np.ndarray:
    """Random bytes of dtype ``name`` (bool: 0 or 1 bytes, the only valid bools)."""
    rng = np.random.default_rng(0)
    if name == "bool":
        return rng.integers(0, 2, shape).astype(np.bool_)
    nbytes = int(np.prod(shape)) * np.dtype(NP[name]).itemsize
    raw = rng.integers(0, 256, nbytes, dtype=np.uint8).view(NP[name]).reshape(shape)
    return raw.copy()


def _bytes(a: np.ndarray) -> np.ndarray:
    """The bytes of each element (NaN payloads compared exactly)."""
    return np.ascontiguousarray(a).view(np.uint8)


PAIRS = [
    ("float32", "int32"),
    ("float32", "uint8"),
    ("float32", "bfloat16"),
    ("float32", "float16"),
    ("int8", "float32"),
    ("uint8", "float64"),
    ("int16", "bfloat16"),
    ("bfloat16", "int16"),
    ("float64", "int32"),
    ("int64", "float64"),
    ("bool", "int8"),
    ("bool", "int16"),
    ("int8", "bool"),
    ("float16", "bool"),
]


@pytest.mark.parametrize(("src", "dst"), PAIRS)
def test_view_dtype_reads_the_same_bytes_as_numpy_view(src, dst):
    a = _source(src, (3, 8))
    got = mg.tensor(a).view(getattr(mg, dst))
    want = a.view(NP[dst])
    assert got.dtype == getattr(mg, dst)
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(_bytes(got.numpy()), _bytes(want))


@pytest.mark.parametrize(
    ("src", "dst", "select"),
    [
        ("float32", "int8", lambda a: a[1:, 2:5]),  # smaller: offset and strides multiplied
        ("int8", "float32", lambda a: a[1:, 4:12]),  # larger: offset and strides divided
        ("int8", "int16", lambda a: a[::2, 2:6]),
        ("float32", "int32", lambda a: a.T),  # same size: any layout
        ("int16", "float16", lambda a: a[::2, ::3]),
        ("float32", "int16", lambda a: a[:, 3:4]),  # a last dim of one element
    ],
)
def test_view_dtype_of_a_strided_tensor_matches_numpy_strides_and_offset(src, dst, select):
    a = _source(src, (4, 16))
    x = select(mg.tensor(a))
    got = x.view(getattr(mg, dst))
    want = select(a).view(NP[dst])
    assert tuple(got.shape) == want.shape
    item = want.itemsize
    assert got.stride() == tuple(s // item for s in want.strides)
    start = a.__array_interface__["data"][0]
    assert got.storage_offset() == (want.__array_interface__["data"][0] - start) // item
    np.testing.assert_array_equal(_bytes(got.numpy()), _bytes(want))


def test_float32_one_viewed_as_int32_is_its_ieee_bits():
    x = mg.tensor([1.0, -2.0, 0.5])
    assert x.view(mg.int32).tolist() == [0x3F800000, -0x40000000, 0x3F000000]
    assert x.view(dtype=mg.int32).tolist() == [0x3F800000, -0x40000000, 0x3F000000]


def test_view_with_a_python_type_reads_it_as_pytorch_does():
    x = mg.tensor([1.0, 2.0])
    assert x.view(float).dtype == mg.float64 and x.view(float).shape == (1,)
    assert x.view(int).dtype == mg.int64 and x.view(bool).dtype == mg.bool
    assert x.view(float).item() == np.float32([1.0, 2.0]).view(np.float64)[0]


def test_view_dtype_writes_through_both_ways_and_shares_the_version_counter():
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    bits = x.view(mg.int32)
    assert np.shares_memory(bits.numpy(), x.numpy())
    bits.add_(1)  # one ulp up, seen by the float tensor
    np.testing.assert_array_equal(x.numpy(), np.nextafter(np.float32([[1, 2], [3, 4]]), np.inf))
    assert x._version == bits._version == 1
    x.mul_(0.0)
    assert bits.tolist() == [[0, 0], [0, 0]]
    assert x._version == bits._version == 2
    halves = x.view(mg.bfloat16)
    halves[0, 1] = 1.0  # the high half of x[0, 0] (little-endian): the bfloat16 1.0 is float 1.0
    assert x[0, 0].item() == 1.0
    assert x._version == halves._version == 3


def test_view_dtype_carries_no_gradient_and_is_no_autograd_view():
    r = mg.randn(2, 4, requires_grad=True)
    for dtype in (mg.float32, mg.float16, mg.float64, mg.int32, mg.uint8, mg.bool):
        v = r.view(dtype)
        assert not v.requires_grad and v.grad_fn is None and v._base is None
    v = (r * 2).view(mg.float32)
    assert not v.requires_grad and v.grad_fn is None
    with pytest.raises(RuntimeError, match="does not require grad"):
        v.sum().backward()
    with pytest.raises(RuntimeError, match="floating"):
        r.view(mg.int32).requires_grad_()


def test_writing_a_dtype_view_of_a_saved_tensor_fails_its_backward():
    r = mg.randn(3, requires_grad=True)
    y = r.exp()  # saves its output for the gradient
    y.view(mg.int32).zero_()
    with pytest.raises(RuntimeError, match="modified by an in-place operation"):
        y.sum().backward()


def test_as_strided_of_a_dtype_view_indexes_the_storage_in_the_new_dtype():
    a = np.arange(1.0, 5.0, dtype=np.float32)
    x = mg.tensor(a)
    v = x.view(mg.int8)
    got = v.as_strided((2, 3), (3, 1), 1)
    np.testing.assert_array_equal(got.numpy(), a.view(np.int8)[1:7].reshape(2, 3))
    w = mg.tensor(a)[1:].view(mg.int16)  # starts 4 bytes in: 2 int16 elements
    assert w.storage_offset() == 2
    np.testing.assert_array_equal(w.as_strided((3,), (2,), 0).numpy(), a.view(np.int16)[0:6:2])
    got[0, 2] = 0  # still a view of the same bytes: the sign/exponent byte of x[0] = 1.0
    assert a.view(np.int8)[3] == 0x3F and v.numpy()[3] == 0 and x[0].item() < 1e-30


def test_view_dtype_on_0d_only_for_the_same_size():
    x = mg.tensor(1.0)
    assert x.view(mg.int32).item() == 0x3F800000 and x.view(mg.int32).shape == ()
    with pytest.raises(RuntimeError, match=r"self.dim\(\) cannot be 0 to view Float as Char"):
        x.view(mg.int8)


def test_view_dtype_of_empty_tensors():
    assert tuple(mg.zeros(0, dtype=mg.int8).view(mg.float32).shape) == (0,)
    assert tuple(mg.zeros(2, 0, dtype=mg.int32).view(mg.int8).shape) == (2, 0)


ERRORS = [
    (lambda: mg.zeros(2, 3, dtype=mg.int8).view(mg.float32),
     "self.size(-1) must be divisible by 4 to view Char as Float (different element sizes), "
     "but got 3"),
    (lambda: mg.zeros(8, 2, dtype=mg.int8).t().view(mg.float32),
     "self.stride(-1) must be 1 to view Char as Float (different element sizes), but got 2"),
    (lambda: mg.zeros(4, 4).t().view(mg.int8),
     "self.stride(-1) must be 1 to view Float as Char (different element sizes), but got 4"),
    (lambda: mg.zeros(2, 8, dtype=mg.int8)[:, 1:5].view(mg.float32),
     "self.storage_offset() must be divisible by 4 to view Char as Float (different element "
     "sizes), but got 1"),
    (lambda: mg.zeros(4, 6, dtype=mg.int8)[:, :4].view(mg.float32),
     "self.stride(0) must be divisible by 4 to view Char as Float (different element sizes), "
     "but got 6"),
    (lambda: mg.zeros(3, 4, 5, dtype=mg.int8)[:, :, :4].view(mg.int16),
     "self.stride(1) must be divisible by 2 to view Char as Short (different element sizes), "
     "but got 5"),
    (lambda: mg.zeros(4, 1, dtype=mg.int16).expand(4, 3).view(mg.bool),
     "self.stride(-1) must be 1 to view Short as Bool (different element sizes), but got 0"),
    (lambda: mg.tensor(1.0).view(mg.float64),
     "self.dim() cannot be 0 to view Float as Double (different element sizes)"),
]  # fmt: skip


@pytest.mark.parametrize(("make", "message"), ERRORS)
def test_view_dtype_refuses_layouts_the_new_size_cannot_describe(make, message):
    with pytest.raises(RuntimeError) as err:
        make()
    assert str(err.value) == message


def test_view_with_a_shape_works_as_before():
    x = mg.arange(6.0)
    assert tuple(x.view(2, 3).shape) == (2, 3)
    assert tuple(x.view((3, 2)).shape) == (3, 2)
    assert tuple(x.view(-1, 2).shape) == (3, 2)
    assert tuple(x.view(size=(6,)).shape) == (6,)
    v = x.view(2, 3)
    v[0, 0] = 7.0
    assert x[0].item() == 7.0 and v._base is x
    with pytest.raises(RuntimeError, match="without a copy"):
        x.view(2, 3).t().view(6)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: x.view(mg.int32, 2),
        lambda x: x.view(2, dtype=mg.int32),
        lambda x: x.view(dtype=mg.int32, size=(2,)),
        lambda x: x.view(dtype="int32"),
        lambda x: x.view(dtype=str),
    ],
)
def test_view_mixing_a_dtype_and_a_shape_is_a_type_error(call):
    with pytest.raises(TypeError):
        call(mg.zeros(2))
