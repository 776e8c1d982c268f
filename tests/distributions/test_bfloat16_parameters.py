"""Distributions whose code reads the dtype's limits (eps, tiny, min) work with bfloat16
parameters, as in PyTorch: they read them from the dtypes' finfo, since NumPy's finfo does not
know bfloat16 (it raised ValueError)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg

D = mg.distributions


def _bf16(values) -> mg.Tensor:
    return mg.tensor(np.asarray(values, dtype=np.float64)).to(mg.bfloat16)


def test_categorical_entropy_of_bfloat16_logits_matches_the_closed_form():
    logits = _bf16([0.5, -1.0, 2.0, 0.0])
    h = D.Categorical(logits=logits).entropy()
    z = logits.double().numpy()
    p = np.exp(z - np.logaddexp.reduce(z))
    assert h.dtype == mg.bfloat16
    np.testing.assert_allclose(h.double().numpy(), -(p * np.log(p)).sum(), rtol=2**-6)


def test_geometric_of_bfloat16_probs_samples_failure_counts():
    mg.manual_seed(0)
    k = D.Geometric(_bf16([0.3, 0.8])).sample((200,))
    assert k.dtype == mg.bfloat16
    counts = k.double().numpy()
    assert (counts >= 0).all() and (counts == np.floor(counts)).all()
    assert abs(counts[:, 1].mean() - 0.25) < 0.15  # mean (1 - p) / p


def test_gumbel_of_bfloat16_parameters_samples_and_scores():
    mg.manual_seed(0)
    g = D.Gumbel(_bf16([0.0]), _bf16([1.0]))
    x = g.sample((100,))
    assert x.dtype == mg.bfloat16 and np.isfinite(x.double().numpy()).all()
    lp = g.log_prob(_bf16([0.5]))  # -(z + e^-z), z = (x - loc) / scale
    np.testing.assert_allclose(lp.double().numpy(), -(0.5 + np.exp(-0.5)), rtol=2**-7)
