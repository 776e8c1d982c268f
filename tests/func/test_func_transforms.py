"""mg.func (torch.func): grad, vmap, jacrev/jacfwd, hessian, functional_call and
stack_module_state against closed forms computed in float64 NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    stack_module_state,
    vjp,
    vmap,
)

RNG = np.random.default_rng(3)


def t64(a):
    return mg.tensor(np.asarray(a, dtype=np.float64))


def test_per_sample_gradients_of_least_squares_match_the_closed_form() -> None:
    """loss_i(w) = (x_i . w - y_i)^2 has gradient 2 (x_i . w - y_i) x_i for each sample."""
    x, y, w = RNG.standard_normal((6, 3)), RNG.standard_normal(6), RNG.standard_normal(3)

    def loss(w, xi, yi):
        return (xi @ w - yi) ** 2

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(t64(w), t64(x), t64(y))
    expected = 2 * (x @ w - y)[:, None] * x
    np.testing.assert_allclose(per_sample.numpy(), expected, rtol=1e-12)


def test_grad_through_functional_call_equals_backward_and_restores_the_module() -> None:
    lin = mg.nn.Linear(3, 2).double()
    own = lin.weight
    x = t64(RNG.standard_normal((4, 3)))
    params = {k: v.detach() for k, v in lin.named_parameters()}
    g = grad(lambda p: functional_call(lin, p, (x,)).pow(2).sum())(params)
    lin(x).pow(2).sum().backward()
    np.testing.assert_allclose(g["weight"].numpy(), lin.weight.grad.numpy(), rtol=1e-12)
    assert lin.weight is own and params["weight"].grad is None
    # the closed form: d/dW sum (xW^T + b)^2 = 2 (xW^T + b)^T x
    out = x.numpy() @ own.detach().numpy().T + lin.bias.detach().numpy()
    np.testing.assert_allclose(g["weight"].numpy(), 2 * out.T @ x.numpy(), rtol=1e-12)


def test_jacrev_and_jacfwd_of_tanh_layer_are_diag_times_weight() -> None:
    w, b, x = RNG.standard_normal((4, 4)), RNG.standard_normal(4), RNG.standard_normal(4)

    def f(w, b, x):
        return F.linear(x, w, b).tanh()

    expected = (1 - np.tanh(w @ x + b) ** 2)[:, None] * w
    for transform in (jacrev, jacfwd):
        jac = transform(f, argnums=2)(t64(w), t64(b), t64(x))
        np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-12)
    jw, jb = jacrev(f, argnums=(0, 1))(t64(w), t64(b), t64(x))
    assert jw.shape == (4, 4, 4)
    np.testing.assert_allclose(jb.numpy(), np.diag(1 - np.tanh(w @ x + b) ** 2), rtol=1e-12)


def test_hessian_of_a_quadratic_form_is_a_plus_a_transpose() -> None:
    a, x = RNG.standard_normal((3, 3)), RNG.standard_normal(3)
    h = hessian(lambda v: v @ t64(a) @ v)(t64(x))
    np.testing.assert_allclose(h.numpy(), a + a.T, rtol=1e-12)
    np.testing.assert_allclose(grad(grad(lambda s: s.sin()))(t64(0.3)).item(), -np.sin(0.3))


def test_grad_has_aux_argnums_and_value() -> None:
    g, aux = grad(lambda w, x: ((w * x).sum() ** 2, (w * x).sum()), has_aux=True)(
        t64([1.0, 2.0]), t64([3.0, -1.0])
    )
    assert aux.item() == 1.0 and g.tolist() == [6.0, -2.0]
    (gw, gx), value = grad_and_value(lambda w, x: (w * x).sum(), argnums=(0, 1))(
        t64([1.0, 2.0]), t64([3.0, -1.0])
    )
    assert value.item() == 1.0 and gw.tolist() == [3.0, -1.0] and gx.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="scalar"):
        grad(lambda v: v * 2)(t64([1.0, 2.0]))


def test_vmap_maps_dims_and_places_the_batch_at_out_dims() -> None:
    a, b = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 3))
    dots = vmap(mg.dot, in_dims=(0, 1))(t64(a), t64(b))
    np.testing.assert_allclose(dots.numpy(), np.einsum("ij,ji->i", a, b), rtol=1e-12)
    assert vmap(lambda v: v * 2, out_dims=1)(t64(a)).shape == (4, 3)
    pair = vmap(lambda v: {"s": v.sum(), "m": v.max()})(t64(a))
    np.testing.assert_allclose(pair["s"].numpy(), a.sum(1), rtol=1e-12)
    with pytest.raises(ValueError, match="same size"):
        vmap(mg.dot)(t64(a), t64(b))


def test_stack_module_state_and_an_ensemble_under_vmap() -> None:
    models = [mg.nn.Linear(3, 2).double() for _ in range(4)]
    params, buffers = stack_module_state(models)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].requires_grad
    assert params["weight"].grad_fn is None  # new leaves
    x = t64(RNG.standard_normal((5, 3)))
    out = vmap(lambda p, b, x: functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
        params, buffers, x
    )
    for i, m in enumerate(models):
        expected = x.numpy() @ m.weight.detach().numpy().T + m.bias.detach().numpy()
        np.testing.assert_allclose(out[i].detach().numpy(), expected, rtol=1e-12)


def test_vjp_is_cotangent_times_jacobian() -> None:
    x = RNG.standard_normal(3)
    out, fn = vjp(lambda v: v.sin() * v[0], t64(x))
    (g,) = fn(t64([1.0, 1.0, 1.0]))
    jac = np.diag(np.cos(x) * x[0])
    jac[:, 0] += np.sin(x)
    np.testing.assert_allclose(g.numpy(), np.ones(3) @ jac, rtol=1e-12)


def test_vmap_over_a_batch_of_zero_samples_gives_empty_outputs_of_the_sample_shapes():
    x = mg.zeros(3, 0)  # mapped over dim -1, of size 0
    total, outer = mg.func.vmap(
        lambda a, b: (a.sum(), a[:, None] * b), in_dims=(-1, None), out_dims=(0, 1)
    )(x, mg.ones(2))
    assert tuple(total.shape) == (0,) and tuple(outer.shape) == (3, 0, 2)
    assert tuple(mg.func.vmap(lambda a: a * 2)(mg.zeros(0, 4)).shape) == (0, 4)


def test_linearize_gives_the_output_and_the_jacobian_vector_product_at_the_point():
    x = mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64)
    out, jvp_fn = mg.func.linearize(lambda a: a.sin() * a, x)
    xs = x.numpy()
    np.testing.assert_allclose(out.detach().numpy(), np.sin(xs) * xs)
    t = np.array([1.0, 0.5, -2.0])
    np.testing.assert_allclose(
        jvp_fn(mg.tensor(t)).numpy(), (np.cos(xs) * xs + np.sin(xs)) * t, rtol=1e-12
    )


def test_replace_all_batch_norm_modules_stops_tracking_running_statistics():
    model = mg.nn.Sequential(
        mg.nn.BatchNorm1d(3), mg.nn.Sequential(mg.nn.BatchNorm2d(2)), mg.nn.InstanceNorm1d(3)
    )
    assert mg.func.replace_all_batch_norm_modules_(model) is model
    for bn in (model[0], model[1][0]):
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and not bn.track_running_stats
    x = mg.randn(4, 3)
    ref = (x.numpy() - x.numpy().mean(0)) / np.sqrt(x.numpy().var(0) + 1e-5)
    model[0].eval()  # without running statistics, eval mode normalises with the batch's own
    np.testing.assert_allclose(model[0](x).detach().numpy(), ref, rtol=1e-5, atol=1e-5)


def test_transforms_refuse_integer_primals_and_outputs_as_pytorch():
    ints = mg.tensor([1, 2])
    with pytest.raises(ValueError, match="Expected primal to be floating point"):
        mg.func.jvp(lambda a: a * 2, (ints,), (ints,))
    with pytest.raises(ValueError, match="Expected primal to be floating point"):
        mg.func.jacfwd(lambda a: a * 2)(ints)
    x = mg.tensor([1.0, 3.0, 2.0])
    with pytest.raises(RuntimeError, match="must be floating-point or complex"):
        mg.func.vjp(lambda a: a.argmax(), x)
    with pytest.raises(RuntimeError, match="must be floating-point or complex"):
        mg.func.jacrev(lambda a: (a * 2, a.argmax()))(x)
    _, jvp_fn = mg.func.linearize(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="doesn't match the dtype"):
        jvp_fn(mg.ones(3, dtype=mg.float64))
