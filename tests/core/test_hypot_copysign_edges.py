"""hypot and copysign at the edges: hypot is inf where either side is infinite (NaN included,
as C's hypot) and does not overflow; copysign's gradient is z / a (+-1, 0 at a = 0, NaN at a NaN
or infinite a) and 0 for ``other``, which may be the only operand requiring grad."""

from __future__ import annotations

import math

import numpy as np

import minigenesis as mg

INF, NAN = math.inf, math.nan


def test_hypot_is_inf_where_either_side_is_infinite_even_against_nan():
    a = np.array([NAN, INF, -INF, NAN, 3.0, 1e200])
    b = np.array([INF, NAN, 2.0, 1.0, 4.0, 1e200])
    for dtype in (mg.float64, mg.float32):
        got = mg.hypot(mg.tensor(a, dtype=dtype), mg.tensor(b, dtype=dtype)).double().numpy()
        want = np.hypot(a, b).astype(np.float32 if dtype is mg.float32 else np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_hypot_gradient_is_a_over_hypot():
    a = mg.tensor([3.0, -1.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([4.0, 2.0], dtype=mg.float64, requires_grad=True)
    ga, gb = mg.autograd.grad(mg.hypot(a, b).sum(), [a, b])
    r = np.hypot([3.0, -1.0], [4.0, 2.0])
    np.testing.assert_allclose(ga.numpy(), np.array([3.0, -1.0]) / r)
    np.testing.assert_allclose(gb.numpy(), np.array([4.0, 2.0]) / r)


def test_copysign_of_an_int_by_a_float_requiring_grad_requires_grad():
    other = mg.tensor([-1.0, 2.0, NAN], requires_grad=True)
    z = mg.copysign(mg.tensor([1, -2, 3]), other)
    assert z.requires_grad
    np.testing.assert_array_equal(z.detach().numpy(), [-1.0, 2.0, 3.0])
    (g,) = mg.autograd.grad(z.sum(), other)
    np.testing.assert_array_equal(g.numpy(), np.zeros(3))


def test_copysign_gradient_is_the_sign_ratio_nan_at_nan_zero_at_zero():
    a = np.array([1.0, -2.0, NAN, 0.0, -0.0, INF])
    b = np.array([-1.0, NAN, 1.0, -1.0, 1.0, -0.0])
    x = mg.tensor(a, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(mg.copysign(x, mg.tensor(b, dtype=mg.float64)).sum(), x)
    with np.errstate(invalid="ignore"):
        want = np.where(a == 0, 0.0, np.copysign(a, b) / a)  # -1, -1 (NaN's sign is +), NaN ...
    np.testing.assert_array_equal(g.numpy(), want)
