"""Bad input gets a clear error (naming the argument and the allowed range), never a wrong answer.

Each case states minigenesis's error and message; the ``*_like_torch`` tests check that PyTorch
raises the same exception type on the same input (or computes the same result where it accepts it).
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn


def _torch():
    return pytest.importorskip("torch")


def _same_error(case, exc: type) -> None:
    """``case(lib)`` raises ``exc`` for both minigenesis and PyTorch."""
    torch = _torch()
    for lib in (mg, torch):
        with pytest.raises(exc):
            case(lib)


def _fn(lib):
    return F if lib is mg else lib.nn.functional


# ------------------------------------------------------------------------------------------------
# Integer indices: embedding, one_hot, class-index targets
# ------------------------------------------------------------------------------------------------
def test_embedding_refuses_negative_index_instead_of_wrapping_to_last_row():
    emb = nn.Embedding(10, 3)
    with pytest.raises(IndexError, match=r"embedding: index -1 is out of bounds.*\[0, 10\)"):
        emb(mg.tensor([-1]))
    with pytest.raises(IndexError, match=r"index 10 is out of bounds.*\[0, 10\)"):
        F.embedding(mg.tensor([[0, 10]]), mg.ones(10, 3))


def test_embedding_accepts_int32_and_refuses_other_index_dtypes():
    w = mg.randn(4, 2)
    np.testing.assert_array_equal(
        F.embedding(mg.tensor([3, 0], dtype=mg.int32), w).numpy(), w.numpy()[[3, 0]]
    )
    for dtype in (mg.float32, mg.uint8, mg.bool):
        with pytest.raises(RuntimeError, match=f"int64 or int32, got {dtype.name}"):
            F.embedding(mg.tensor([1, 0], dtype=dtype), w)
    with pytest.raises(TypeError, match="Tensor of indices, got list"):
        F.embedding([1, 2], w)


def test_embedding_functional_checks_padding_idx_range():
    w = mg.ones(10, 3)
    with pytest.raises(AssertionError, match=r"padding_idx.*\[-10, 10\), got 10"):
        F.embedding(mg.tensor([3]), w, padding_idx=10)
    with pytest.raises(AssertionError, match=r"got -11"):
        nn.Embedding(10, 3, padding_idx=-11)
    # -1 is the last row: it gets no gradient
    w.requires_grad_(True)
    F.embedding(mg.tensor([9, 9, 0]), w, padding_idx=-1).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[[0, 9]], [[1, 1, 1], [0, 0, 0]])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_index_range_check_finds_the_bad_index_of_every_integer_dtype(dtype):
    from minigenesis.ops.indexing import check_index_range

    fine = np.array([0, 4, 2], dtype=dtype)
    check_index_range(fine, 5, "lookup")  # in range: no error
    with pytest.raises(IndexError, match=r"lookup: index 5 is out of bounds.*\[0, 5\)"):
        check_index_range(np.array([0, 5, 1], dtype=dtype), 5, "lookup")
    if dtype != "uint8":  # a negative index reads as a huge unsigned one: caught, and named
        lowest = int(np.iinfo(dtype).min)
        with pytest.raises(IndexError, match=rf"lookup: index {lowest} is out of bounds"):
            check_index_range(np.array([3, lowest, 1], dtype=dtype), 5, "lookup")
        with pytest.raises(IndexError, match=r"lookup: index -1 is out of bounds"):
            check_index_range(np.array([[1, 2], [-1, 0]], dtype=dtype)[:, ::-1], 5, "lookup")


def test_embedding_empty_index_gives_empty_rows():
    out = F.embedding(mg.tensor([], dtype=mg.int64), mg.ones(4, 2))
    assert out.shape == (0, 2)


def test_one_hot_refuses_classes_out_of_range():
    with pytest.raises(RuntimeError, match=r"class value 3 is out of bounds.*\[0, 3\)"):
        F.one_hot(mg.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match=r"[Cc]lass values must be non-negative"):
        F.one_hot(mg.tensor([0, -1]), 3)
    with pytest.raises(RuntimeError, match=r"[Cc]lass values must be non-negative"):
        F.one_hot(mg.tensor([0, -1]))
    with pytest.raises(RuntimeError, match=r"class value 1 is out of bounds.*\[0, 0\)"):
        F.one_hot(mg.tensor([0, 1]), 0)


def test_one_hot_only_minus_one_infers_the_class_count():
    with pytest.raises(RuntimeError, match=r"out of bounds.*\[0, -2\)"):
        F.one_hot(mg.tensor([0, 1]), -2)
    np.testing.assert_array_equal(F.one_hot(mg.tensor([2, 0])).numpy(), [[0, 0, 1], [1, 0, 0]])


def test_one_hot_argument_types():
    with pytest.raises(TypeError, match="num_classes must be an int, got float"):
        F.one_hot(mg.tensor([1, 2]), 2.5)
    with pytest.raises(RuntimeError, match="dtype int64, got float32"):
        F.one_hot(mg.tensor([1.0]), 3)
    with pytest.raises(RuntimeError, match="dtype int64, got int32"):
        F.one_hot(mg.tensor([1], dtype=mg.int32), 3)


def test_one_hot_of_empty_tensor_needs_num_classes():
    with pytest.raises(RuntimeError, match="empty tensor: pass num_classes"):
        F.one_hot(mg.tensor([], dtype=mg.int64))
    assert F.one_hot(mg.tensor([], dtype=mg.int64), 3).shape == (0, 3)


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_targets_out_of_range_are_refused_except_ignore_index(loss):
    fn = getattr(F, loss)
    x = mg.zeros(2, 3)
    for bad in (3, -1, -100):
        with pytest.raises(IndexError, match=rf"target {bad} is out of bounds.*\[0, 3\)"):
            fn(x, mg.tensor([0, bad]), ignore_index=5)
    with pytest.raises(IndexError, match="target 4 is out of bounds"):
        fn(mg.zeros(2, 3, 4), mg.tensor([[0, 1, 2, 0], [0, 4, 0, 0]]))
    # the ignored sample does not count: the mean is over the one valid sample
    logp = mg.tensor([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]]).log_softmax(dim=1)
    assert fn(logp, mg.tensor([2, -7]), ignore_index=-7).item() == pytest.approx(
        fn(logp[:1], mg.tensor([2])).item()
    )


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_targets_must_be_int64_or_uint8(loss):
    fn = getattr(F, loss)
    x = mg.tensor([[0.5, -1.0, 2.0], [0.0, 1.0, 0.5]]).log_softmax(dim=1)
    ref = fn(x, mg.tensor([2, 1])).item()
    assert fn(x, mg.tensor([2, 1], dtype=mg.uint8)).item() == ref
    for dtype in (mg.int32, mg.int16, mg.bool, mg.float32):
        with pytest.raises(RuntimeError, match=f"dtype int64 or uint8, got {dtype.name}"):
            fn(x, mg.tensor([1, 0], dtype=dtype))


def test_cross_entropy_float_targets_of_input_shape_are_probabilities():
    x = mg.tensor([[0.5, -1.0, 2.0], [0.0, 1.0, 0.5]])
    q = np.array([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]])
    logp = x.numpy() - np.log(np.exp(x.numpy()).sum(1, keepdims=True))
    expected = -(q * logp).sum(1).mean()
    got = F.cross_entropy(x, mg.tensor(q, dtype=mg.float32)).item()
    assert got == pytest.approx(expected, rel=1e-6)
    with pytest.raises(RuntimeError, match="class-index targets.*got float32"):
        F.cross_entropy(x, mg.tensor([0.0, 1.0]))


def _loss(name: str, target, dtype: str = "int64"):
    return lambda L: getattr(_fn(L), name)(L.zeros(2, 3), L.tensor(target, dtype=getattr(L, dtype)))


INDEX_ERRORS = {
    "embedding_negative": (lambda L: L.nn.Embedding(10, 3)(L.tensor([-1])), IndexError),
    "embedding_too_large": (lambda L: L.nn.Embedding(10, 3)(L.tensor([10])), IndexError),
    "embedding_float": (lambda L: L.nn.Embedding(10, 3)(L.tensor([1.0])), RuntimeError),
    "embedding_uint8": (
        lambda L: L.nn.Embedding(10, 3)(L.tensor([1], dtype=L.uint8)),
        RuntimeError,
    ),
    "one_hot_too_large": (lambda L: _fn(L).one_hot(L.tensor([0, 3]), 3), RuntimeError),
    "one_hot_negative": (lambda L: _fn(L).one_hot(L.tensor([0, -1])), RuntimeError),
    "one_hot_minus_two": (lambda L: _fn(L).one_hot(L.tensor([0, 1]), -2), RuntimeError),
    "one_hot_empty": (lambda L: _fn(L).one_hot(L.tensor([], dtype=L.int64)), RuntimeError),
    "one_hot_float_count": (lambda L: _fn(L).one_hot(L.tensor([1, 2]), 2.5), TypeError),
    "one_hot_int32": (
        lambda L: _fn(L).one_hot(L.tensor([1], dtype=L.int32), 3),
        RuntimeError,
    ),
    **{
        f"{name}_{what}": (_loss(name, target, dtype), exc)
        for name in ("cross_entropy", "nll_loss")
        for what, target, dtype, exc in [
            ("target_too_large", [0, 3], "int64", IndexError),
            ("target_negative", [0, -1], "int64", IndexError),
            ("target_int32", [0, 1], "int32", RuntimeError),
            ("target_float", [0, 1], "float32", RuntimeError),
            ("target_bool", [0, 1], "bool", RuntimeError),
        ]
    },
}


@pytest.mark.parametrize("case", INDEX_ERRORS)
def test_index_errors_like_torch(case):
    fn, exc = INDEX_ERRORS[case]
    _same_error(fn, exc)


def test_index_results_like_torch():
    torch = _torch()
    x = np.array([[0.5, -1.0, 2.0], [0.0, 1.0, 0.5]], dtype=np.float32)
    q = np.array([[0.2, 0.8, 0.0], [1.0, 0.0, 0.0]], dtype=np.float32)
    pairs = [
        (
            lambda L: _fn(L).cross_entropy(L.tensor(x), L.tensor([2, 1], dtype=L.uint8)),
            "uint8 targets",
        ),
        (lambda L: _fn(L).cross_entropy(L.tensor(x), L.tensor(q)), "probabilities"),
        (
            lambda L: _fn(L).cross_entropy(L.tensor(x), L.tensor([0, 5]), ignore_index=5),
            "ignored target",
        ),
        (
            lambda L: _fn(L).embedding(
                L.tensor([3, 3], dtype=L.int32), L.tensor(np.arange(12.0).reshape(4, 3))
            ),
            "int32 indices",
        ),
        (lambda L: _fn(L).one_hot(L.tensor([], dtype=L.int64), 3), "empty one_hot"),
    ]
    for case, what in pairs:
        ours, theirs = case(mg), case(torch)
        assert ours.shape == tuple(theirs.shape), what
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, err_msg=what)


# ------------------------------------------------------------------------------------------------
# binary_cross_entropy: probabilities in, targets in [0, 1]
# ------------------------------------------------------------------------------------------------
def test_binary_cross_entropy_refuses_targets_outside_unit_interval():
    p = mg.tensor([0.5, 0.25])
    for bad in (2.0, -1.0, float("nan")):
        with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
            F.binary_cross_entropy(p, mg.tensor([1.0, bad]))
    with pytest.raises(RuntimeError, match="target should be between 0 and 1"):
        F.binary_cross_entropy(mg.tensor(0.5), 2.0)


def test_binary_cross_entropy_refuses_inputs_outside_unit_interval():
    for bad in (1.5, -0.1, float("nan")):
        with pytest.raises(RuntimeError, match="input should be between 0 and 1.*with_logits"):
            F.binary_cross_entropy(mg.tensor([0.5, bad]), mg.tensor([1.0, 0.0]))


def test_binary_cross_entropy_accepts_the_closed_interval():
    # targets 0 and 1 and inputs at the ends are fine; the logs are clamped at -100
    loss = F.binary_cross_entropy(mg.tensor([0.0, 1.0, 0.5]), mg.tensor([1.0, 1.0, 0.5]), None)
    assert loss.item() == pytest.approx((100.0 + 0.0 + np.log(2.0)) / 3, rel=1e-6)


def test_binary_cross_entropy_with_logits_takes_any_target_like_torch():
    torch = _torch()
    x, y = [0.5, -2.0], [2.0, -1.0]
    ours = F.binary_cross_entropy_with_logits(mg.tensor(x), mg.tensor(y)).item()
    theirs = torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(x), torch.tensor(y))
    assert ours == pytest.approx(theirs.item(), rel=1e-6)


BCE_ERRORS = {
    "target_above_one": ([0.5], [2.0]),
    "target_negative": ([0.5], [-1.0]),
    "target_nan": ([0.5], [float("nan")]),
    "input_above_one": ([1.5], [1.0]),
    "input_nan": ([float("nan")], [1.0]),
}


@pytest.mark.parametrize("case", BCE_ERRORS)
def test_binary_cross_entropy_errors_like_torch(case):
    x, y = BCE_ERRORS[case]
    _same_error(lambda L: _fn(L).binary_cross_entropy(L.tensor(x), L.tensor(y)), RuntimeError)


# ------------------------------------------------------------------------------------------------
# tensor(data): numbers only, rectangular, PyTorch's dtype inference
# ------------------------------------------------------------------------------------------------
def test_tensor_refuses_none_instead_of_making_nan():
    with pytest.raises(RuntimeError, match="could not infer a dtype for NoneType"):
        mg.tensor(None)
    with pytest.raises(RuntimeError, match="NoneType"):
        mg.tensor([1, None])
    with pytest.raises(RuntimeError, match="NoneType"):
        mg.tensor([[1.0, 2.0], None])


def test_tensor_refuses_strings_instead_of_parsing_them():
    with pytest.raises(TypeError, match="from str '3': convert it to a number first"):
        mg.tensor("3")
    with pytest.raises(TypeError, match="from bytes"):
        mg.tensor(b"3")
    with pytest.raises(ValueError, match="str '3'"):
        mg.tensor(["3"])
    with pytest.raises(TypeError, match="str 'a'"):
        mg.tensor([1, "a"])


def test_tensor_refuses_ragged_lists():
    with pytest.raises(ValueError, match=r"expected sequence of length 2 at dim 1 \(got 1\)"):
        mg.tensor([[1, 2], [3]])
    with pytest.raises(ValueError, match=r"length 2 at dim 2 \(got 1\)"):
        mg.tensor([[[1, 2]], [[3]]])
    with pytest.raises(ValueError, match=r"length 0 at dim 1 \(got 1\)"):
        mg.tensor([[], [1]])  # PyTorch silently drops the 1 here; refusing is the safe choice
    with pytest.raises(TypeError, match="expected a sequence at dim 1"):
        mg.tensor([[1, 2], 3])
    with pytest.raises(TypeError, match="expected a number at dim 1"):
        mg.tensor([1, [2]])


def test_tensor_refuses_other_objects():
    for bad in (object(), {1: 2}, {1, 2}):
        with pytest.raises(RuntimeError, match=f"could not infer a dtype for {type(bad).__name__}"):
            mg.tensor(bad)
    with pytest.raises(TypeError, match="complex numbers are not supported"):
        mg.tensor([1 + 2j])


def test_tensor_refuses_integers_out_of_range():
    with pytest.raises(ValueError, match="does not fit in int64"):
        mg.tensor(2**63)
    with pytest.raises(ValueError, match="does not fit in int64"):
        mg.tensor([1, -(2**63) - 1])
    with pytest.raises(RuntimeError, match=r"to uint8 without overflow.*\[0, 255\]"):
        mg.tensor([300], dtype=mg.uint8)
    with pytest.raises(RuntimeError, match="to int8 without overflow"):
        mg.tensor([200], dtype=mg.int8)
    with pytest.raises(RuntimeError, match="to int64 without overflow"):
        mg.tensor([float("nan")], dtype=mg.int64)
    assert mg.tensor([-1, -129], dtype=mg.uint8).tolist() == [255, 127]  # wraps, as in PyTorch
    assert mg.tensor([1.9, -1.9], dtype=mg.int32).tolist() == [1, -1]  # truncates


def test_tensor_keeps_the_dtype_of_a_float64_tensor():
    t = mg.tensor(mg.tensor([0.1], dtype=mg.float64))
    assert t.dtype is mg.float64 and t.item() == 0.1


TENSOR_DATA = {
    "bool_and_float": [True, 1.5],
    "bool_and_int": [True, 2],
    "bools": [True, False],
    "int_and_float": [1, 2.0],
    "tuple": (1, 2),
    "range": range(3),
    "nested_ranges": [range(2), range(2)],
    "empty": [],
    "empty_rows": [[], []],
    "numpy_int32_scalar": [np.int32(1)],
    "numpy_int32_and_int": [np.int32(1), 2],
    "numpy_int32_and_float": [np.int32(1), 1.5],
    "numpy_float64_and_bool": [np.float64(1.0), True],
    "numpy_float16_and_float": [np.float16(1.0), 1.5],
    "numpy_rows": [np.array([1, 2], dtype=np.int32), [3, 4]],
    "numpy_float64_rows": [np.array([1.5, 2.0]), [3, 4]],
    "infinity": float("inf"),
    "large_int_in_float_list": [1.5, 2**70],
}


@pytest.mark.parametrize("case", TENSOR_DATA)
@pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy")
def test_tensor_dtype_inference_like_torch(case):
    torch = _torch()
    data = TENSOR_DATA[case]
    ours, theirs = mg.tensor(data), torch.tensor(data)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), case
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_tensor_with_dtype_like_torch():
    torch = _torch()
    cases = [([-1, -129], "uint8"), ([1.9, -1.9], "int64"), ([1e40], "float32"), (1.5, "bool")]
    for data, dtype in cases:
        ours = mg.tensor(data, dtype=getattr(mg, dtype))
        theirs = torch.tensor(data, dtype=getattr(torch, dtype))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy(), err_msg=str(data))


TENSOR_ERRORS = {
    "none": (None, None, RuntimeError),
    "none_in_list": ([1, None], None, RuntimeError),
    "str": ("3", None, TypeError),
    "str_in_list": (["3"], None, ValueError),
    "str_after_number": ([1, "a"], None, TypeError),
    "bytes": (b"ab", None, TypeError),
    "ragged": ([[1, 2], [3]], None, ValueError),
    "ragged_deeper": ([[[1, 2]], [[3]]], None, ValueError),
    "number_for_row": ([[1, 2], 3], None, TypeError),
    "row_for_number": ([1, [2]], None, TypeError),
    "dict": ({1: 2}, None, RuntimeError),
    "int_too_large": (2**63, None, ValueError),
    "uint8_overflow": ([256], "uint8", RuntimeError),
    "int16_overflow": ([40000], "int16", RuntimeError),
    "nan_to_int": ([float("nan")], "int64", RuntimeError),
}


@pytest.mark.parametrize("case", TENSOR_ERRORS)
def test_tensor_errors_like_torch(case):
    data, dtype, exc = TENSOR_ERRORS[case]
    _same_error(lambda L: L.tensor(data, dtype=dtype and getattr(L, dtype)), exc)


# ------------------------------------------------------------------------------------------------
# Assigning .grad: None or a tensor of the same size, dtype and device
# ------------------------------------------------------------------------------------------------
def test_grad_assignment_refuses_non_tensors():
    w = mg.zeros(2, 3, requires_grad=True)
    for bad in (0.0, 1, [1.0, 2.0], np.zeros((2, 3))):
        with pytest.raises(
            TypeError, match=f"Tensor or None but got grad of type {type(bad).__name__}"
        ):
            w.grad = bad
    assert w.grad is None  # nothing was stored: the next backward works
    (w * 2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.full((2, 3), 2.0))


def test_grad_assignment_refuses_other_size_or_dtype():
    w = mg.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"different size: the tensor has \(2, 3\).*\(3, 2\)"):
        w.grad = mg.zeros(3, 2)
    with pytest.raises(RuntimeError, match="different size"):
        w.grad = mg.zeros(6)
    with pytest.raises(RuntimeError, match="different dtype.*float32.*float64"):
        w.grad = mg.zeros(2, 3, dtype=mg.float64)
    with pytest.raises(RuntimeError, match="different size"):
        nn.Parameter(mg.zeros(2)).grad = mg.zeros(3)


def test_grad_assignment_accepts_a_matching_tensor_and_none():
    w = mg.zeros(2, requires_grad=True)
    g = mg.tensor([1.0, -1.0])
    w.grad = g
    assert w.grad is g
    (w * 3).sum().backward()  # accumulates into the assigned gradient
    np.testing.assert_array_equal(w.grad.numpy(), [4.0, 2.0])
    w.grad = None
    assert w.grad is None
    w.grad = g
    del w.grad
    assert w.grad is None


GRAD_ERRORS = {
    "float": (lambda L: 0.0, TypeError),
    "list": (lambda L: [1.0, 2.0], TypeError),
    "transposed": (lambda L: L.zeros(3, 2), RuntimeError),
    "flat": (lambda L: L.zeros(6), RuntimeError),
    "float64": (lambda L: L.zeros(2, 3, dtype=L.float64), RuntimeError),
    "int64": (lambda L: L.zeros(2, 3, dtype=L.int64), RuntimeError),
}


@pytest.mark.parametrize("case", GRAD_ERRORS)
def test_grad_assignment_errors_like_torch(case):
    make, exc = GRAD_ERRORS[case]

    def assign(L):
        L.zeros(2, 3, requires_grad=True).grad = make(L)

    _same_error(assign, exc)


# ------------------------------------------------------------------------------------------------
# Creation: sizes are ints >= 0, fill values are numbers, ranges are finite and consistent
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make", ["zeros", "ones", "empty", "rand", "randn"])
def test_creation_refuses_negative_and_non_int_sizes(make):
    fn = getattr(mg, make)
    with pytest.raises(RuntimeError, match=rf"{make}: .*negative dimension -1: \[2, -1\]"):
        fn(2, -1)
    with pytest.raises(RuntimeError, match="negative dimension -3"):
        fn((-3,))
    for bad in (2.5, "2", True, None):
        with pytest.raises(
            TypeError, match=f"{make}: size must be an int, got {type(bad).__name__}"
        ):
            fn(bad)
    with pytest.raises(TypeError, match="got float 2.0"):
        fn((2.0, 3))
    # NumPy integers and integer 0-d tensors are sizes too, and 0 is a valid size
    assert fn(np.int64(2), mg.tensor(3)).shape == (2, 3)
    assert fn(0, 4).shape == (0, 4)


def test_eye_refuses_negative_and_non_int_sizes():
    with pytest.raises(RuntimeError, match="eye: n must be greater or equal to 0, got -1"):
        mg.eye(-1)
    with pytest.raises(RuntimeError, match="eye: m must be greater or equal to 0, got -1"):
        mg.eye(3, -1)
    with pytest.raises(TypeError, match="eye: n must be an int, got float"):
        mg.eye(2.5)
    assert mg.eye(0).shape == (0, 0)
    np.testing.assert_array_equal(mg.eye(2, 3).numpy(), np.eye(2, 3))


def test_full_refuses_non_numbers_and_values_its_dtype_cannot_hold():
    for bad in ("a", None, [1, 2]):
        with pytest.raises(
            TypeError, match=f"full: fill_value must be a number, got {type(bad).__name__}"
        ):
            mg.full((2,), bad)
    with pytest.raises(RuntimeError, match="to uint8 without overflow"):
        mg.full((2,), 300, dtype=mg.uint8)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        mg.full((-1,), 1.0)
    with pytest.raises(TypeError, match="fill_value must be a number, got str"):
        mg.full_like(mg.zeros(2), "a")
    assert mg.full((2,), 1.5, dtype=mg.int64).tolist() == [1, 1]
    assert mg.full((2,), mg.tensor(2.5)).tolist() == [2.5, 2.5]
    assert mg.full((2,), True).dtype is mg.bool


def test_like_functions_need_a_tensor():
    for fn in (mg.zeros_like, mg.ones_like, mg.empty_like, mg.rand_like, mg.randn_like):
        with pytest.raises(TypeError, match="_like: input must be a Tensor, got float"):
            fn(1.0)


def test_arange_refuses_zero_steps_bad_signs_and_infinite_ranges():
    for step in (0, 0.0):
        with pytest.raises(RuntimeError, match="arange: step must be nonzero"):
            mg.arange(0, 5, step)
    for args in ((5, 0), (0, 5, -1), (-3,)):
        with pytest.raises(RuntimeError, match="inconsistent with the step sign"):
            mg.arange(*args)
    for end in (float("nan"), float("inf")):
        with pytest.raises(RuntimeError, match="arange: unsupported range"):
            mg.arange(end)
    with pytest.raises(RuntimeError, match="arange: invalid size"):
        mg.arange(0, 1, 1e-20)
    with pytest.raises(TypeError, match="arange: end must be a number, got str"):
        mg.arange("5")
    assert mg.arange(mg.tensor(3)).tolist() == [0, 1, 2]


def test_linspace_refuses_negative_and_non_int_steps():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative, got -1"):
        mg.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="linspace: steps must be an int, got float"):
        mg.linspace(0, 1, 2.5)
    assert mg.linspace(0, 1, 0).shape == (0,)


def test_random_draws_refuse_bad_bounds_and_dtypes():
    with pytest.raises(RuntimeError, match=r"randint: high \(0\) must be greater than low \(5\)"):
        mg.randint(5, 0, (2,))
    with pytest.raises(RuntimeError, match="must be greater than low"):
        mg.randint(3, 3, (2,))
    with pytest.raises(TypeError, match="randint: high must be an int, got float"):
        mg.randint(0, 1.5, (2,))
    with pytest.raises(TypeError, match="randint: size must be an int, got float"):
        mg.randint(0, 5, (2.5,))
    with pytest.raises(ValueError, match="must fit in int64"):
        mg.randint(0, 2**63, (2,))
    with pytest.raises(RuntimeError, match="negative dimension"):
        mg.randint(0, 5, (-1,))
    with pytest.raises(RuntimeError, match=r"randint: \[0, 300\) does not fit in uint8"):
        mg.randint(0, 300, (3,), dtype=mg.uint8)
    with pytest.raises(RuntimeError, match="does not fit in int8"):
        mg.randint(-129, 0, (3,), dtype=mg.int8)
    assert set(mg.randint(0, 256, (20000,), dtype=mg.uint8).tolist()) >= {0, 255}
    with pytest.raises(RuntimeError, match="randperm: n must be >= 0, got -1"):
        mg.randperm(-1)
    with pytest.raises(TypeError, match="randperm: n must be an int, got float"):
        mg.randperm(2.5)
    with pytest.raises(NotImplementedError, match="rand: draws need a floating dtype, got int64"):
        mg.rand(2, dtype=mg.int64)
    with pytest.raises(RuntimeError, match=r"uniform_: .*got 2 > 1"):
        mg.zeros(3).uniform_(2, 1)
    with pytest.raises(RuntimeError, match="normal_: std must be >= 0, got -1"):
        mg.zeros(3).normal_(0, -1)
    with pytest.raises(RuntimeError, match="std must be >= 0"):
        nn.init.normal_(mg.zeros(3), 0.0, -1.0)
    # the edges are fine: an empty range gives its one value, std 0 gives the mean
    assert mg.zeros(3).uniform_(1, 1).tolist() == [1, 1, 1]
    assert mg.zeros(3).normal_(2, 0).tolist() == [2, 2, 2]
    draws = mg.randint_like(mg.zeros(1000), 3)
    assert draws.dtype is mg.float32 and set(draws.tolist()) == {0.0, 1.0, 2.0}


def test_manual_seed_takes_torchs_range_and_wraps_negative_seeds():
    mg.manual_seed(-1)
    assert mg.initial_seed() == 2**64 - 1
    a = mg.rand(4)
    mg.manual_seed(2**64 - 1)
    np.testing.assert_array_equal(a.numpy(), mg.rand(4).numpy())
    mg.manual_seed(-(2**63))
    assert mg.initial_seed() == 2**63
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(ValueError, match=r"seed must be in \[-2\*\*63, 2\*\*64 - 1\]"):
            mg.manual_seed(bad)
    with pytest.raises(ValueError, match="seed must be in"):
        mg.Generator().manual_seed(2**64)
    g1, g2 = mg.Generator().manual_seed(-5), mg.Generator().manual_seed(2**64 - 5)
    np.testing.assert_array_equal(mg.randperm(9, generator=g1), mg.randperm(9, generator=g2))
    mg.manual_seed(0)


def test_manual_seed_initial_seed_like_torch():
    torch = _torch()
    for seed in (-1, -(2**63), 2**64 - 1, 7, 2.7, True):
        mg.manual_seed(seed)
        torch.manual_seed(seed)
        assert mg.initial_seed() == torch.initial_seed(), seed
    mg.manual_seed(0)
    torch.manual_seed(0)


CREATION_ERRORS = {
    "eye_negative": (lambda L: L.eye(-1), RuntimeError),
    "eye_float": (lambda L: L.eye(2.5), TypeError),
    "full_str": (lambda L: L.full((2,), "a"), TypeError),
    "full_none": (lambda L: L.full((2,), None), TypeError),
    "full_uint8_overflow": (lambda L: L.full((2,), 300, dtype=L.uint8), RuntimeError),
    "full_negative": (lambda L: L.full((-1,), 1.0), RuntimeError),
    "manual_seed_too_large": (lambda L: L.manual_seed(2**64), ValueError),
    "manual_seed_too_small": (lambda L: L.manual_seed(-(2**63) - 1), ValueError),
    "zeros_negative": (lambda L: L.zeros(2, -1), RuntimeError),
    "zeros_float": (lambda L: L.zeros(2.5), TypeError),
    "zeros_float_in_tuple": (lambda L: L.zeros((2.0, 3)), TypeError),
    "zeros_str": (lambda L: L.zeros("2"), TypeError),
    "zeros_bool": (lambda L: L.zeros(True), TypeError),
    "ones_negative": (lambda L: L.ones(-2), RuntimeError),
    "empty_negative": (lambda L: L.empty(-1), RuntimeError),
    "empty_float": (lambda L: L.empty(2.5), TypeError),
    "rand_negative": (lambda L: L.rand(-1), RuntimeError),
    "randn_float": (lambda L: L.randn(2.5), TypeError),
    "rand_int64": (lambda L: L.rand(2, dtype=L.int64), NotImplementedError),
    "randint_negative": (lambda L: L.randint(0, 5, (-1,)), RuntimeError),
    "randint_empty_range": (lambda L: L.randint(5, 0, (2,)), RuntimeError),
    "randint_float_high": (lambda L: L.randint(0, 1.5, (2,)), TypeError),
    "randint_float_size": (lambda L: L.randint(0, 5, (2.5,)), TypeError),
    "randint_overflow": (lambda L: L.randint(0, 2**63, (2,)), ValueError),
    "randint_beyond_uint8": (lambda L: L.randint(0, 300, (3,), dtype=L.uint8), RuntimeError),
    "randperm_negative": (lambda L: L.randperm(-1), RuntimeError),
    "randperm_float": (lambda L: L.randperm(2.5), TypeError),
    "arange_zero_step": (lambda L: L.arange(0, 5, 0), RuntimeError),
    "arange_zero_float_step": (lambda L: L.arange(0, 5, 0.0), RuntimeError),
    "arange_wrong_sign": (lambda L: L.arange(0, 5, -1), RuntimeError),
    "arange_nan": (lambda L: L.arange(float("nan")), RuntimeError),
    "arange_inf": (lambda L: L.arange(float("inf")), RuntimeError),
    "arange_too_long": (lambda L: L.arange(0, 1, 1e-20), RuntimeError),
    "arange_str": (lambda L: L.arange("5"), TypeError),
    "linspace_negative": (lambda L: L.linspace(0, 1, -1), RuntimeError),
    "linspace_float_steps": (lambda L: L.linspace(0, 1, 2.5), TypeError),
    "zeros_like_float": (lambda L: L.zeros_like(1.0), TypeError),
    "full_like_str": (lambda L: L.full_like(L.zeros(2), "a"), TypeError),
    "uniform_reversed": (lambda L: L.zeros(3).uniform_(2, 1), RuntimeError),
    "normal_negative_std": (lambda L: L.zeros(3).normal_(0, -1), RuntimeError),
}


@pytest.mark.parametrize("case", CREATION_ERRORS)
def test_creation_errors_like_torch(case):
    fn, exc = CREATION_ERRORS[case]
    try:
        _same_error(fn, exc)
    finally:
        mg.manual_seed(0)


# ------------------------------------------------------------------------------------------------
# Layer constructors and their functional forms
# ------------------------------------------------------------------------------------------------
def test_layers_refuse_negative_and_non_int_sizes():
    cases = [
        (lambda: nn.Linear(-1, 3), RuntimeError, "negative dimension -1"),
        (lambda: nn.Linear(3, -2), RuntimeError, "negative dimension -2"),
        (lambda: nn.Linear(2.5, 3), TypeError, "size must be an int, got float"),
        (lambda: nn.Conv2d(-1, 4, 3), RuntimeError, "negative dimension -1"),
        (lambda: nn.Conv2d(3, 4, 2.5), TypeError, "kernel_size must be an int or a pair of ints"),
        (lambda: nn.Conv2d(3, 4, 3, stride=(1.0, 1)), TypeError, "stride must be an int"),
        (lambda: nn.Conv2d(3, 4, -1), RuntimeError, "pair of non-negative ints, got -1"),
        (lambda: nn.Conv2d(3, 4, 3, groups=0), ValueError, "divisible by groups"),
        (lambda: nn.BatchNorm1d(-1), RuntimeError, "negative dimension -1"),
        (lambda: nn.BatchNorm2d(2.5), TypeError, "size must be an int, got float"),
        (lambda: nn.LayerNorm((2, -1)), RuntimeError, "negative dimension -1"),
        (lambda: nn.RMSNorm(-1), RuntimeError, "negative dimension -1"),
        (lambda: nn.Embedding(-1, 3), RuntimeError, "negative dimension -1"),
        (lambda: nn.Embedding(10, 2.5), TypeError, "size must be an int, got float"),
        (lambda: nn.Dropout(p=1.5), ValueError, "between 0 and 1, but got 1.5"),
        (lambda: nn.Dropout(p=-0.1), ValueError, "between 0 and 1, but got -0.1"),
        (lambda: nn.MultiheadAttention(6, 0), ValueError, "must be positive"),
    ]
    for make, exc, message in cases:
        with pytest.raises(exc, match=message):
            make()
    # size 0 is allowed (an empty layer), as in PyTorch
    assert nn.Linear(0, 3).weight.shape == (3, 0)
    assert nn.BatchNorm1d(0).weight.shape == (0,)


def test_conv_with_an_empty_kernel_refuses_instead_of_returning_zeros():
    x = mg.ones(1, 3, 5, 5)
    with pytest.raises(
        RuntimeError, match=r"kernel size, stride and dilation must be positive.*\(0, 0\)"
    ):
        nn.Conv2d(3, 4, 0)(x)
    with pytest.raises(RuntimeError, match=r"stride \(0, 0\)"):
        F.conv2d(x, mg.ones(4, 3, 3, 3), stride=0)
    with pytest.raises(RuntimeError, match=r"dilation \(0, 0\)"):
        F.conv2d(x, mg.ones(4, 3, 3, 3), dilation=0)


def test_pad_refuses_float_amounts_instead_of_truncating():
    with pytest.raises(TypeError, match=r"pad: amounts must be ints, got \(1.5, 1\)"):
        F.pad(mg.ones(2, 3), (1.5, 1))
    with pytest.raises(TypeError, match="amounts must be ints"):
        F.pad(mg.ones(2, 3), (True, 1))
    assert F.pad(mg.ones(2, 3), (1, 1)).shape == (2, 5)


LAYER_ERRORS = {
    "linear_negative_in": (lambda L: L.nn.Linear(-1, 3), RuntimeError),
    "linear_negative_out": (lambda L: L.nn.Linear(3, -1), RuntimeError),
    "linear_float": (lambda L: L.nn.Linear(2.5, 3), TypeError),
    "conv_negative_channels": (lambda L: L.nn.Conv2d(-1, 4, 3), RuntimeError),
    "conv_float_kernel": (lambda L: L.nn.Conv2d(3, 4, 2.5), TypeError),
    "conv_groups_not_dividing": (lambda L: L.nn.Conv2d(3, 4, 3, groups=2), ValueError),
    "conv_bad_padding_mode": (lambda L: L.nn.Conv2d(3, 4, 3, padding_mode="x"), ValueError),
    "conv_empty_kernel_forward": (
        lambda L: L.nn.Conv2d(3, 4, 0)(L.ones(1, 3, 5, 5)),
        RuntimeError,
    ),
    "conv_zero_stride_forward": (
        lambda L: L.nn.functional.conv2d(L.ones(1, 3, 5, 5), L.ones(4, 3, 3, 3), stride=0),
        RuntimeError,
    ),
    "conv_float_stride": (
        lambda L: L.nn.functional.conv2d(L.ones(1, 3, 5, 5), L.ones(4, 3, 3, 3), stride=2.5),
        TypeError,
    ),
    "avg_pool_float_kernel": (lambda L: L.nn.AvgPool2d(2.5)(L.ones(1, 1, 4, 4)), TypeError),
    "pad_float": (lambda L: L.nn.functional.pad(L.ones(2, 3), (1.5, 1)), TypeError),
    "dropout_above_one": (lambda L: L.nn.Dropout(p=1.5), ValueError),
    "dropout_negative": (lambda L: L.nn.Dropout(p=-0.1), ValueError),
    "batchnorm_negative": (lambda L: L.nn.BatchNorm1d(-1), RuntimeError),
    "batchnorm_float": (lambda L: L.nn.BatchNorm1d(2.5), TypeError),
    "layernorm_negative": (lambda L: L.nn.LayerNorm((2, -1)), RuntimeError),
    "rmsnorm_negative": (lambda L: L.nn.RMSNorm(-1), RuntimeError),
    "embedding_negative_rows": (lambda L: L.nn.Embedding(-1, 3), RuntimeError),
    "embedding_float_dim": (lambda L: L.nn.Embedding(10, 2.5), TypeError),
    "attention_zero_heads": (lambda L: L.nn.MultiheadAttention(6, 0), ValueError),
}


@pytest.mark.parametrize("case", LAYER_ERRORS)
@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors")
def test_layer_errors_like_torch(case):
    fn, exc = LAYER_ERRORS[case]
    _same_error(fn, exc)
