"""PyTorch's keyword names for the arguments of ``mg.*`` functions and Tensor methods
(``torch.add(input=x, other=y)``, ``torch.sum(input=x, dim=1)``, ``x.expand(size=...)``): each
call in PyTorch's keyword form gives NumPy's result, and a first argument given twice is refused
instead of shifting the others."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.input_keyword import accepts_input

A = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]])
I = np.array([[2], [0]])


def _t(a: np.ndarray) -> mg.Tensor:
    return mg.tensor(a)


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: mg.add(input=_t(A), other=_t(A), alpha=2), A + 2 * A),
        (lambda: mg.sub(input=_t(A), other=_t(A * 3)), A - 3 * A),
        (lambda: mg.mul(input=_t(A), other=2.0), A * 2),
        (lambda: mg.div(input=_t(A), other=2.0, rounding_mode="floor"), np.floor(A / 2)),
        (lambda: mg.sum(input=_t(A), dim=1), A.sum(1)),
        (lambda: mg.mean(input=_t(A), dim=0, keepdim=True), A.mean(0, keepdims=True)),
        (lambda: mg.var(input=_t(A), dim=1), A.var(1, ddof=1)),
        (lambda: mg.std(input=_t(A), dim=1, correction=0), A.std(1)),
        (lambda: mg.prod(input=_t(A), dim=1), A.prod(1)),
        (lambda: mg.cumsum(input=_t(A), dim=1), A.cumsum(1)),
        (lambda: mg.clamp(input=_t(A), min=0.0), np.maximum(A, 0.0)),
        (lambda: mg.clamp(input=_t(A), max=1.0), np.minimum(A, 1.0)),
        (lambda: mg.pow(input=_t(A), exponent=2), A**2),
        (lambda: mg.argmax(input=_t(A), dim=1), A.argmax(1)),
        (lambda: mg.transpose(input=_t(A), dim0=0, dim1=1), A.T),
        (lambda: mg.unsqueeze(input=_t(A), dim=-1), A[..., None]),
        (lambda: mg.flip(input=_t(A), dims=[1]), A[:, ::-1]),
        (lambda: mg.tril(input=_t(A), diagonal=1), np.tril(A, 1)),
        (lambda: mg.softmax(input=_t(A), dim=1), np.exp(A) / np.exp(A).sum(1, keepdims=True)),
        (lambda: mg.mm(input=_t(A), mat2=_t(A.T)), A @ A.T),
        (lambda: mg.narrow(input=_t(A), dim=1, start=1, length=2), A[:, 1:3]),
        (lambda: mg.gather(input=_t(A), dim=1, index=mg.tensor(I)), np.take_along_axis(A, I, 1)),
        (lambda: mg.zeros_like(input=_t(A), dtype=mg.float64), np.zeros_like(A)),
    ],
)  # fmt: skip
def test_functions_take_their_first_argument_as_input_keyword(call, expected) -> None:
    result = call()
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
    assert result.shape == expected.shape


def test_input_keyword_with_a_positional_first_argument_is_refused() -> None:
    x, y = _t(A), _t(A * 2)
    # read as add(x, y) with another first argument, it would silently return y + x's shift
    with pytest.raises(TypeError, match="multiple values for argument 'input'"):
        mg.sub(x, input=y)
    with pytest.raises(TypeError, match="multiple values"):
        mg.clamp(x, input=y, min=0)


@pytest.mark.parametrize(
    "name, reference",
    [("tanh", np.tanh), ("exp", np.exp), ("relu", lambda a: np.maximum(a, 0.0)),
     ("sigmoid", lambda a: 1 / (1 + np.exp(-a)))],
)  # fmt: skip
def test_one_argument_ops_take_input_keyword_and_refuse_it_twice(name, reference) -> None:
    fn = getattr(mg, name)
    np.testing.assert_allclose(fn(input=_t(A)).numpy(), reference(A), rtol=1e-12)
    np.testing.assert_allclose(fn(_t(A)).numpy(), reference(A), rtol=1e-12)
    with pytest.raises(TypeError, match="multiple values for argument 'input'"):
        fn(_t(A), input=_t(A))


def test_a_function_already_taking_input_gets_no_second_layer() -> None:
    # every mg.* call pays for each layer: tanh's out= form already names its argument input
    def f(input, *, out=None):  # noqa: A002
        return input

    assert accepts_input(f) is f
    assert accepts_input(lambda x, y=1: x + y)(input=2, y=3) == 5
    assert accepts_input(lambda x, y=1: x + y)(2) == 3


def test_max_and_sort_by_input_keyword_return_named_results() -> None:
    values, indices = mg.max(input=_t(A), dim=1)
    np.testing.assert_array_equal(values.numpy(), A.max(1))
    np.testing.assert_array_equal(indices.numpy(), A.argmax(1))
    s = mg.sort(input=_t(A), dim=1, descending=True)
    np.testing.assert_array_equal(s.values.numpy(), -np.sort(-A, 1))


def test_split_takes_pytorchs_tensor_keyword() -> None:
    first, second = mg.split(tensor=_t(A), split_size_or_sections=[1, 2], dim=1)
    np.testing.assert_array_equal(first.numpy(), A[:, :1])
    np.testing.assert_array_equal(second.numpy(), A[:, 1:])


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda: mg.maximum(input=_t(A), other=_t(-A)), np.maximum(A, -A)),
        (lambda: mg.minimum(input=_t(A), other=_t(-A)), np.minimum(A, -A)),
        (lambda: mg.polygamma(n=1, input=_t(np.array([1.0]))), np.array([np.pi**2 / 6])),
        (lambda: _t(A).pow(exponent=3), A**3),
        (lambda: _t(A[:1]).expand(size=(3, 3)), np.broadcast_to(A[:1], (3, 3))),
        (lambda: _t(A[:1]).broadcast_to(size=(2, 3)), np.broadcast_to(A[:1], (2, 3))),
        (lambda: _t(A).flip(dims=[0, 1]), A[::-1, ::-1]),
        (lambda: _t(A).flip(dims=(1,)), A[:, ::-1]),
        (lambda: _t(A).sum_to_size(size=(1, 3)), A.sum(0, keepdims=True)),
        (lambda: _t(A).sum_to_size(size=(2, 1)), A.sum(1, keepdims=True)),
    ],
)  # fmt: skip
def test_other_arguments_by_pytorchs_keyword_names(call, expected) -> None:
    result = call()
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_allclose_and_equal_take_input_and_other_keywords() -> None:
    x = _t(A)
    assert mg.allclose(input=x, other=x + 1e-3, atol=1e-2, rtol=0.0)
    assert not mg.allclose(input=x, other=x + 1e-3, atol=1e-4, rtol=0.0)
    assert mg.equal(input=x, other=_t(A.copy()))
    assert not mg.equal(input=x, other=x + 1)


def test_norm_dtype_keyword_computes_in_that_dtype() -> None:
    # 1 + 2**-28 is 1 in float32: a norm computed in float64 keeps the difference
    a = np.array([1.0, 2.0**-14, 0.0])
    x = mg.tensor(a, dtype=mg.float32)
    want = np.sqrt(np.sum(a.astype(np.float32).astype(np.float64) ** 2))
    for result in (
        mg.norm(input=x, p=2, dim=0, dtype=mg.float64),
        x.norm(2, 0, False, mg.float64),
        x.norm(p=2, dtype=mg.float64),
    ):
        assert result.dtype == mg.float64
        assert result.item() == want  # float32 would round it to 1.0
    assert mg.norm(x, 2).dtype == mg.float32


def test_norm_out_is_pytorchs_fifth_positional_argument() -> None:
    x = _t(A)
    out = mg.empty(3, dtype=mg.float64)
    result = mg.norm(x, 2, 0, False, out)
    assert result is out
    np.testing.assert_allclose(out.numpy(), np.sqrt((A**2).sum(0)))


def test_to_dense_casts_to_its_dtype_argument() -> None:
    x = mg.tensor([1.5, -2.5])
    assert x.to_dense() is x
    y = x.to_dense(mg.float64)
    assert y.dtype == mg.float64 and y.tolist() == [1.5, -2.5]
    assert x.to_dense(dtype=mg.float16).dtype == mg.float16


def test_scatter_function_passes_its_reduce_keyword() -> None:
    base = np.zeros((2, 3))
    index = np.array([[0, 1, 0]])
    src = np.array([[1.0, 2.0, 3.0]])
    with pytest.warns(UserWarning, match="deprecated"):  # as PyTorch warns
        r = mg.scatter(_t(base) + 1, 0, mg.tensor(index), _t(src), reduce="multiply")
    want = base + 1
    np.multiply.at(want, (index, np.arange(3)[None]), src)
    np.testing.assert_array_equal(r.numpy(), want)


def test_shape_keyword_given_with_positional_sizes_is_refused() -> None:
    x = _t(A[:1])
    with pytest.raises(TypeError, match="multiple values"):
        x.expand(2, 3, size=(2, 3))
    with pytest.raises(TypeError, match="multiple values"):
        x.flip(0, dims=[1])


@pytest.mark.parametrize("dim", [(), []])
def test_count_nonzero_over_an_empty_dim_list_counts_every_element(dim) -> None:
    a = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    for result in (mg.count_nonzero(_t(a), dim=dim), _t(a).count_nonzero(dim)):
        assert result.shape == () and result.dtype == mg.int64
        assert result.item() == np.count_nonzero(a) == 3


@pytest.mark.parametrize(
    "call, expected",
    [
        (lambda x: x.reshape(shape=(4, 6)), lambda a: a.reshape(4, 6)),
        (lambda x: x.permute(dims=(2, 0, 1)), lambda a: a.transpose(2, 0, 1)),
        (lambda x: x.repeat(repeats=(1, 2, 1)), lambda a: np.tile(a, (1, 2, 1))),
        (lambda x: x.tile(dims=(2,)), lambda a: np.tile(a, 2)),
        (lambda x: x.new_zeros(size=(2, 5)), lambda a: np.zeros((2, 5), a.dtype)),
        (lambda x: x.new_ones(size=[3]), lambda a: np.ones(3, a.dtype)),
        (lambda x: x.new_empty(size=(2, 0)), lambda a: np.empty((2, 0), a.dtype)),
    ],
)  # fmt: skip
def test_shape_methods_take_pytorchs_keyword(call, expected) -> None:
    a = np.arange(24.0).reshape(2, 3, 4)
    result = call(mg.tensor(a))
    want = expected(a)
    assert result.shape == want.shape
    if want.size and not np.isnan(want).any():
        np.testing.assert_array_equal(result.numpy(), want)


def test_to_reads_trailing_positional_flags_as_non_blocking_and_copy() -> None:
    x = mg.tensor([1.0, 2.0])
    assert x.to(mg.float32, True) is x  # non_blocking only: nothing changes
    copied = x.to(mg.float32, False, True)  # copy=True: new memory even with nothing to change
    assert copied is not x and copied.data_ptr() != x.data_ptr()
    copied[0] = 5.0
    assert x.tolist() == [1.0, 2.0]
    y = x.to("cpu", mg.float64, False, True)
    assert y.dtype == mg.float64 and y.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError):
        x.to(mg.float32, False, True, True)
