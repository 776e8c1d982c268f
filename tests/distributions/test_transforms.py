"""Transforms: inverse round trips, log |det J| against float64 central-difference Jacobians,
composition, the constraint registry, and TransformedDistribution's change of variables."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg

D = mg.distributions


def _t(a) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64))


def _numeric_jacobian(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d f / d x of one event (x a vector), by central differences in float64."""
    cols = []
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, -1)


ELEMENTWISE = [
    (D.ExpTransform(), lambda rng: rng.normal(size=5)),
    (D.SigmoidTransform(), lambda rng: rng.normal(size=5)),
    (D.TanhTransform(), lambda rng: rng.normal(size=5)),
    (D.SoftplusTransform(), lambda rng: rng.normal(size=5)),
    (D.AffineTransform(0.5, -2.0), lambda rng: rng.normal(size=5)),
    (D.AffineTransform(_t([1.0, 2.0, 3.0, 4.0, 5.0]), _t([0.5, -1, 2, 3, -4])), None),
    (D.PowerTransform(_t(1.7)), lambda rng: rng.uniform(0.2, 3, 5)),
    (D.ExpTransform().inv, lambda rng: rng.uniform(0.2, 3, 5)),
]


@pytest.mark.parametrize(("transform", "draw"), ELEMENTWISE, ids=lambda v: repr(v)[:30])
def test_elementwise_log_det_matches_the_numerical_derivative_and_inverts(transform, draw):
    rng = np.random.default_rng(0)
    x = draw(rng) if draw is not None else rng.normal(size=5)
    y = transform(_t(x))
    np.testing.assert_allclose(transform.inv(y).numpy(), x, rtol=1e-10, atol=1e-10)
    # elementwise: the Jacobian is diagonal, log|dy_i/dx_i| per element
    jac = _numeric_jacobian(lambda v: transform(_t(v)).numpy(), x)
    expected = np.log(np.abs(np.diag(jac)))
    got = transform.log_abs_det_jacobian(_t(x), y).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def test_stick_breaking_maps_onto_the_simplex_with_the_numerical_log_det():
    rng = np.random.default_rng(1)
    t = D.StickBreakingTransform()
    x = rng.normal(size=3)
    y = t(_t(x)).numpy()
    assert y.shape == (4,) and np.all(y > 0) and abs(y.sum() - 1) < 1e-12
    np.testing.assert_allclose(t.inv(_t(y)).numpy(), x, rtol=1e-9)
    # the map to the first K-1 coordinates is a bijection of R^(K-1): its square Jacobian
    jac = _numeric_jacobian(lambda v: t(_t(v)).numpy()[:-1], x)
    expected = np.linalg.slogdet(jac)[1]
    assert abs(float(t.log_abs_det_jacobian(_t(x), _t(y))) - expected) < 1e-6
    assert t(mg.zeros(3)).numpy() == pytest.approx(np.full(4, 0.25))  # x = 0: the centre


def test_compose_sums_the_parts_log_dets_and_inverts_in_reverse_order():
    t = D.ComposeTransform([D.AffineTransform(1.0, 2.0), D.ExpTransform()])
    x = np.array([-0.3, 0.1, 0.7])
    y = t(_t(x))
    np.testing.assert_allclose(y.numpy(), np.exp(1 + 2 * x))
    np.testing.assert_allclose(t.inv(y).numpy(), x, rtol=1e-12)
    np.testing.assert_allclose(t.log_abs_det_jacobian(_t(x), y).numpy(), math.log(2) + 1 + 2 * x)
    assert t.inv.inv is t and t.bijective and t.sign == 1


def test_independent_and_reshape_transforms_reduce_and_reshape_events():
    x = _t(np.random.default_rng(2).normal(size=(2, 3)))
    t = D.IndependentTransform(D.ExpTransform(), 1)
    np.testing.assert_allclose(t.log_abs_det_jacobian(x, t(x)).numpy(), x.numpy().sum(-1))
    assert t.event_dim == 1
    r = D.ReshapeTransform((2, 3), (6,))
    assert tuple(r(x).shape) == (6,) and tuple(r.inv(r(x)).shape) == (2, 3)
    assert r.forward_shape((4, 2, 3)) == (4, 6)
    assert float(r.log_abs_det_jacobian(x, r(x))) == 0.0
    with pytest.raises(ValueError):
        D.ReshapeTransform((2, 3), (5,))


def test_cache_returns_the_very_input_on_inversion():
    t = D.TanhTransform(cache_size=1)
    x = _t([30.0])  # tanh rounds to 1: atanh(1) = inf without the cache
    assert t.inv(t(x)) is x
    with pytest.raises(ValueError):
        D.ExpTransform(cache_size=2)


def test_softmax_and_abs_are_not_bijective():
    assert not D.SoftmaxTransform().bijective and not D.AbsTransform().bijective
    y = D.SoftmaxTransform()(_t([1.0, 2.0, 3.0])).numpy()
    np.testing.assert_allclose(y, np.exp([1, 2, 3]) / np.exp([1, 2, 3]).sum())


@pytest.mark.parametrize(
    "constraint",
    [
        D.constraints.positive,
        D.constraints.greater_than(-2.0),
        D.constraints.unit_interval,
        D.constraints.interval(-1.0, 3.0),
        D.constraints.simplex,
        D.constraints.real_vector,
        D.constraints.independent(D.constraints.positive, 1),
    ],
    ids=repr,
)
def test_biject_to_and_transform_to_land_inside_the_constraint(constraint):
    x = _t(np.random.default_rng(3).normal(size=(4, 3)) * 3)
    for registry in (D.biject_to, D.transform_to):
        y = registry(constraint)(x)
        assert bool(constraint.check(y).all())
    t = D.biject_to(constraint)
    np.testing.assert_allclose(t.inv(t(x)).numpy(), x.numpy(), rtol=1e-6, atol=1e-6)


def test_registry_rejects_an_unregistered_constraint():
    with pytest.raises(NotImplementedError):
        D.biject_to(D.constraints.boolean)


def test_transformed_distribution_log_prob_is_the_change_of_variables():
    loc, scale = _t([0.3, -0.5]), _t([0.8, 1.5])
    d = D.TransformedDistribution(D.Normal(loc, scale), [D.SigmoidTransform()])
    y = np.array([0.2, 0.9])
    z = np.log(y / (1 - y))
    normal = -((z - loc.numpy()) ** 2) / (2 * scale.numpy() ** 2) - np.log(
        scale.numpy() * math.sqrt(2 * math.pi)
    )
    np.testing.assert_allclose(d.log_prob(_t(y)).numpy(), normal - np.log(y * (1 - y)))
    # a 1-D density integrates to 1 over (0, 1)
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    dens = np.exp(d.log_prob(_t(np.stack([grid, grid], -1))).numpy())
    np.testing.assert_allclose(np.trapezoid(dens, grid, axis=0), [1, 1], atol=1e-4)


def test_transformed_distribution_over_the_simplex_has_an_event_dimension():
    d = D.TransformedDistribution(
        D.Normal(mg.zeros(2, 3), mg.ones(2, 3)), D.StickBreakingTransform()
    )
    assert tuple(d.batch_shape) == (2,) and tuple(d.event_shape) == (4,)
    s = d.sample((5,))
    assert tuple(s.shape) == (5, 2, 4)
    np.testing.assert_allclose(s.numpy().sum(-1), 1, atol=1e-12)
    assert tuple(d.log_prob(s).shape) == (5, 2)
    assert tuple(d.expand((3, 2)).sample().shape) == (3, 2, 4)


def test_transformed_distribution_rsample_carries_gradients():
    loc = mg.tensor([0.1, 0.2], requires_grad=True)
    d = D.TransformedDistribution(D.Normal(loc, mg.ones(2)), [D.ExpTransform()])
    mg.manual_seed(0)
    x = d.rsample((3,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), x.detach().numpy().sum(0))  # d e^(mu+eps)/d mu
