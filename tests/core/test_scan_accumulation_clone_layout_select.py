"""float32 running sums and products accumulated in float64 (each prefix rounded once), uint8
all/any, the layout a clone keeps, and Tensor.select. Oracles: NumPy float64, NumPy's order="K"
copies, plain indexing."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_float32_cumsum_is_the_exact_prefix_sum_rounded_once():
    x = np.random.default_rng(0).standard_normal((8, 2000)).astype(np.float32)
    want = np.cumsum(x.astype(np.float64), axis=1).astype(np.float32)
    np.testing.assert_array_equal(mg.tensor(x).cumsum(1).numpy(), want)
    np.testing.assert_array_equal(mg.tensor(x.T).cumsum(0).numpy(), want.T)


def test_float32_cumprod_is_the_exact_prefix_product_rounded_once():
    x = np.random.default_rng(1).uniform(0.5, 1.5, (8, 60)).astype(np.float32)
    want = np.cumprod(x.astype(np.float64), axis=1).astype(np.float32)
    np.testing.assert_array_equal(mg.tensor(x).cumprod(1).numpy(), want)


def test_float32_cumsum_gradient_is_unchanged_by_the_wider_accumulator():
    x = mg.tensor(np.arange(1.0, 6.0, dtype=np.float32), requires_grad=True)
    x.cumsum(0).sum().backward()
    assert x.grad.dtype == mg.float32 and x.grad.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0]


@pytest.mark.parametrize("name", ["all", "any"])
def test_all_and_any_of_uint8_give_uint8_as_pytorch(name):
    a = np.array([[0, 3, 1], [2, 2, 0]], dtype=np.uint8)
    for dim in (None, 0, 1):
        got = getattr(mg.tensor(a), name)() if dim is None else getattr(mg.tensor(a), name)(dim)
        want = getattr(a.astype(bool), name)(axis=dim)
        assert got.dtype == mg.uint8
        np.testing.assert_array_equal(got.numpy(), np.asarray(want, dtype=np.uint8))
    assert getattr(mg.tensor(a.astype(np.int64)), name)().dtype == mg.bool


def _strides_of_long_dims(t) -> tuple:
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)


A2 = np.arange(20.0).reshape(4, 5)
A3 = np.arange(60.0).reshape(3, 4, 5)


@pytest.mark.parametrize(
    "base,view",
    [
        (A2, lambda x: x.t()),
        (A3, lambda x: x.permute(2, 0, 1)),
        (A3, lambda x: x[:, ::2].transpose(0, 2)),
        (A3, lambda x: x.transpose(1, 2)[1:]),
    ],
)
def test_clone_keeps_the_order_of_the_strides(base, view):
    ref = view(mg.tensor(base))
    got = ref.clone()
    want = np.copy(ref.numpy(), order="K")  # NumPy's layout-keeping copy
    assert _strides_of_long_dims(got) == tuple(
        s // 8 for s, n in zip(want.strides, want.shape) if n > 1
    )
    np.testing.assert_array_equal(got.numpy(), ref.numpy())
    got.add_(1)  # its own memory
    np.testing.assert_array_equal(ref.numpy(), view(mg.tensor(base)).numpy())


def test_clone_of_an_expanded_tensor_is_contiguous():
    x = mg.tensor([[1.0], [2.0]]).expand(2, 3)
    c = x.clone()
    assert c.stride() == (3, 1) and c.is_contiguous()
    assert x.t().contiguous().stride() == (2, 1)


def test_select_is_the_view_indexing_one_position_of_a_dim():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = mg.tensor(a)
    for dim in range(-3, 3):
        for index in range(-a.shape[dim], a.shape[dim]):
            want = np.take(a, index, axis=dim)
            np.testing.assert_array_equal(x.select(dim, index).numpy(), want)
            np.testing.assert_array_equal(mg.select(x, dim, index).numpy(), want)
    x.select(1, 2).fill_(-1)  # a view: the write reaches x
    assert (x[:, 2] == -1).all()
    with pytest.raises(IndexError, match="out of range"):
        x.select(2, 4)
