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
    with pytest.raises(ValueError, match=r"padding_idx.*\[-10, 10\), got 10"):
        F.embedding(mg.tensor([3]), w, padding_idx=10)
    with pytest.raises(ValueError, match=r"got -11"):
        nn.Embedding(10, 3, padding_idx=-11)
    # -1 is the last row: it gets no gradient
    w.requires_grad_(True)
    F.embedding(mg.tensor([9, 9, 0]), w, padding_idx=-1).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[[0, 9]], [[1, 1, 1], [0, 0, 0]])


def test_embedding_empty_index_gives_empty_rows():
    out = F.embedding(mg.tensor([], dtype=mg.int64), mg.ones(4, 2))
    assert out.shape == (0, 2)


def test_one_hot_refuses_classes_out_of_range():
    with pytest.raises(RuntimeError, match=r"class value 3 is out of bounds.*\[0, 3\)"):
        F.one_hot(mg.tensor([0, 3]), 3)
    with pytest.raises(RuntimeError, match=r"class value -1 is out of bounds"):
        F.one_hot(mg.tensor([0, -1]), 3)
    with pytest.raises(RuntimeError, match=r"class value -1 is out of bounds"):
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
