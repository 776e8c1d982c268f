"""A matrix times a batch (or a batch times a matrix) of float16/bfloat16: the matrix's
gradient, a sum over the batch of products, is one product with the batch folded in, rounded
once (as PyTorch folds such a matmul into one mm): within half an ulp of float64. Summed from
per-batch products rounded each, it was up to an ulp off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "shapes", [((3, 5, 6, 8), (8, 4)), ((6, 8), (5, 8, 4))], ids=["batch@matrix", "matrix@batch"]
)
@pytest.mark.parametrize("create_graph", [False, True])
def test_matmul_gradients_of_the_matrix_sum_the_batch_once(shapes, dtype, create_graph):
    rng = np.random.default_rng(0)
    a, b = (rounded(rng.standard_normal(s), dtype) for s in shapes)

    def product(x, y):
        return x @ y

    if create_graph:  # the recorded backward (create_graph=True) folds too
        y, y64, grads, grads64 = _with_graph(product, a, b, dtype)
    else:
        y, y64, grads, grads64 = low_and_float64(product, [a, b], 1, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-3
    for g, g64 in zip(grads, grads64):
        assert g.dtype == getattr(mg, dtype) and tuple(g.shape) == g64.shape
        assert ulp_errors(g, g64, dtype).max() <= 0.5 + 1e-2


def _with_graph(fn, a, b, dtype):
    out = []
    for dt in (getattr(mg, dtype), mg.float64):
        xs = [mg.tensor(v).to(dt).requires_grad_(True) for v in (a, b)]
        y = fn(*xs)
        gy = rounded(np.random.default_rng(1).standard_normal(tuple(y.shape)), dtype)
        out.append((y, mg.autograd.grad(y, xs, mg.tensor(gy).to(dt), create_graph=True)))
    (y, g), (y64, g64) = out
    return y, y64.detach().numpy(), g, [t.detach().numpy() for t in g64]
