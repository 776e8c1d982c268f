"""PyTorch parity: a graph-convolution step with a sparse adjacency (torch.spmm, sparse.mm,
to_sparse, coalesce) gives PyTorch's values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def test_graph_convolution_with_a_sparse_adjacency_matches_pytorch() -> None:
    rng = np.random.default_rng(0)
    adj = (rng.random((6, 6)) < 0.4) * rng.random((6, 6))
    x_np, w_np = rng.standard_normal((6, 4)), rng.standard_normal((4, 3))
    results = []
    for lib in (mg, torch):
        a = lib.tensor(adj).to_sparse()
        x = lib.tensor(x_np, requires_grad=True)
        w = lib.tensor(w_np, requires_grad=True)
        h = lib.spmm(a, x @ w).relu()
        out = lib.sparse.mm(a, h)
        out.pow(2).sum().backward()
        coalesced = a.coalesce()
        results.append(
            [out.detach().numpy(), x.grad.numpy(), w.grad.numpy(), coalesced.indices().numpy(),
             coalesced.values().numpy()]
        )  # fmt: skip
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_sparse_leaf_gradient_matches_pytorch() -> None:
    indices, values = [[0, 1, 1, 0], [2, 0, 2, 2]], [3.0, 4.0, 5.0, 1.0]
    d_np = np.arange(6.0).reshape(3, 2) / 7
    grads = []
    for lib in (mg, torch):
        s = lib.sparse_coo_tensor(indices, values, (2, 3), dtype=lib.float64, requires_grad=True)
        (lib.sparse.mm(s, lib.tensor(d_np)) ** 2).sum().backward()
        g = s.grad.coalesce()
        grads.append((g.indices().numpy(), g.values().numpy()))
    np.testing.assert_array_equal(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-12)
