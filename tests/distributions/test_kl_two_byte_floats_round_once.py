"""KL divergences between Gammas, Betas and Geometrics with float16/bfloat16 parameters compute
in float32 and round once, as PyTorch's kernels do. Their closed forms subtract nearly equal
terms (psi against psi, a log against a ratio) that cancel at p = q: rounded in the 2-byte dtype
term by term, the value and the gradients were off by an ulp of the terms (up to ~100 ulps of
the result, and gradients of ~2e-3 where the true gradient at p = q is 0)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import rounded, ulp_errors

PAIRS = {
    "Gamma": ("concentration", "rate"),
    "Beta": ("concentration1", "concentration0"),
    "Geometric": ("probs",),
}


def _params(name: str, rng, dtype: str) -> list[np.ndarray]:
    lo, hi = (0.2, 0.8) if name == "Geometric" else (1.0, 3.0)
    return [rounded(rng.uniform(lo, hi, 6), dtype) for _ in PAIRS[name]]


def _kl(name: str, p: list, q: list, dt):
    cls, names = getattr(mg.distributions, name), PAIRS[name]
    ts = [mg.tensor(a).to(dt).requires_grad_(True) for a in (*p, *q)]
    k = len(names)
    kl = mg.distributions.kl_divergence(
        cls(**dict(zip(names, ts[:k]))), cls(**dict(zip(names, ts[k:])))
    )
    return kl, mg.autograd.grad(kl.sum(), ts)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_gradient_at_p_equals_q_is_float32_noise_not_an_ulp_of_the_terms(name, dtype):
    p = _params(name, np.random.default_rng(0), dtype)
    kl, grads = _kl(name, p, p, getattr(mg, dtype))
    assert kl.dtype == getattr(mg, dtype)
    assert np.abs(kl.detach().double().numpy()).max() <= 1e-6  # KL(p, p) = 0
    for g in grads:  # d KL / d theta = 0 at p = q (float64 closed form)
        assert np.abs(g.double().numpy()).max() <= 1e-6


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_value_and_gradients_within_an_ulp_of_float64(name, dtype):
    rng = np.random.default_rng(1)
    p, q = _params(name, rng, dtype), _params(name, rng, dtype)
    kl, grads = _kl(name, p, q, getattr(mg, dtype))
    kl64, grads64 = _kl(name, p, q, mg.float64)
    truth = kl64.detach().numpy()
    big = np.abs(truth) > 0.05  # ulps of a tiny KL measure float32's own cancellation
    assert ulp_errors(kl, truth, dtype)[big].max() <= 1.0
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64.numpy(), dtype).max() <= 1.0
