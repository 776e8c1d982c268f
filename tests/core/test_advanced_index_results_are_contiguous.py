"""x[..., index] with a tensor index on a later dim is a fresh row-major tensor, as PyTorch's:
NumPy lays such a result out with the indexed dim first, so .view(-1) used to fail on it."""

import numpy as np
import pytest

import minigenesis as mg

X = np.arange(120.0).reshape(4, 5, 6)


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), [0, 2]),
        (slice(None), slice(None), [1, 3]),
        ([0, 1], slice(None), [1, 3]),
        (slice(None), [[0, 1], [2, 3]]),
        (slice(None), [0, 2], slice(1, 3)),
    ],
)
def test_advanced_index_on_a_later_dim_is_contiguous(index):
    mg_index = tuple(mg.tensor(i) if isinstance(i, list) else i for i in index)
    np_index = tuple(np.array(i) if isinstance(i, list) else i for i in index)
    got = mg.tensor(X)[mg_index]
    assert got.is_contiguous()
    np.testing.assert_array_equal(got.view(-1).numpy(), X[np_index].reshape(-1))


def test_index_select_on_dim_1_can_be_viewed():
    x = mg.tensor(X[0], requires_grad=True)
    flat = x.index_select(1, mg.tensor([0, 2])).view(-1)
    np.testing.assert_array_equal(flat.detach().numpy(), X[0][:, [0, 2]].reshape(-1))
    (flat * mg.arange(10.0, dtype=mg.float64)).sum().backward()
    want = np.zeros((5, 6))
    want[:, [0, 2]] = np.arange(10.0).reshape(5, 2)
    np.testing.assert_array_equal(x.grad.numpy(), want)
