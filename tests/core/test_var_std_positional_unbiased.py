"""PyTorch's var/std(input, unbiased) overload: a bool in the first place after the input is
``unbiased``, not a dim (x.var(False) divides by N). Oracle: NumPy's var with ddof."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.array([[1.0, 2.0, 4.0], [7.0, -3.0, 0.5]])


@pytest.mark.parametrize("unbiased", [True, False])
def test_var_and_std_read_a_positional_bool_as_unbiased(unbiased):
    x = mg.tensor(A)
    ddof = int(unbiased)
    np.testing.assert_allclose(x.var(unbiased).item(), A.var(ddof=ddof), rtol=1e-14)
    np.testing.assert_allclose(mg.var(x, unbiased).item(), A.var(ddof=ddof), rtol=1e-14)
    np.testing.assert_allclose(x.std(unbiased).item(), A.std(ddof=ddof), rtol=1e-14)
    v, m = mg.var_mean(x, unbiased)
    np.testing.assert_allclose([v.item(), m.item()], [A.var(ddof=ddof), A.mean()], rtol=1e-14)


def test_half_std_does_not_overflow_through_its_variance():
    # var = 1.2e9 is inf in float16, the std 34640 is not (float16's nearest: 34656)
    values = np.array([60000.0, 60000.0, 1.0])
    x = mg.tensor(values, dtype=mg.float16, requires_grad=True)
    s = x.std()
    assert s.item() == float(np.float16(values.std(ddof=1)))
    (g,) = mg.autograd.grad(s, x)  # (x_i - mean) / ((N - 1) s)
    want = (values - values.mean()) / (2 * values.std(ddof=1))
    np.testing.assert_allclose(g.float().numpy(), want, rtol=2e-3)
    assert mg.std(x, 0, keepdim=True).item() == s.item()
