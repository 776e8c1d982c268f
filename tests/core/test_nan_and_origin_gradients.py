"""Where PyTorch's values are NaN or a finite convention: atan2's gradient at the origin is 0,
kl_div with a negative target is NaN (p log p has no value there), logit's gradient outside
[0, 1] is NaN without eps and 0 with it. Closed forms elsewhere."""

from __future__ import annotations

import math

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F


def test_atan2_gradient_is_zero_at_the_origin_and_the_closed_form_elsewhere():
    ys, xs = np.array([0.0, -0.0, 1.0, -2.0, 0.5]), np.array([0.0, 0.0, 0.0, 1.5, -3.0])
    y, x = mg.tensor(ys, requires_grad=True), mg.tensor(xs, requires_grad=True)
    mg.atan2(y, x).sum().backward()
    r2 = xs * xs + ys * ys
    with np.errstate(divide="ignore", invalid="ignore"):
        gy, gx = np.where(r2 == 0, 0.0, xs / r2), np.where(r2 == 0, 0.0, -ys / r2)
    np.testing.assert_allclose(y.grad.numpy(), gy, rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), gx, rtol=1e-6)


def test_kl_div_of_a_negative_target_is_nan_and_of_zero_is_zero():
    q_log = np.array([0.477, 0.3, 0.2, -1.0])
    p = np.array([-0.5, 0.0, 0.5, 2.0])
    x = mg.tensor(q_log, dtype=mg.float64, requires_grad=True)
    loss = F.kl_div(x, mg.tensor(p, dtype=mg.float64), reduction="none")
    expected = [math.nan, 0.0, 0.5 * (math.log(0.5) - 0.2), 2.0 * (math.log(2.0) + 1.0)]
    np.testing.assert_allclose(loss.detach().numpy(), expected, rtol=1e-14)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), -p, rtol=1e-14)  # d/dq_log = -p
    assert math.isnan(F.kl_div(x, mg.tensor(p, dtype=mg.float64), reduction="sum").item())


def test_logit_gradient_is_nan_outside_the_unit_interval_without_eps():
    ps = np.array([-0.5, 1.5, 0.0, 1.0, 0.25, 0.5])
    p = mg.tensor(ps, dtype=mg.float64, requires_grad=True)
    y = mg.logit(p)
    y.sum().backward()
    with np.errstate(divide="ignore"):
        inside = 1 / (ps * (1 - ps))
    np.testing.assert_array_equal(p.grad.numpy(), np.where((ps < 0) | (ps > 1), np.nan, inside))
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_allclose(y.detach().numpy(), np.log(ps / (1 - ps)), rtol=1e-15)


def test_logit_gradient_is_zero_outside_the_clamp_with_eps():
    ps = np.array([-0.5, 1.5, 0.05, 0.95, 0.25])
    p = mg.tensor(ps, dtype=mg.float64, requires_grad=True)
    mg.logit(p, eps=0.1).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [0.0, 0.0, 0.0, 0.0, 1 / (0.25 * 0.75)])
