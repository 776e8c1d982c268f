"""F.embedding_bag and nn.EmbeddingBag against NumPy: each bag's sum (with per-sample weights),
mean or max of its rows, bags given by offsets (with or without the closing offset) or as the
rows of a 2-D input, padding entries left out, empty bags zero; gradients as np.add.at of each
bag's output gradient (for max: into the row holding the max); bad arguments named."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn import functional as F

RNG = np.random.default_rng(0)
W = RNG.standard_normal((10, 4))
INPUT = np.array([4, 1, 7, 2, 2, 9, 0, 3])
OFFSETS = np.array([0, 3, 5, 5, 6])  # bags {4, 1, 7} {2, 2} {} {9} {0, 3}
GY = RNG.standard_normal((5, 4))


def _numpy_bags(mode, weights=None, padding_idx=None):
    """Each bag's output and the gradient of sum(out * GY) with respect to W."""
    out, grad = np.zeros((5, 4)), np.zeros_like(W)
    bounds = list(OFFSETS) + [len(INPUT)]
    for b, (lo, hi) in enumerate(zip(bounds, bounds[1:])):
        pos = [p for p in range(lo, hi) if INPUT[p] != padding_idx]
        if not pos:
            continue
        rows = W[INPUT[pos]]
        if mode == "max":
            out[b] = rows.max(0)
            for j, k in enumerate(rows.argmax(0)):
                grad[INPUT[pos][k], j] += GY[b, j]
            continue
        w = np.ones(len(pos)) if weights is None else weights[pos]
        scale = 1 / len(pos) if mode == "mean" else 1.0
        out[b] = scale * (w[:, None] * rows).sum(0)
        np.add.at(grad, INPUT[pos], scale * w[:, None] * GY[b])
    return out, grad


def _ours(mode, **kw):
    w = mg.tensor(W, requires_grad=True)
    out = F.embedding_bag(mg.tensor(INPUT), w, mg.tensor(OFFSETS), mode=mode, **kw)
    (out * mg.tensor(GY)).sum().backward()
    return out.detach().numpy(), w.grad.numpy()


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_each_bag_reduces_its_rows(mode: str, padding_idx) -> None:
    out, grad = _ours(mode, padding_idx=padding_idx)
    want_out, want_grad = _numpy_bags(mode, padding_idx=padding_idx)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)
    assert not out[2].any()  # the empty bag


def test_per_sample_weights_scale_each_row_of_a_sum() -> None:
    weights = RNG.standard_normal(len(INPUT))
    out, grad = _ours("sum", per_sample_weights=mg.tensor(weights))
    want_out, want_grad = _numpy_bags("sum", weights)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


def test_include_last_offset_and_2d_input_give_the_same_bags() -> None:
    w = mg.tensor(W)
    idx = mg.tensor([[1, 2, 3], [4, 5, 6]])
    as_2d = F.embedding_bag(idx, w, mode="sum")
    ends = mg.tensor([0, 3, 6])  # the closing offset included
    flat = F.embedding_bag(idx.reshape(-1), w, ends, mode="sum", include_last_offset=True)
    np.testing.assert_allclose(as_2d.numpy(), [W[1:4].sum(0), W[4:7].sum(0)], rtol=1e-12)
    np.testing.assert_array_equal(flat.numpy(), as_2d.numpy())


def test_module_defaults_and_sparse_gradient() -> None:
    mg.manual_seed(0)
    bag = nn.EmbeddingBag(10, 3, padding_idx=0)
    assert bag.mode == "mean" and not bag.weight[0].any()
    assert repr(bag) == "EmbeddingBag(10, 3, mode='mean', padding_idx=0)"
    out = bag(mg.tensor([0, 5, 5, 6]), mg.tensor([0, 2]))
    np.testing.assert_allclose(out[0].detach().numpy(), bag.weight[5].detach().numpy())  # pad out
    sparse = nn.EmbeddingBag(10, 3, mode="sum", sparse=True)
    sparse(mg.tensor([[1, 4], [4, 4]])).sum().backward()
    g = sparse.weight.grad
    assert g.is_sparse and g.indices().tolist() == [[1, 4]]
    np.testing.assert_array_equal(g.values().numpy(), [[1, 1, 1], [3, 3, 3]])
    assert nn.modules.sparse.EmbeddingBag is nn.EmbeddingBag


def test_bad_arguments_are_named() -> None:
    w = mg.tensor(W)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(mg.tensor([1]), w, mg.tensor([0]), mode="median")
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(mg.tensor([[1]]), w, mg.tensor([0]))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(mg.tensor([1, 2]), w)
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(mg.tensor([1, 2]), w, mg.tensor([1]))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(mg.tensor([1, 2]), w, mg.tensor([0]), per_sample_weights=mg.ones(2))


@pytest.mark.parametrize("psw_dtype", ["float64", "float16", "int64"])
def test_per_sample_weights_of_another_dtype_than_the_weight_are_refused(psw_dtype) -> None:
    w = mg.ones(5, 3)  # float32
    psw = mg.ones(2, dtype=getattr(mg, psw_dtype))
    with pytest.raises(RuntimeError, match=f"weight's dtype float32, got {psw_dtype}"):
        F.embedding_bag(mg.tensor([1, 2]), w, mg.tensor([0]), mode="sum", per_sample_weights=psw)
    bag = mg.nn.EmbeddingBag(5, 3, mode="sum")
    with pytest.raises(RuntimeError, match="per_sample_weights must have the weight's dtype"):
        bag(mg.tensor([1, 2]), mg.tensor([0]), per_sample_weights=psw)
