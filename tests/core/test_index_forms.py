"""Index forms PyTorch accepts: int32 index tensors in gather, scatter, scatter_add,
scatter_reduce and index_select (not in index_copy / index_fill, as PyTorch); a tuple inside an
index as a sequence (``x[(1, 0), :, (2, 1)]``); and norm(p="nuc")."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

X = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize(
    "name, call",
    [
        ("gather", lambda x, i: x.gather(1, i)),
        ("scatter", lambda x, i: x.scatter(1, i, 7.0)),
        ("scatter_add", lambda x, i: x.scatter_add(1, i, mg.ones(3, 2, dtype=x.dtype))),
        (
            "scatter_reduce",
            lambda x, i: x.scatter_reduce(1, i, mg.ones(3, 2, dtype=x.dtype), "amax"),
        ),
        ("index_select", lambda x, i: x.index_select(1, i[0])),
    ],
)
def test_int32_indices_give_the_int64_result(name, call) -> None:
    x = mg.tensor(X)
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    ours = call(x, mg.tensor(idx, dtype=mg.int32))
    np.testing.assert_array_equal(ours.numpy(), call(x, mg.tensor(idx)).numpy())


def test_int32_gather_has_the_same_gradient() -> None:
    x = mg.tensor(X, requires_grad=True)
    idx = mg.tensor([[0, 0], [3, 1], [2, 2]], dtype=mg.int32)
    assert gradcheck(lambda t: t.gather(1, idx), (x,))


def test_int32_stays_refused_where_pytorch_refuses_it() -> None:
    with pytest.raises(RuntimeError, match="int64"):
        mg.zeros(3, 4).index_copy(0, mg.tensor([0], dtype=mg.int32), mg.ones(1, 4))
    with pytest.raises(RuntimeError, match="int32/int64"):
        mg.zeros(3, 4).gather(1, mg.tensor([[0]], dtype=mg.int16))


def test_a_tuple_inside_an_index_is_a_sequence() -> None:
    x = mg.arange(24.0).reshape(2, 3, 4)
    ref = np.arange(24.0).reshape(2, 3, 4)[[1, 0], :, [2, 1]]
    np.testing.assert_array_equal(x[(1, 0), :, (2, 1)].numpy(), ref)
    np.testing.assert_array_equal(x[(1, 0), :, (2, 1)].numpy(), x[[1, 0], :, [2, 1]].numpy())
    x[(1, 0), :, (2, 1)] = 0.0
    assert x[1, :, 2].tolist() == [0.0, 0.0, 0.0] and x[0, :, 1].tolist() == [0.0, 0.0, 0.0]


def test_nuclear_norm_is_the_sum_of_singular_values_with_gradient_u_vt() -> None:
    a = np.random.default_rng(0).standard_normal((3, 4))
    x = mg.tensor(a, requires_grad=True)
    n = mg.norm(x, p="nuc")
    np.testing.assert_allclose(n.item(), np.linalg.norm(a, "nuc"))
    n.backward()
    u, _, vt = np.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(x.grad.numpy(), u @ vt, atol=1e-12)
    batch = np.random.default_rng(1).standard_normal((2, 3, 4))
    out = mg.tensor(batch).norm(p="nuc", dim=(0, 2), keepdim=True)
    ref = np.linalg.norm(np.moveaxis(batch, 1, 0), "nuc", axis=(1, 2))
    assert tuple(out.shape) == (1, 3, 1)
    np.testing.assert_allclose(out.reshape(-1).numpy(), ref)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        mg.ones(3).norm(p="nuc")
    with pytest.raises(RuntimeError, match="2-tuple"):
        mg.ones(2, 3, 4).norm(p="nuc", dim=(0, 1, 2))
