"""``mg.binomial(count, prob)``: draws whose mean and variance are n p and n p (1 - p), exact at
the edges (prob 0 and 1, count 0), broadcast, reproducible from a generator, and the errors
for non-float counts, mixed dtypes and out-of-range arguments."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_binomial_draws_have_mean_np_and_variance_np_one_minus_p():
    mg.manual_seed(0)
    count = mg.tensor([4.0, 20.0, 7.0]).expand(50000, 3)
    prob = mg.tensor([0.5, 0.1, 0.9]).expand(50000, 3)
    x = mg.binomial(count, prob).numpy()
    n, p = np.array([4.0, 20.0, 7.0]), np.array([0.5, 0.1, 0.9])
    assert x.dtype == np.float32 and (x == np.round(x)).all() and (x >= 0).all() and (x <= n).all()
    np.testing.assert_allclose(x.mean(0), n * p, rtol=0.02)
    np.testing.assert_allclose(x.var(0), n * p * (1 - p), rtol=0.05)


def test_binomial_edges_are_exact_and_arguments_broadcast():
    x = mg.binomial(mg.tensor([[3.0], [0.0]]), mg.tensor([0.0, 1.0, 0.4]))
    assert x.shape == (2, 3)
    assert x[0, :2].tolist() == [0.0, 3.0] and x[1].tolist() == [0.0, 0.0, 0.0]


def test_binomial_repeats_with_a_generator_of_the_same_seed():
    count, prob = mg.full((100,), 10.0), mg.full((100,), 0.3)
    a = mg.binomial(count, prob, generator=mg.Generator().manual_seed(5))
    b = mg.binomial(count, prob, generator=mg.Generator().manual_seed(5))
    assert mg.equal(a, b)


def test_binomial_rejects_bad_arguments():
    p = mg.tensor([0.5])
    with pytest.raises(ValueError, match="floating-point dtypes for count"):
        mg.binomial(mg.tensor([3]), p)
    with pytest.raises(RuntimeError, match="expected"):
        mg.binomial(mg.tensor([3.0]), p.double())
    with pytest.raises(ValueError, match="prob must lie in"):
        mg.binomial(mg.tensor([3.0]), mg.tensor([1.5]))
    with pytest.raises(ValueError, match="count must be non-negative"):
        mg.binomial(mg.tensor([-1.0]), p)
