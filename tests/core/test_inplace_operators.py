"""Augmented assignment (``x += y``, ``p -= lr * p.grad``, ``mask &= other``) is the in-place op,
as in PyTorch: the tensor object keeps its identity, its memory (and any view's base) changes,
its version counter moves, and the in-place rules hold (leaf check, dtype and shape checks).
``a @= b`` is the one PyTorch leaves out: it rebinds ``a`` to a new tensor."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigenesis as mg

# name -> (the augmented assignment, the NumPy reference of its value)
FLOAT_OPS = {
    "+=": (operator.iadd, np.add),
    "-=": (operator.isub, np.subtract),
    "*=": (operator.imul, np.multiply),
    "/=": (operator.itruediv, np.divide),
    "**=": (operator.ipow, np.power),
    "//=": (operator.ifloordiv, np.floor_divide),
    "%=": (operator.imod, np.mod),
}
BITWISE_OPS = {
    "&=": (operator.iand, np.bitwise_and),
    "|=": (operator.ior, np.bitwise_or),
    "^=": (operator.ixor, np.bitwise_xor),
}


def _operands(rng, shape=(3, 4)):
    # positive base and a divisor away from 0, so that ** / // % are all defined
    x = rng.uniform(0.5, 2.0, shape).astype(np.float32)
    y = rng.uniform(0.5, 2.0, shape).astype(np.float32)
    return x, y


@pytest.mark.parametrize("name", FLOAT_OPS)
@pytest.mark.parametrize("other_is_tensor", [True, False])
def test_augmented_assignment_writes_into_the_same_tensor(name, other_is_tensor):
    iop, ref = FLOAT_OPS[name]
    x, y = _operands(np.random.default_rng(0))
    other = mg.tensor(y) if other_is_tensor else 1.5
    t = mg.tensor(x)
    before, version = t, t._version
    t = iop(t, other)
    assert t is before
    assert t._version == version + 1
    expected = ref(x, y if other_is_tensor else np.float32(1.5))
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6)
    assert t.dtype == mg.float32


@pytest.mark.parametrize("name", FLOAT_OPS)
def test_augmented_assignment_on_a_leaf_that_requires_grad_is_refused_outside_no_grad(name):
    iop, _ = FLOAT_OPS[name]
    p = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        iop(p, 2.0)
    np.testing.assert_array_equal(p.detach().numpy(), np.ones(3, np.float32))  # nothing was written


@pytest.mark.parametrize("name", FLOAT_OPS)
def test_augmented_assignment_on_a_leaf_under_no_grad_updates_the_parameter(name):
    iop, ref = FLOAT_OPS[name]
    x, y = _operands(np.random.default_rng(1))
    p = mg.tensor(x, requires_grad=True)
    with mg.no_grad():
        q = iop(p, mg.tensor(y))
    assert q is p and p.is_leaf and p.requires_grad and p.grad_fn is None
    np.testing.assert_allclose(p.detach().numpy(), ref(x, y), rtol=1e-6)


def test_sgd_step_with_minus_equals_changes_the_parameter_the_optimizer_way():
    # the classic hand-written step: p -= lr * p.grad under no_grad
    x = np.random.default_rng(2).normal(size=(4, 3)).astype(np.float32)
    w = mg.tensor(x, requires_grad=True)
    (w * w).sum().backward()
    with mg.no_grad():
        for p in [w]:
            p -= 0.1 * p.grad
    np.testing.assert_allclose(w.detach().numpy(), x - np.float32(0.1) * (2 * x), rtol=1e-6)
    assert w.is_leaf


@pytest.mark.parametrize("name", ["+=", "-=", "*=", "/=", "**=", "%="])
def test_augmented_assignment_on_a_non_leaf_gives_pytorchs_gradients(name):
    torch = pytest.importorskip("torch")
    iop, _ = FLOAT_OPS[name]
    x, y = _operands(np.random.default_rng(3))
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    grads = []
    for lib in (mg, torch):
        a = lib.tensor(x64, requires_grad=True)
        b = lib.tensor(y64, requires_grad=True)
        h = a * 1.5  # a non-leaf: in-place is allowed and recorded in the graph
        h = iop(h, b)
        (h * h).sum().backward()
        grads.append((a.grad.numpy(), b.grad.numpy(), h.detach().numpy()))
    for ours, theirs in zip(grads[0], grads[1], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_augmented_assignment_gradient_matches_finite_differences():
    rng = np.random.default_rng(4)
    x, y = (v.astype(np.float64) for v in _operands(rng, (5,)))

    def f(xv):
        h = mg.tensor(xv) * 2.0
        h *= mg.tensor(y)
        h -= 1.0
        h /= mg.tensor(y) + 1.0
        h **= 2
        return h.sum().item()

    a = mg.tensor(x, requires_grad=True)
    h = a * 2.0
    h *= mg.tensor(y)
    h -= 1.0
    h /= mg.tensor(y) + 1.0
    h **= 2
    h.sum().backward()
    eps = 1e-6
    numeric = [
        (f(x + eps * np.eye(5)[i]) - f(x - eps * np.eye(5)[i])) / (2 * eps) for i in range(5)
    ]
    np.testing.assert_allclose(a.grad.numpy(), numeric, rtol=1e-6)


def test_floor_division_in_place_stays_in_the_graph_not_a_new_leaf():
    # as PyTorch: floor(x / y) stays in the graph (a backward through it raises), and it must
    # not turn into a leaf that requires grad (which later in-place ops would then refuse)
    h = mg.ones(3, requires_grad=True) * 3.0
    h //= 2
    assert h.requires_grad and h.grad_fn is not None
    h += 1.0
    np.testing.assert_array_equal(h.detach().numpy(), [2.0, 2.0, 2.0])
    with pytest.raises(RuntimeError, match="floor_divide is not implemented"):
        h.sum().backward()


@pytest.mark.parametrize("name", ["+=", "*=", "-="])
def test_augmented_assignment_on_a_view_changes_its_base(name):
    iop, ref = FLOAT_OPS[name]
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    base = mg.tensor(x)
    row = base[1]
    row = iop(row, 10.0)
    expected = x.copy()
    expected[1] = ref(x[1], np.float32(10.0))
    np.testing.assert_array_equal(base.numpy(), expected)
    np.testing.assert_array_equal(row.numpy(), expected[1])


def test_augmented_assignment_on_a_view_of_a_leaf_that_requires_grad_is_refused():
    w = mg.zeros(2, 3, requires_grad=True)
    col = w[:, 0]
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        col += 1.0
    with mg.no_grad():
        col += 1.0
    np.testing.assert_array_equal(w.detach().numpy()[:, 0], [1.0, 1.0])


@pytest.mark.parametrize("name", BITWISE_OPS)
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "uint8"])
def test_bitwise_augmented_assignment_on_bool_and_integer_tensors(name, dtype):
    iop, ref = BITWISE_OPS[name]
    rng = np.random.default_rng(5)
    x = rng.integers(0, 8, (4, 5)).astype(dtype)
    y = rng.integers(0, 8, (4, 5)).astype(dtype)
    t = mg.tensor(x)
    same = t
    t = iop(t, mg.tensor(y))
    assert t is same and t.dtype == mg.tensor(x).dtype
    np.testing.assert_array_equal(t.numpy(), ref(x, y))


def test_bitwise_augmented_assignment_with_a_python_bool_keeps_a_bool_mask():
    m = mg.tensor([True, False, True])
    m &= True
    m |= False
    m ^= True
    np.testing.assert_array_equal(m.numpy(), [False, True, False])
    assert m.dtype == mg.bool


@pytest.mark.parametrize("name", BITWISE_OPS)
def test_bitwise_augmented_assignment_on_a_float_tensor_is_refused(name):
    iop, _ = BITWISE_OPS[name]
    with pytest.raises(NotImplementedError, match="bitwise_.* bool and integer .* float32"):
        iop(mg.ones(3), 1)
    with pytest.raises(RuntimeError, match="bitwise_"):
        iop(mg.ones(3, dtype=mg.int64), mg.ones(3))


@pytest.mark.parametrize(
    ("dtype", "iop", "other"),
    [
        ("int64", operator.iadd, 1.5),
        ("int64", operator.itruediv, 2),
        ("int64", operator.imul, "float_tensor"),
        ("int64", operator.ipow, 2.0),
        ("int32", operator.isub, 0.5),
        ("bool", operator.ior, 1),
        ("bool", operator.iadd, 2),
    ],
)
def test_augmented_assignment_refuses_a_result_self_cannot_hold_as_pytorch(dtype, iop, other):
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        t = lib.ones(3, dtype=getattr(lib, dtype))
        o = lib.ones(3) if other == "float_tensor" else other
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            iop(t, o)
        assert t.tolist() == [1, 1, 1]  # unchanged


@pytest.mark.parametrize(
    ("dtype", "iop", "other"),
    [
        ("int64", operator.iadd, 2),
        ("int64", operator.ifloordiv, 2),
        ("int64", operator.imod, 2),
        ("int64", operator.ipow, 3),
        ("int32", operator.imul, True),
        ("bool", operator.iadd, True),
        ("bool", operator.imul, False),
        ("float16", operator.iadd, "float64_tensor"),
        ("float32", operator.imul, "int_tensor"),
    ],
)
def test_augmented_assignment_keeps_self_dtype_as_pytorch(dtype, iop, other):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        t = (lib.arange(5) + 1).to(getattr(lib, dtype))
        o = {
            "float64_tensor": lib.full((5,), 0.25, dtype=lib.float64),
            "int_tensor": lib.arange(5),
        }.get(other, other)
        t = iop(t, o)
        results.append((t.tolist(), str(t.dtype).split(".")[-1]))
    assert results[0] == results[1]


def test_augmented_assignment_refuses_to_broadcast_self_to_a_larger_shape():
    t = mg.ones(3)
    with pytest.raises(RuntimeError, match=r"shape \[3\] doesn't match the broadcast shape"):
        t += mg.ones(2, 3)
    np.testing.assert_array_equal(t.numpy(), np.ones(3, np.float32))


def test_minus_equals_on_a_bool_tensor_is_refused():
    m = mg.tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction"):  # as PyTorch
        m -= True


def test_matmul_equals_rebinds_to_a_new_tensor_as_pytorch():
    # PyTorch has no in-place matmul: a @= b is a = a @ b, and the old tensor is untouched
    x = np.arange(4, dtype=np.float32).reshape(2, 2)
    a = mg.tensor(x)
    old = a
    a @= mg.tensor(x)
    assert a is not old
    np.testing.assert_array_equal(old.numpy(), x)
    np.testing.assert_array_equal(a.numpy(), x @ x)
    # so it is allowed on a leaf that requires grad, and differentiable
    w = mg.tensor(x, requires_grad=True)
    w @= mg.tensor(x)
    assert w.grad_fn is not None


def _polynomial_fit(lib, coefficients, steps):
    """Fit y = sin(x) by a cubic, with the hand-written step ``p -= lr * p.grad``."""
    x = np.linspace(-np.pi, np.pi, 2000, dtype=np.float32)
    xs, ys = lib.tensor(x), lib.tensor(np.sin(x))
    params = [lib.tensor(c, requires_grad=True) for c in coefficients]
    a, b, c, d = params
    for _ in range(steps):
        loss = (a + b * xs + c * xs**2 + d * xs**3 - ys).pow(2).sum()
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= 1e-6 * p.grad
                p.grad = None
    return loss.item(), [p.item() for p in params]


def test_polynomial_fit_with_minus_equals_updates_trains_as_pytorch():
    torch = pytest.importorskip("torch")
    coefficients = np.random.default_rng(6).normal(size=4).astype(np.float32)
    first, _ = _polynomial_fit(mg, coefficients, 1)
    loss, params = _polynomial_fit(mg, coefficients, 600)
    torch_loss, torch_params = _polynomial_fit(torch, coefficients, 600)
    assert loss < first / 10  # it trains
    np.testing.assert_allclose(loss, torch_loss, rtol=1e-3)
    np.testing.assert_allclose(params, torch_params, rtol=1e-3, atol=1e-5)
