"""Beta, Dirichlet, StudentT and FisherSnedecor ``rsample``: built from Gamma draws that carry
their implicit gradient (Gamma.rsample), so gradients of Monte-Carlo expectations estimate the
exact gradients of the expectations.

Each gradient check draws N independent copies of the distribution as a batch of N identical
parameter rows; one backward of the sum gives one per-draw gradient per row, whose mean
estimates d/dtheta E[f(X)] and whose spread gives the estimate's standard error (SE). The
closed forms are the oracles: the tests ask for agreement within 5 SE (a chance failure rate
~6e-7 per check), and, so that a wide spread cannot pass a wrong gradient, for an SE below 2%
of the closed form (or below a fixed bound where the closed form is 0)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.distributions import Beta, Dirichlet, FisherSnedecor, StudentT

N = 100_000


def _trigamma(x: float) -> float:
    """psi'(x) = sum_k 1 / (x + k)^2: the recurrence up to x >= 20, then the asymptotic series
    1/x + 1/(2x^2) + 1/(6x^3) - 1/(30x^5) + 1/(42x^7) - 1/(30x^9) (error < 1e-16 there)."""
    acc = 0.0
    while x < 20:
        acc += 1 / x**2
        x += 1
    return (
        acc
        + 1 / x
        + 1 / (2 * x**2)
        + 1 / (6 * x**3)
        - 1 / (30 * x**5)
        + 1 / (42 * x**7)
        - 1 / (30 * x**9)
    )


def _rows(value: float) -> mg.Tensor:
    return mg.full((N,), value, dtype=mg.float64).requires_grad_()


def _check(per_draw: np.ndarray, exact: float, zero_se: float = 0.0) -> None:
    """The mean of the per-draw gradients is the closed form within 5 SE, and SE is small."""
    se = per_draw.std() / math.sqrt(per_draw.size)
    assert se < (0.02 * abs(exact) if exact != 0 else zero_se)
    assert abs(per_draw.mean() - exact) < 5 * se, (per_draw.mean(), exact, se)


def _t(*v: float) -> mg.Tensor:
    return mg.tensor(list(v) if len(v) > 1 else v[0], dtype=mg.float64)


@pytest.mark.parametrize(
    "make",
    [
        lambda: Beta(_t(2.0), _t(3.0)),
        lambda: Dirichlet(_t(1.0, 2.0, 3.0)),
        lambda: StudentT(_t(5.0), _t(1.0), _t(2.0)),
        lambda: FisherSnedecor(_t(4.0), _t(6.0)),
    ],
    ids=["Beta", "Dirichlet", "StudentT", "FisherSnedecor"],
)
def test_rsample_flags_and_a_gradient_for_every_parameter(make) -> None:
    d = make()
    params = [getattr(d, n) for n in d.arg_constraints]
    for p in params:
        p.requires_grad_()
    assert d.has_rsample and type(d).has_rsample
    x = d.rsample((7,))
    assert x.requires_grad
    (x * x).sum().backward()
    for name, p in zip(d.arg_constraints, params, strict=True):
        assert p.grad is not None, name
        assert np.all(np.isfinite(p.grad.numpy())), name


def test_rsample_draws_are_sample_draws_at_the_same_seed_with_shapes_and_dtypes() -> None:
    f32 = mg.float32
    cases = [
        (Beta(mg.ones(2, dtype=f32), mg.full((3, 1), 2.0, dtype=f32)), (4, 3, 2)),
        (Dirichlet(mg.ones(2, 3, dtype=f32)), (4, 2, 3)),
        (StudentT(mg.full((2,), 3.0, dtype=f32), 0.0, 1.0), (4, 2)),
        (FisherSnedecor(mg.full((2,), 3.0, dtype=f32), 5.0), (4, 2)),
    ]
    for d, shape in cases:
        mg.manual_seed(3)
        s = d.sample((4,))
        mg.manual_seed(3)
        r = d.rsample((4,))
        assert s.shape == r.shape == shape and s.dtype is r.dtype is f32
        assert not s.requires_grad
        np.testing.assert_array_equal(s.numpy(), r.numpy())
        assert bool(d.support.check(r).all())


def test_beta_rsample_gradient_of_the_mean_and_of_the_mean_log() -> None:
    """d/da E[X] = b / (a+b)^2, d/db E[X] = -a / (a+b)^2; E[log X] = psi(a) - psi(a+b)."""
    a, b = 2.0, 3.0
    mg.manual_seed(0)
    ta, tb = _rows(a), _rows(b)
    Beta(ta, tb).rsample().sum().backward()
    _check(ta.grad.numpy(), b / (a + b) ** 2)
    _check(tb.grad.numpy(), -a / (a + b) ** 2)
    mg.manual_seed(1)
    ta, tb = _rows(0.7), _rows(1.5)
    Beta(ta, tb).rsample().log().sum().backward()
    _check(ta.grad.numpy(), _trigamma(0.7) - _trigamma(2.2))
    _check(tb.grad.numpy(), -_trigamma(2.2))


def test_dirichlet_rsample_gradient_of_a_weighted_mean() -> None:
    """E[w . X] = w . a / a0, so d/da_i = (w_i a0 - w . a) / a0^2 for each i."""
    alpha, w = np.array([0.8, 2.0, 3.5]), np.array([1.0, -2.0, 0.5])
    mg.manual_seed(0)
    conc = mg.tensor(np.tile(alpha, (N, 1))).requires_grad_()
    (Dirichlet(conc).rsample() * mg.tensor(w)).sum().backward()
    a0 = alpha.sum()
    exact = (w * a0 - w @ alpha) / a0**2
    grads = conc.grad.numpy()
    for i in range(3):
        _check(grads[:, i], exact[i])


def test_student_t_rsample_gradients_of_the_mean_and_second_moment() -> None:
    """E[X] = loc (df > 1): d/dloc 1, d/dscale 0, d/ddf 0. E[(X - loc)^2] = scale^2 df / (df - 2)
    (df > 2): d/dscale 2 scale df / (df - 2), d/ddf -2 scale^2 / (df - 2)^2 (df = 9 leaves the
    per-draw gradients a finite variance)."""
    df, loc, scale = 9.0, 1.5, 2.0
    mg.manual_seed(0)
    tdf, tloc, tscale = _rows(df), _rows(loc), _rows(scale)
    StudentT(tdf, tloc, tscale).rsample().sum().backward()
    np.testing.assert_allclose(tloc.grad.numpy(), 1.0)
    _check(tscale.grad.numpy(), 0.0, zero_se=0.02)
    _check(tdf.grad.numpy(), 0.0, zero_se=0.002)
    mg.manual_seed(1)
    tdf, tscale = _rows(df), _rows(scale)
    x = StudentT(tdf, loc, tscale).rsample()
    ((x - loc) ** 2).sum().backward()
    _check(tscale.grad.numpy(), 2 * scale * df / (df - 2))
    _check(tdf.grad.numpy(), -2 * scale**2 / (df - 2) ** 2)


def test_fisher_snedecor_rsample_gradients_of_the_mean_and_mean_log() -> None:
    """E[X] = d2 / (d2 - 2): d/dd2 -2 / (d2 - 2)^2, d/dd1 0.
    E[log X] = log(d2 / d1) + psi(d1 / 2) - psi(d2 / 2):
    d/dd1 = -1/d1 + psi'(d1 / 2) / 2, d/dd2 = 1/d2 - psi'(d2 / 2) / 2."""
    d1, d2 = 5.0, 12.0
    mg.manual_seed(0)
    t1, t2 = _rows(d1), _rows(d2)
    FisherSnedecor(t1, t2).rsample().sum().backward()
    _check(t2.grad.numpy(), -2 / (d2 - 2) ** 2)
    _check(t1.grad.numpy(), 0.0, zero_se=0.002)
    mg.manual_seed(1)
    t1, t2 = _rows(d1), _rows(d2)
    FisherSnedecor(t1, t2).rsample().log().sum().backward()
    _check(t1.grad.numpy(), -1 / d1 + _trigamma(d1 / 2) / 2)
    _check(t2.grad.numpy(), 1 / d2 - _trigamma(d2 / 2) / 2)


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64], ids=["float32", "float64"])
def test_beta_and_dirichlet_gradients_stay_finite_when_the_gamma_draws_underflow(dtype) -> None:
    """At concentrations ~1e-3 most Gamma draws are below the dtype's smallest normal number;
    the normalisation's backward must not square their sum (1 / s^2 = inf, inf * 0 = NaN)."""
    mg.manual_seed(0)
    c = mg.tensor([[0.01, 0.01], [0.001, 5.0], [0.001, 0.001]], dtype=dtype).requires_grad_()
    Dirichlet(c).rsample((500,))[..., 0].sum().backward()
    a = mg.tensor([0.01, 0.001], dtype=dtype).requires_grad_()
    b = mg.tensor([0.01, 0.001], dtype=dtype).requires_grad_()
    Beta(a, b).rsample((500,)).sum().backward()
    for grad in (c.grad, a.grad, b.grad):
        assert grad.dtype is dtype and np.all(np.isfinite(grad.numpy()))
