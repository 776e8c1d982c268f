"""torch._foreach_* under minigenesis: each op applied to every tensor of a list, with the second
operand a list of tensors, a list of numbers, one number or one tensor; in place or returning new
tensors; NumPy computes the expected values tensor by tensor."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(0)
A = [RNG.standard_normal(3).astype(np.float32), RNG.standard_normal((2, 4)).astype(np.float32)]
B = [RNG.uniform(0.5, 2.0, 3).astype(np.float32), RNG.uniform(0.5, 2.0, (2, 4)).astype(np.float32)]


def tensors(arrays):
    return [mg.tensor(a) for a in arrays]


BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "clamp_min": np.maximum,
    "clamp_max": np.minimum,
}


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("kind", ["tensor list", "scalar list", "scalar", "one tensor"])
def test_binary_foreach_ops_match_the_per_tensor_op(name: str, kind: str) -> None:
    np_other = {
        "tensor list": B,
        "scalar list": [1.5, -0.5],
        "scalar": [0.75, 0.75],
        "one tensor": [np.float32(1.25)] * 2,
    }[kind]
    mg_other = {
        "tensor list": tensors(B),
        "scalar list": [1.5, -0.5],
        "scalar": 0.75,
        "one tensor": mg.tensor(1.25),
    }[kind]
    out = getattr(mg, f"_foreach_{name}")(tensors(A), mg_other)
    xs = tensors(A)
    assert getattr(mg, f"_foreach_{name}_")(xs, mg_other) is xs  # in place: self, as PyTorch
    for a, o, r, x in zip(A, np_other, out, xs):
        want = BINARY[name](a, o)
        np.testing.assert_allclose(r.numpy(), want, rtol=1e-6)
        np.testing.assert_allclose(x.numpy(), want, rtol=1e-6)


def test_add_with_alpha_and_the_ema_update_by_lerp() -> None:
    out = mg._foreach_add(tensors(A), tensors(B), alpha=-0.5)
    for a, b, r in zip(A, B, out):
        np.testing.assert_allclose(r.numpy(), a - 0.5 * b, rtol=1e-6)
    ema, decay = tensors(A), 0.9
    mg._foreach_lerp_(ema, tensors(B), weight=1 - decay)
    ema2 = tensors(A)
    mg._foreach_mul_(ema2, decay)
    mg._foreach_add_(ema2, tensors(B), alpha=1 - decay)
    for a, b, e, e2 in zip(A, B, ema, ema2):
        np.testing.assert_allclose(e.numpy(), decay * a + (1 - decay) * b, rtol=1e-5)
        np.testing.assert_allclose(e2.numpy(), decay * a + (1 - decay) * b, rtol=1e-5)


def test_unary_ternary_norm_zero_and_copy() -> None:
    for name, f in [("sqrt", np.sqrt), ("exp", np.exp), ("log", np.log), ("neg", np.negative),
                    ("abs", np.abs), ("reciprocal", np.reciprocal), ("sign", np.sign)]:  # fmt: skip
        for b, r in zip(B, getattr(mg, f"_foreach_{name}")(tensors(B))):
            np.testing.assert_allclose(r.numpy(), f(b), rtol=1e-6)
    out = mg._foreach_addcdiv(tensors(A), tensors(B), tensors(B), value=[0.5, 2.0])
    for a, v, r in zip(A, [0.5, 2.0], out):
        np.testing.assert_allclose(r.numpy(), a + v, rtol=1e-6)
    xs = tensors(A)
    mg._foreach_addcmul_(xs, tensors(B), tensors(A), value=-1.0)
    for a, b, x in zip(A, B, xs):
        np.testing.assert_allclose(x.numpy(), a - b * a, rtol=1e-6)
    norms = mg._foreach_norm(tensors(A))
    np.testing.assert_allclose([n.item() for n in norms], [np.linalg.norm(a) for a in A], rtol=1e-6)
    inf = mg._foreach_norm(tensors(A), float("inf"))
    np.testing.assert_allclose([n.item() for n in inf], [np.abs(a).max() for a in A], rtol=1e-6)
    xs = tensors(A)
    mg._foreach_copy_(xs, tensors(B))
    assert all(np.array_equal(x.numpy(), b) for x, b in zip(xs, B))
    mg._foreach_zero_(xs)
    assert all(not x.numpy().any() for x in xs)


def test_out_of_place_foreach_is_differentiable_and_in_place_checks_hold() -> None:
    xs = [mg.tensor(a, requires_grad=True) for a in A]
    out = mg._foreach_mul(xs, tensors(B))
    sum(o.sum() for o in out).backward()
    for x, b in zip(xs, B):
        np.testing.assert_allclose(x.grad.numpy(), b)
    with pytest.raises(RuntimeError):  # a leaf that requires grad, written in place
        mg._foreach_mul_([mg.ones(2, requires_grad=True)], 2.0)
    with pytest.raises(RuntimeError, match="same number of tensors"):
        mg._foreach_add(tensors(A), [mg.ones(1)])
    with pytest.raises(TypeError, match="list or tuple of Tensors"):
        mg._foreach_add(mg.ones(2), 1.0)


MORE_UNARY = {
    "acos": np.arccos, "asin": np.arcsin, "atan": np.arctan, "ceil": np.ceil, "cos": np.cos,
    "cosh": np.cosh, "expm1": np.expm1, "floor": np.floor, "log10": np.log10, "log1p": np.log1p,
    "log2": np.log2, "round": np.round, "sin": np.sin, "sinh": np.sinh, "tan": np.tan,
    "tanh": np.tanh, "trunc": np.trunc, "frac": lambda v: v - np.trunc(v),
    "rsqrt": lambda v: 1 / np.sqrt(v), "sigmoid": lambda v: 1 / (1 + np.exp(-v)),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(MORE_UNARY))
def test_the_remaining_unary_foreach_ops_match_numpy_in_and_out_of_place(name: str) -> None:
    args = [b / 2.5 for b in B]  # in (0.2, 0.8): inside every domain (acos, log, rsqrt)
    out = getattr(mg, f"_foreach_{name}")(tensors(args))
    assert isinstance(out, tuple)
    xs = tensors(args)
    assert getattr(mg, f"_foreach_{name}_")(xs) is xs
    for a, r, x in zip(args, out, xs):
        np.testing.assert_allclose(r.numpy(), MORE_UNARY[name](a), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(x.numpy(), MORE_UNARY[name](a), rtol=2e-6, atol=1e-7)


def test_foreach_returns_tuples_self_in_place_and_rejects_an_empty_list() -> None:
    assert isinstance(mg._foreach_add(tensors(A), 1.0), tuple)
    assert isinstance(mg._foreach_norm(tensors(A)), tuple)
    xs = tensors(A)
    assert mg._foreach_lerp_(xs, tensors(B), 0.5) is xs
    assert mg._foreach_copy_(xs, tensors(B)) is xs
    assert mg._foreach_zero_(xs) is xs
    assert mg._foreach_addcmul_(xs, tensors(B), tensors(B)) is xs
    with pytest.raises(RuntimeError, match="at least one tensor"):
        mg._foreach_neg([])
    with pytest.raises(RuntimeError, match="at least one tensor"):
        mg._foreach_add_([], 1.0)


def test_foreach_max_clone_and_pow_with_a_number_base() -> None:
    np.testing.assert_array_equal([m.item() for m in mg._foreach_max(tensors(A))],
                                  [a.max() for a in A])  # fmt: skip
    with pytest.raises(RuntimeError, match="empty tensor"):
        mg._foreach_max([mg.ones(0)])
    xs = tensors(A)
    clones = mg._foreach_clone(xs)
    assert all(c is not x and np.array_equal(c.numpy(), a) for c, x, a in zip(clones, xs, A))
    out = mg._foreach_pow(2.0, tensors(B))
    for b, r in zip(B, out):
        np.testing.assert_allclose(r.numpy(), np.float32(2.0) ** b, rtol=1e-6)


def test_foreach_maximum_inplace_refuses_a_float_result_into_an_int_tensor():
    # maximum_ writes in place with the in-place rule (as PyTorch): int8 with float32 is refused,
    # not truncated; within one dtype it is the elementwise maximum (NumPy's)
    xs = [mg.tensor([1, 5], dtype=mg.int8)]
    with pytest.raises(RuntimeError, match="can't be cast"):
        mg._foreach_maximum_(xs, [mg.tensor([2.5, 1.0])])
    with pytest.raises(RuntimeError, match="can't be cast"):
        mg._foreach_minimum_(xs, [mg.tensor([2.5, 1.0])])
    assert xs[0].tolist() == [1, 5]
    mg._foreach_maximum_(xs, [mg.tensor([3, 2], dtype=mg.int8)])
    assert xs[0].tolist() == np.maximum([1, 5], [3, 2]).tolist()
