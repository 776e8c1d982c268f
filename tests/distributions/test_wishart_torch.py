"""``distributions.Wishart`` side by side with PyTorch's: log_prob, entropy, mean, variance and
mode in float64, for batched df and each parametrization."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_values_match_pytorch(param):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 3))
    v = a @ a.transpose(0, 2, 1) + 2 * np.eye(3)
    b = rng.standard_normal((4, 1, 3, 3))
    x = b @ b.transpose(0, 1, 3, 2) + np.eye(3)
    given = {"covariance_matrix": v, "precision_matrix": np.linalg.inv(v),
             "scale_tril": np.linalg.cholesky(v)}[param]  # fmt: skip
    df = np.array([4.5, 7.0])
    results = []
    for lib in (mg, torch):
        d = lib.distributions.Wishart(lib.tensor(df), **{param: lib.tensor(given)})
        values = (d.log_prob(lib.tensor(x)), d.entropy(), d.mean, d.variance, d.mode)
        results.append([t.numpy() for t in values])
    for ours, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
