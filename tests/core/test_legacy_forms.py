"""Forms older and less common PyTorch programs use, as PyTorch 2.13 accepts them: the device
flags (is_cpu, is_xpu ...), the legacy constructor Tensor(2, 3), size= keywords, randint(high,
size=), tensor(deque), an LSTM state given as a list, the in-place shape methods (unsqueeze_,
t_ ...), and the deprecated argument orders add_(Number, Tensor), addcmul_(Number, t1, t2)."""

from __future__ import annotations

import collections
import warnings

import numpy as np
import pytest

import minigenesis as mg


def test_device_flags() -> None:
    x = mg.ones(2)
    assert x.is_cpu and not x.is_cuda
    flags = ("is_xpu", "is_mps", "is_meta", "is_quantized", "is_mkldnn", "is_nested",
             "is_sparse_csr", "is_vulkan", "is_xla", "is_ipu", "is_mtia", "is_maia")  # fmt: skip
    for flag in flags:
        assert getattr(x, flag) is False, flag


def test_legacy_constructor_takes_sizes_or_data() -> None:
    assert tuple(mg.Tensor(2, 3).shape) == (2, 3) and mg.Tensor(2, 3).dtype == mg.float32
    assert tuple(mg.Tensor(mg.Size([4, 1])).shape) == (4, 1)
    assert tuple(mg.Tensor().shape) == (0,)
    data = mg.Tensor([1, 2])  # data: in the default dtype, as PyTorch's legacy constructor
    assert data.dtype == mg.float32 and data.tolist() == [1.0, 2.0]
    assert mg.Tensor(mg.tensor([1, 2])).dtype == mg.int64  # a tensor keeps its dtype
    with pytest.raises(TypeError):
        mg.Tensor([1], [2])


@pytest.mark.parametrize("make", [mg.empty, mg.zeros, mg.ones, mg.rand, mg.randn])
def test_size_keyword(make) -> None:
    assert tuple(make(size=(2, 3)).shape) == (2, 3)
    with pytest.raises(TypeError):
        make(2, size=(2, 3))


def test_zeros_and_ones_by_size_keyword_hold_their_value() -> None:
    np.testing.assert_array_equal(mg.ones(size=(2,)).numpy(), [1.0, 1.0])
    np.testing.assert_array_equal(mg.zeros(size=[3]).numpy(), [0.0, 0.0, 0.0])


def test_randint_with_high_and_size_keyword() -> None:
    mg.manual_seed(0)
    draws = mg.randint(4, size=(1000,))
    assert draws.dtype == mg.int64 and tuple(draws.shape) == (1000,)
    assert set(draws.tolist()) == {0, 1, 2, 3}
    assert set(mg.randint(2, 5, size=(500,)).tolist()) == {2, 3, 4}


def test_tensor_from_any_sequence() -> None:
    assert mg.tensor(collections.deque([1.0, 2.0])).tolist() == [1.0, 2.0]
    nested = mg.tensor(collections.deque([(1, 2), (3, 4)]))
    assert nested.dtype == mg.int64 and nested.tolist() == [[1, 2], [3, 4]]
    assert mg.tensor([collections.deque([1, 2])]).tolist() == [[1, 2]]


@pytest.mark.parametrize("cell", [False, True])
def test_lstm_initial_state_as_a_list(cell: bool) -> None:
    mg.manual_seed(0)
    if cell:
        m, x = mg.nn.LSTMCell(3, 4), mg.randn(2, 3)
        h = [mg.randn(2, 4), mg.randn(2, 4)]
    else:
        m, x = mg.nn.LSTM(3, 4), mg.randn(5, 2, 3)
        h = [mg.randn(1, 2, 4), mg.randn(1, 2, 4)]
    np.testing.assert_array_equal(m(x, h)[0].detach().numpy(), m(x, tuple(h))[0].detach().numpy())


@pytest.mark.parametrize(
    "name, args, shape",
    [
        ("unsqueeze_", (0,), (1, 2, 1, 3)),
        ("unsqueeze_", (-1,), (2, 1, 3, 1)),
        ("squeeze_", (), (2, 3)),
        ("squeeze_", (1,), (2, 3)),
        ("transpose_", (0, 2), (3, 1, 2)),
        ("swapdims_", (0, 2), (3, 1, 2)),
        ("swapaxes_", (0, 1), (1, 2, 3)),
        ("resize_", ((3, 2),), (3, 2)),
    ],
)
def test_inplace_shape_methods_change_the_tensor_itself(name, args, shape) -> None:
    x = mg.arange(6.0).reshape(2, 1, 3).clone()
    ref = np.arange(6.0).reshape(2, 1, 3)
    out = getattr(x, name)(*args)
    assert out is x and tuple(x.shape) == shape
    expected = {
        "unsqueeze_": lambda: np.expand_dims(ref, args[0]),
        "squeeze_": lambda: ref.squeeze(*args),
        "transpose_": lambda: np.swapaxes(ref, *args),
        "swapdims_": lambda: np.swapaxes(ref, *args),
        "swapaxes_": lambda: np.swapaxes(ref, *args),
        "resize_": lambda: ref.reshape(3, 2),
    }[name]()
    np.testing.assert_array_equal(x.numpy(), expected)


def test_t_inplace_in_a_graph_gives_the_transposed_gradient() -> None:
    w = mg.zeros(2, 3, requires_grad=True)
    y = w * 1
    y.t_()
    (y * mg.arange(6.0).reshape(3, 2)).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.arange(6.0).reshape(3, 2).T)


def test_inplace_shape_change_of_a_leaf_requiring_grad_is_refused() -> None:
    w = mg.zeros(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.unsqueeze_(0)
    with mg.no_grad():
        assert tuple(w.t_().shape) == (3, 2)


def test_resize_grows_and_shrinks_keeping_the_leading_elements() -> None:
    x = mg.arange(6.0)
    x.resize_(2, 2)
    assert x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    x.resize_(10)
    assert tuple(x.shape) == (10,) and x[:4].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_deprecated_scalar_first_orders_warn_and_compute() -> None:
    with pytest.warns(UserWarning, match="deprecated"):
        assert mg.ones(2).add_(2, mg.ones(2)).tolist() == [3.0, 3.0]
    with pytest.warns(UserWarning, match="deprecated"):
        assert mg.ones(2).sub_(2, mg.ones(2)).tolist() == [-1.0, -1.0]
    with pytest.warns(UserWarning, match="deprecated"):
        assert mg.ones(2).add(0.5, mg.full((2,), 4.0)).tolist() == [3.0, 3.0]
    with pytest.warns(UserWarning, match="deprecated"):
        assert mg.add(mg.ones(2), 2, mg.ones(2)).tolist() == [3.0, 3.0]
    with pytest.warns(UserWarning, match="deprecated"):
        got = mg.ones(2).addcmul_(0.5, mg.full((2,), 2.0), mg.full((2,), 3.0))
    assert got.tolist() == [4.0, 4.0]
    with pytest.warns(UserWarning, match="deprecated"):
        got = mg.ones(2).addcdiv_(2, mg.full((2,), 3.0), mg.full((2,), 6.0))
    assert got.tolist() == [2.0, 2.0]


def test_the_modern_orders_do_not_warn_and_extra_positionals_are_refused() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mg.ones(2).add_(mg.ones(2), alpha=3).tolist() == [4.0, 4.0]
    with pytest.raises(TypeError):
        mg.ones(2).add_(mg.ones(2), 2)
    with pytest.raises(TypeError):
        mg.ones(2).addcmul_(mg.ones(2), mg.ones(2), 0.5)
