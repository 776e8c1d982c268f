"""F.normalize and F.cosine_similarity of float16/bfloat16 compute in float32 and round once:
within half an ulp of float64, their gradients too. Composed in the 2-byte dtype (a norm, a
clamp, a quotient, a product, a sum, each rounded) the gradients were up to ~5-6 ulps off."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_normalize_rounds_once(p, dtype):
    x = rounded(np.random.default_rng(0).standard_normal((6, 7)), dtype)
    y, y64, grads, grads64 = low_and_float64(lambda t: F.normalize(t, p, 1), [x], 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    assert ulp_errors(grads[0], grads64[0], dtype).max() <= 0.5 + 1e-2


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shapes", [((6, 7), (6, 7)), ((6, 7), (7,))], ids=["same", "broadcast"])
def test_cosine_similarity_rounds_once(shapes, dtype):
    rng = np.random.default_rng(1)
    a, b = (rounded(rng.standard_normal(s), dtype) for s in shapes)
    fn = lambda u, v: F.cosine_similarity(u, v, dim=-1)  # noqa: E731
    y, y64, grads, grads64 = low_and_float64(fn, [a, b], 1, dtype)
    assert ulp_errors(y, y64, dtype).max() <= 0.5 + 1e-2
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64, dtype).max() <= 0.5 + 1e-2
