"""nn.Embedding(sparse=True): the weight's gradient is a sparse COO tensor over the rows looked
up, equal to the dense gradient (NumPy: np.add.at of the output's gradient), accumulating over
backward passes as a dense one does; SGD and Adagrad take it (the same update as with the dense
gradient), the other dense optimizers refuse it with PyTorch's message."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

RNG = np.random.default_rng(0)


def _dense_grad(num: int, idx: np.ndarray, gy: np.ndarray, padding_idx=None) -> np.ndarray:
    g = np.zeros((num, gy.shape[-1]))
    np.add.at(g, idx.reshape(-1), gy.reshape(-1, gy.shape[-1]))
    if padding_idx is not None:
        g[padding_idx] = 0
    return g


def _embedding(num=7, dim=3, **kw) -> nn.Embedding:
    emb = nn.Embedding(num, dim, sparse=True, **kw)
    emb.weight.data = mg.tensor(RNG.standard_normal((num, dim)))
    return emb


def test_sparse_grad_holds_the_looked_up_rows_with_the_summed_gradient() -> None:
    emb = _embedding()
    idx = np.array([[1, 4, 1], [6, 4, 0]])
    gy = RNG.standard_normal((2, 3, 3))
    (emb(mg.tensor(idx)) * mg.tensor(gy)).sum().backward()
    g = emb.weight.grad
    assert g.is_sparse and g.layout == mg.sparse_coo and g.shape == (7, 3)
    assert g.coalesce().indices().tolist() == [[0, 1, 4, 6]]  # each row once, in order
    np.testing.assert_allclose(g.to_dense().numpy(), _dense_grad(7, idx, gy), rtol=1e-12)


def test_padding_row_is_left_out_and_a_zero_gradient_row_kept() -> None:
    emb = _embedding(padding_idx=0)
    (emb(mg.tensor([0, 2, 3])) * mg.tensor([[1.0], [0.0], [2.0]])).sum().backward()
    g = emb.weight.grad
    assert g.indices().tolist() == [[2, 3]]  # row 2 was looked up: stored, with zeros
    np.testing.assert_array_equal(g.values().numpy(), [[0.0] * 3, [2.0] * 3])


def test_gradients_accumulate_over_backward_passes_like_dense_ones() -> None:
    emb, dense = _embedding(), nn.Embedding(7, 3)
    dense.weight.data = emb.weight.data.clone()
    for idx in ([1, 2], [2, 5, 5], [6]):
        gy = mg.tensor(RNG.standard_normal((len(idx), 3)))
        (emb(mg.tensor(idx)) * gy).sum().backward()
        (dense(mg.tensor(idx)) * gy).sum().backward()
    g = emb.weight.grad
    assert g.is_sparse and g.indices().tolist() == [[1, 2, 5, 6]]
    np.testing.assert_allclose(g.to_dense().numpy(), dense.weight.grad.numpy(), rtol=1e-12)


def test_two_lookups_in_one_pass_give_the_union_of_rows() -> None:
    emb = _embedding()
    (emb(mg.tensor([3])).sum() + 2 * emb(mg.tensor([[5, 3]])).sum()).backward()
    assert emb.weight.grad.indices().tolist() == [[3, 5]]
    np.testing.assert_allclose(emb.weight.grad.values().numpy(), [[3.0] * 3, [2.0] * 3])


def test_a_lookup_that_never_reaches_backward_adds_no_rows() -> None:
    emb = _embedding()
    emb(mg.tensor([2, 6]))  # (an evaluation with gradients on, never backpropagated)
    emb(mg.tensor([4])).sum().backward()
    assert emb.weight.grad.indices().tolist() == [[4]]


def test_zero_grad_clears_the_rows() -> None:
    emb = _embedding()
    opt = mg.optim.SGD(emb.parameters(), lr=0.1)
    emb(mg.tensor([1, 2])).sum().backward()
    opt.zero_grad(set_to_none=False)  # a sparse gradient with no entries
    assert emb.weight.grad.is_sparse and emb.weight.grad._nnz() == 0
    emb(mg.tensor([3])).sum().backward()
    assert emb.weight.grad.indices().tolist() == [[3]]
    opt.zero_grad()
    assert emb.weight.grad is None


@pytest.mark.parametrize(
    "make",
    [
        lambda p: mg.optim.SGD(p, lr=0.1),
        lambda p: mg.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True),
        lambda p: mg.optim.Adagrad(p, lr=0.1),
    ],
    ids=["sgd", "sgd-nesterov", "adagrad"],
)
def test_sgd_and_adagrad_step_as_with_the_dense_gradient(make) -> None:
    emb, dense = _embedding(), nn.Embedding(7, 3)
    dense.weight.data = emb.weight.data.clone()
    opts = make(emb.parameters()), make(dense.parameters())
    for idx in ([1, 2], [2, 5], [6, 1]):
        for model, opt in zip((emb, dense), opts):
            opt.zero_grad()
            (model(mg.tensor(idx)) ** 2).sum().backward()
            opt.step()
    np.testing.assert_allclose(emb.weight.detach().numpy(), dense.weight.detach().numpy())


def test_optimizers_without_sparse_support_refuse_the_gradient() -> None:
    emb = _embedding()
    emb(mg.tensor([1])).sum().backward()
    with pytest.raises(RuntimeError, match="Adam does not support sparse gradients"):
        mg.optim.Adam(emb.parameters()).step()
    with pytest.raises(RuntimeError, match="weight_decay option is not compatible"):
        mg.optim.Adagrad(emb.parameters(), weight_decay=0.1).step()


def test_dense_lookups_keep_dense_gradients() -> None:
    emb = nn.Embedding(5, 2)  # sparse=False: a plain dense gradient
    emb(mg.tensor([1])).sum().backward()
    assert not emb.weight.grad.is_sparse
    # a computed weight (not a leaf): the gradient flows on through the graph, right in value
    w = mg.ones(5, 2, requires_grad=True)
    mg.nn.functional.embedding(mg.tensor([1, 1]), w * 2, sparse=True).sum().backward()
    g = w.grad.to_dense() if w.grad.is_sparse else w.grad
    np.testing.assert_array_equal(g.numpy(), [[0, 0], [4, 4], [0, 0], [0, 0], [0, 0]])


def test_a_deep_copy_starts_without_a_gradient_and_accumulates_on_its_own() -> None:
    emb = _embedding()
    emb(mg.tensor([1, 3])).sum().backward()
    twin = copy.deepcopy(emb)
    assert twin.weight.grad is None  # as PyTorch's Parameter.__deepcopy__: values only
    twin(mg.tensor([5])).sum().backward()  # a sparse gradient of the copy's own
    assert twin.weight.grad.is_sparse and twin.weight.grad.indices().tolist() == [[5]]
    assert emb.weight.grad.indices().tolist() == [[1, 3]]
    np.testing.assert_array_equal(twin.weight.grad.to_dense().numpy()[[5]], np.ones((1, 3)))


def test_a_weight_used_sparsely_and_densely_in_one_pass_gets_the_whole_dense_gradient():
    """emb(idx) and a dense use of emb.weight in the same loss: the gradient outside the rows
    looked up is not lost; as in PyTorch, the sum of a sparse and a dense gradient is dense."""
    emb = mg.nn.Embedding(5, 3, sparse=True)
    idx = mg.tensor([0, 1, 1])
    (emb(idx).sum() + (emb.weight * 2.0).sum()).backward()
    grad = emb.weight.grad
    assert not getattr(grad, "is_sparse", False)
    expected = np.full((5, 3), 2.0)
    expected[0] += 1.0
    expected[1] += 2.0
    np.testing.assert_allclose(grad.numpy(), expected)
