"""jvp with has_aux and pytree outputs, and vmap's in_dims/out_dims checks, against closed forms."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import func


def _x() -> np.ndarray:
    return np.random.default_rng(0).standard_normal(4)


def test_jvp_has_aux_returns_output_tangent_and_aux():
    x, v = _x(), np.arange(4.0)
    out, tangent, aux = func.jvp(
        lambda a: (a.sin(), a * 3), (mg.tensor(x),), (mg.tensor(v),), has_aux=True
    )
    np.testing.assert_allclose(out.numpy(), np.sin(x))
    np.testing.assert_allclose(tangent.numpy(), np.cos(x) * v)
    np.testing.assert_allclose(aux.numpy(), 3 * x)


def test_jvp_pytree_output_keeps_its_structure():
    x, v = _x(), np.ones(4)
    out, tangent = func.jvp(
        lambda a: [a.sin(), {"k": a * 2, "c": mg.ones(2, dtype=mg.float64)}],
        (mg.tensor(x),),
        (mg.tensor(v),),
    )
    assert isinstance(tangent, list) and set(tangent[1]) == {"k", "c"}
    np.testing.assert_allclose(tangent[0].numpy(), np.cos(x))
    np.testing.assert_allclose(tangent[1]["k"].numpy(), 2 * v)
    np.testing.assert_allclose(tangent[1]["c"].numpy(), np.zeros(2))


def test_jvp_refuses_non_tuple_primals_and_mismatched_tangents():
    x = mg.tensor(_x())
    with pytest.raises(RuntimeError, match="primals to be a tuple"):
        func.jvp(lambda a: a.sin(), x, x)
    with pytest.raises(RuntimeError, match="same python structure"):
        func.jvp(lambda a: a.sin(), (x,), (x, x))
    with pytest.raises(RuntimeError, match="different size"):
        func.jvp(lambda a: a.sin(), (x,), (mg.ones(3, dtype=mg.float64),))
    with pytest.raises(RuntimeError, match="should be a tuple"):
        func.jvp(lambda a: a.sin(), (x,), (x,), has_aux=True)


def test_vmap_out_dims_none_returns_an_unbatched_output_once():
    a = np.random.default_rng(1).standard_normal((5, 3))
    ones, s = func.vmap(lambda r: (mg.ones(2), r.sum()), out_dims=(None, 0))(mg.tensor(a))
    assert ones.shape == (2,)
    np.testing.assert_allclose(s.numpy(), a.sum(1))
    with pytest.raises(ValueError, match="out_dim is None"):
        func.vmap(lambda r: r * 2, out_dims=None)(mg.tensor(a))


def test_vmap_partial_nested_in_dims_broadcast_over_subtrees():
    rng = np.random.default_rng(2)
    a, b, c = rng.standard_normal((5, 3, 4)), rng.standard_normal((4, 5)), rng.standard_normal(3)
    got = func.vmap(lambda p, q: p[0] @ p[1] + q["c"], in_dims=((0, 1), {"c": None}))(
        (mg.tensor(a), mg.tensor(b)), {"c": mg.tensor(c)}
    )
    np.testing.assert_allclose(got.numpy(), np.einsum("nij,jn->ni", a, b) + c)


def test_vmap_refuses_bad_in_dims_and_out_dims_with_value_error():
    a = mg.tensor(np.zeros((5, 3)))
    with pytest.raises(ValueError, match="dimensionality 2"):
        func.vmap(lambda r: r.sum(), in_dims=5)(a)
    with pytest.raises(ValueError, match="non-Tensor"):
        func.vmap(lambda r, s: r * s, in_dims=(0, 0))(a, 2.0)
    with pytest.raises(ValueError, match="out_dims"):
        func.vmap(lambda r: (r, r), out_dims=(0,))(a)
    with pytest.raises(ValueError, match="only return Tensors"):
        func.vmap(lambda r: 3.0)(a)


def test_aux_outputs_leave_every_transform_detached():
    x = mg.tensor(_x())
    assert not func.grad(lambda a: (a.sum(), a * 2), has_aux=True)(x)[1].requires_grad
    assert not func.jacrev(lambda a: (a * 1, a * 2), has_aux=True)(x)[1].requires_grad
    assert not func.vjp(lambda a: (a * 1, a * 2), x, has_aux=True)[2].requires_grad
    assert not func.jvp(lambda a: (a * 1, a * 2), (x,), (x,), has_aux=True)[2].requires_grad


def test_transforms_of_a_constant_output_are_zeros():
    x = mg.tensor(_x())
    const = mg.ones((), dtype=mg.float64)
    np.testing.assert_array_equal(func.grad(lambda a: const)(x).numpy(), np.zeros(4))
    jac = func.jacrev(lambda a: mg.ones(2, dtype=mg.float64))(x)
    np.testing.assert_array_equal(jac.numpy(), np.zeros((2, 4)))
    (g,) = func.vjp(lambda a: (const, a * 2), x)[1]((const, mg.ones(4, dtype=mg.float64)))
    np.testing.assert_array_equal(g.numpy(), np.full(4, 2.0))


def test_grad_needs_a_0d_output_and_vjp_cotangents_shaped_like_the_outputs():
    x = mg.tensor(_x())
    with pytest.raises(RuntimeError, match="scalar Tensor"):
        func.grad(lambda a: (a * a).sum().reshape(1, 1))(x)
    _, vjp_fn = func.vjp(lambda a: (a.sin(), a), x)
    with pytest.raises(RuntimeError, match="pytree structure of cotangents"):
        vjp_fn(mg.ones(4, dtype=mg.float64))


def test_vmap_randomness_error_same_and_different():
    x = mg.zeros(3, 2)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        func.vmap(lambda a: a + mg.rand(2))(x)
    same = func.vmap(lambda a: a + mg.rand(2), randomness="same")(x).numpy()
    np.testing.assert_array_equal(same, np.broadcast_to(same[0], same.shape))
    different = func.vmap(lambda a: a + mg.rand(2), randomness="different")(x).numpy()
    assert len({tuple(row) for row in different}) == 3
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        func.vmap(lambda a: a, randomness="bogus")


def test_argnums_and_inputs_are_checked_as_torch_func_checks_them():
    x = mg.tensor(_x())

    def f(a, b):
        return (a * b).sum()

    for bad in ([0, 1], 0.0, (0, 0), (0, -2)):
        with pytest.raises(RuntimeError, match="argnums"):
            func.grad(f, argnums=bad)(x, x)
    with pytest.raises(ValueError, match="must be Tensor"):
        func.grad(lambda a: a)(3.0)
    with pytest.raises(RuntimeError, match="only tensors"):
        func.jacrev(lambda a: 3.0)(x)
