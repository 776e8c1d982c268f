"""Nested mg.func transforms keep their levels apart, checked against closed forms in float64.

An inner transform differentiates only with respect to its own argument: a tensor of the outer
level that the inner function captures is a constant there, yet its result stays a function of
that tensor for the outer transform (and for the caller's autograd, when a captured tensor
requires grad)."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis.func import grad, jacfwd, jacrev, jvp, vjp, vmap

RNG = np.random.default_rng(11)


def t64(a):
    return mg.tensor(np.asarray(a, dtype=np.float64))


def test_inner_grad_of_a_captured_outer_variable_is_differentiated_by_the_outer_grad() -> None:
    """d/dx sum_i d/dy_i (x . y) at y0 = d/dx sum(x) = 1 (y0 is not x: nothing watches y0)."""
    x0, y0 = RNG.standard_normal(3), RNG.standard_normal(3)
    g = grad(lambda x: grad(lambda y: (x * y).sum())(t64(y0)).sum())(t64(x0))
    np.testing.assert_array_equal(g.numpy(), np.ones(3))


def test_inner_grad_at_the_outer_variable_treats_the_captured_copy_as_constant() -> None:
    """d/dx [d/dy (x * y)]_{y=x} = d/dx x = 1, not d/dx d/dx x^2 = 2."""
    x0 = t64(RNG.standard_normal(4))
    g = grad(lambda x: grad(lambda y: (x * y).sum())(x).sum())(x0)
    np.testing.assert_array_equal(g.numpy(), np.ones(4))


def test_jacrev_of_jacrev_with_a_captured_variable_is_the_identity() -> None:
    """J_y(x * y) = diag(x); its column sums are x, whose Jacobian in x is the identity."""
    x0, y0 = t64(RNG.standard_normal(3)), t64(RNG.standard_normal(3))
    for outer, inner in [(jacrev, jacrev), (jacfwd, jacrev), (jacrev, jacfwd)]:
        j = outer(lambda x, inner=inner: inner(lambda y: x * y)(y0).sum(0))(x0)
        np.testing.assert_array_equal(j.numpy(), np.eye(3))


def test_vjp_and_jvp_inside_grad_follow_the_captured_variable() -> None:
    """vjp: 1^T J_y(x * y) = x, so d/dx sum = 1. jvp: J_y(x y^2) 1 = 2 x y, at y = x that is
    2 x^2, whose gradient is 4 x (6 x if the inner derivative also moved the captured x)."""
    x0, y0 = RNG.standard_normal(3), RNG.standard_normal(3)

    def through_vjp(x):
        _, fn = vjp(lambda y: x * y, t64(y0))
        return fn(mg.ones(3, dtype=mg.float64))[0].sum()

    np.testing.assert_array_equal(grad(through_vjp)(t64(x0)).numpy(), np.ones(3))

    def through_jvp(x):
        return jvp(lambda y: x * y * y, (x,), (mg.ones(3, dtype=mg.float64),))[1].sum()

    np.testing.assert_allclose(grad(through_jvp)(t64(x0)).numpy(), 4 * x0, rtol=1e-15)


def test_grad_of_a_function_capturing_a_parameter_stays_differentiable_in_it() -> None:
    """g = d/dx sum(w x^2) = 2 w x keeps its graph to the captured w: d sum(g) / dw = 2 x."""
    x0 = RNG.standard_normal(3)
    w = t64(RNG.standard_normal(3)).requires_grad_()
    g = grad(lambda x: (w * x * x).sum())(t64(x0))
    assert g.requires_grad
    np.testing.assert_allclose(g.detach().numpy(), 2 * w.detach().numpy() * x0, rtol=1e-15)
    g.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * x0, rtol=1e-15)


def test_top_level_results_are_plain_tensors() -> None:
    x0 = t64(RNG.standard_normal(3))
    g, (value, aux) = mg.func.grad_and_value(lambda x: ((x**3).sum(), x * 2), has_aux=True)(x0)
    assert not (g.requires_grad or value.requires_grad or aux.requires_grad)
    np.testing.assert_allclose(g.numpy(), 3 * x0.numpy() ** 2, rtol=1e-15)


def test_per_sample_gradients_of_vmap_grad_backpropagate_to_captured_weights() -> None:
    """per-sample g_i = d/dx_i (w . x_i)^2 = 2 (w . x_i) w; d sum_i sum(g_i) / dw closed form:
    sum_i 2 [x_i sum(w) + (w . x_i) 1]."""
    x = RNG.standard_normal((5, 3))
    w = t64(RNG.standard_normal(3)).requires_grad_()
    g = vmap(grad(lambda xi: (w * xi).sum() ** 2))(t64(x))
    g.sum().backward()
    wn = w.detach().numpy()
    expected = (2 * (x * wn.sum() + (x @ wn)[:, None])).sum(0)
    np.testing.assert_allclose(w.grad.numpy(), expected, rtol=1e-13)


def test_jvp_lets_the_function_write_into_its_input_in_place() -> None:
    """Forward mode (as PyTorch's) allows f to modify its argument: J of sin is cos."""
    x0 = RNG.standard_normal(3)
    value, tangent = jvp(lambda x: x.sin_(), (t64(x0),), (mg.ones(3, dtype=mg.float64),))
    np.testing.assert_allclose(value.numpy(), np.sin(x0), rtol=1e-15)
    np.testing.assert_allclose(tangent.numpy(), np.cos(x0), rtol=1e-15)


def test_results_of_an_outer_grad_over_an_inner_vjp_or_jvp_leave_as_plain_tensors() -> None:
    """d/dx sum(cos(x * y0) * x) by an inner vjp (and jvp with tangent ones) at y0: the inner
    gradient hangs off the inner variable y, which nothing outside can differentiate once the
    inner transform returned, so the outer result keeps no graph (as nothing else tracks x)."""
    x0, y0 = RNG.standard_normal(3), RNG.standard_normal(3)
    expected = np.cos(x0 * y0) - x0 * y0 * np.sin(x0 * y0)

    def by_vjp(x):
        _, fn = vjp(lambda y: (x * y).sin(), t64(y0))
        return fn(mg.ones(3, dtype=mg.float64))[0].sum()

    def by_jvp(x):
        return jvp(lambda y: (x * y).sin(), (t64(y0),), (mg.ones(3, dtype=mg.float64),))[1].sum()

    for f in (by_vjp, by_jvp):
        g = grad(f)(t64(x0))
        np.testing.assert_allclose(g.numpy(), expected, rtol=1e-12)
        assert not g.requires_grad and g.grad_fn is None


def test_transforms_called_under_no_grad_return_plain_tensors_even_with_captured_parameters():
    """Under no_grad the caller records nothing, so a captured parameter does not make the
    result keep a graph: d/dx sum(x * w^2) = w^2, detached."""
    w = mg.nn.Parameter(t64([1.0, 2.0, 3.0]))
    x = t64(RNG.standard_normal(3))
    with mg.no_grad():
        results = [
            grad(lambda x: (x * w * w).sum())(x),
            jacrev(lambda x: x * w * w)(x),
            vjp(lambda x: x * w * w, x)[0],
            jvp(lambda x: x * w * w, (x,), (mg.ones(3, dtype=mg.float64),))[1],
            grad(lambda p: (p**3).sum())(w),
        ]
    np.testing.assert_array_equal(results[0].numpy(), [1.0, 4.0, 9.0])
    np.testing.assert_array_equal(results[4].numpy(), [3.0, 12.0, 27.0])
    assert all(not r.requires_grad for r in results)
