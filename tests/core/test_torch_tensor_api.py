"""Tensor API names that PyTorch scripts use: type(), mm/bmm/dot/mv, narrow, new_*, the function
forms mg.mul/div/..., out=, and the legacy types mg.FloatTensor ...; each against PyTorch (or
NumPy when PyTorch is absent)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
B = np.arange(12, dtype=np.float32).reshape(3, 4) / 7


def test_type_names_and_casts():
    x = mg.tensor(A)
    assert x.type() == "minigenesis.FloatTensor"
    assert mg.ones(2, dtype=mg.int64).type() == "minigenesis.LongTensor"
    assert mg.ones(2, dtype=mg.bool).type() == "minigenesis.BoolTensor"
    for spec in (mg.float64, mg.DoubleTensor, "minigenesis.DoubleTensor", "torch.DoubleTensor"):
        y = x.type(spec)
        assert y.dtype is mg.float64 and np.array_equal(y.numpy(), A.astype(np.float64))
    with pytest.raises(ValueError, match="invalid type: 'torch.Float'"):
        x.type("torch.Float")


def test_type_names_match_pytorch():
    torch = pytest.importorskip("torch")
    for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool"):
        ours = mg.zeros(1, dtype=getattr(mg, dt)).type()
        theirs = torch.zeros(1, dtype=getattr(torch, dt)).type()
        assert ours.replace("minigenesis", "torch") == theirs


def test_matrix_products_and_their_shape_errors_match_pytorch():
    torch = pytest.importorskip("torch")
    a, b = np.random.default_rng(0).standard_normal((2, 3, 4)), np.ones((2, 4, 5))
    pairs = [
        (lambda m, x, y: x[0].mm(y[0]), "mm"),
        (lambda m, x, y: m.mm(x[0], y[0]), "mm"),
        (lambda m, x, y: x.bmm(y), "bmm"),
        (lambda m, x, y: m.bmm(x, y), "bmm"),
        (lambda m, x, y: x[0, 0].dot(y[0, :, 0]), "dot"),
        (lambda m, x, y: x[0].mv(y[0, :, 0]), "mv"),
    ]
    for f, _ in pairs:
        ours = f(mg, mg.tensor(a), mg.tensor(b))
        theirs = f(torch, torch.tensor(a), torch.tensor(b))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    bad = [
        (lambda m, x: x[0].mm(x[0, 0]), "mat2 must be a matrix"),
        (lambda m, x: x[0, 0].mm(x[0]), "self must be a matrix"),
        (lambda m, x: x[0].mm(x[0]), r"mat1 and mat2 shapes cannot be multiplied \(3x4 and 3x4\)"),
        (lambda m, x: x[0].bmm(x), "batch1 must be a 3D tensor"),
        (lambda m, x: x[0].dot(x[0]), "1D tensors expected, but got 2D and 2D tensors"),
    ]
    for f, message in bad:
        for m in (mg, torch):
            with pytest.raises(RuntimeError, match=message):
                f(m, m.tensor(a))


def test_mm_has_matmuls_gradient():
    x = mg.tensor(A, requires_grad=True)
    w = mg.tensor(B, requires_grad=True)
    x.mm(w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 4)) @ B.T, rtol=1e-6)
    np.testing.assert_allclose(w.grad.numpy(), A.T @ np.ones((2, 4)), rtol=1e-6)


def test_narrow_is_a_view_with_pytorchs_checks():
    torch = pytest.importorskip("torch")
    for args in [(1, 0, 2), (1, 1, 2), (0, 1, 1), (1, -1, 1), (-1, -3, 2), (1, 3, 0)]:
        ours = mg.tensor(A).narrow(*args)
        theirs = torch.tensor(A).narrow(*args)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for args, err in [
        ((1, 2, 2), RuntimeError),
        ((1, -4, 1), IndexError),
        ((1, 0, -1), RuntimeError),
        ((2, 0, 1), IndexError),
    ]:
        with pytest.raises(err) as ours:
            mg.tensor(A).narrow(*args)
        with pytest.raises(err) as theirs:
            torch.tensor(A).narrow(*args)
        if err is RuntimeError:
            assert str(ours.value) == str(theirs.value)
    x = mg.zeros(2, 3)
    x.narrow(1, 1, 2).fill_(5.0)  # a view: writes reach x
    assert x.numpy().tolist() == [[0, 5, 5], [0, 5, 5]]


def test_new_tensor_factories_take_dtype_and_device_from_self():
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        x = lib.ones(2, dtype=lib.float64)
        made = [
            x.new_zeros(2, 3),
            x.new_zeros((2, 3)),
            x.new_ones(4),
            x.new_full((2,), 7.0),
            x.new_empty(3, 1),
            x.new_tensor([1, 2]),
            x.new_zeros(2, dtype=lib.int32),
            x.new_ones(1, requires_grad=True),
        ]
        got = [(tuple(t.shape), str(t.dtype).split(".")[1], t.requires_grad) for t in made]
        if lib is mg:
            ours = got
        else:
            assert ours == got
    src = mg.ones(2, requires_grad=True)
    copy = mg.zeros(1).new_tensor(src)
    assert copy.requires_grad is False and copy.dtype is mg.float32
    copy.add_(1.0)
    assert src.tolist() == [1.0, 1.0]  # new_tensor copies


def test_function_forms_match_pytorch():
    torch = pytest.importorskip("torch")
    a, b = A.astype(np.float64), (np.abs(A) + 1).astype(np.float64)
    names = ["mul", "multiply", "div", "divide", "true_divide", "sub", "subtract", "add"]
    for name in names:
        ours = getattr(mg, name)(mg.tensor(a), mg.tensor(b))
        theirs = getattr(torch, name)(torch.tensor(a), torch.tensor(b))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15, err_msg=name)
    assert mg.mul(2, mg.tensor([1.5])).tolist() == [3.0]
    for mode in ("trunc", "floor"):
        for x, y in [(a * 3, b), (np.array([-7, 7, -8, 9]), np.array([2, -2, 3, 3]))]:
            ours = mg.div(mg.tensor(x), mg.tensor(y), rounding_mode=mode)
            theirs = torch.div(torch.tensor(x), torch.tensor(y), rounding_mode=mode)
            assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    for name in ("neg", "negative", "square"):
        ours = getattr(mg, name)(mg.tensor(a))
        np.testing.assert_array_equal(ours.numpy(), getattr(torch, name)(torch.tensor(a)).numpy())
        np.testing.assert_array_equal(getattr(mg.tensor(a), name)().numpy(), ours.numpy())
    with pytest.raises(RuntimeError, match="rounding_mode to be one of None, 'trunc', or 'floor'"):
        mg.div(mg.tensor(a), 2, rounding_mode="round")
    t = mg.tensor([1.0, 2.0])
    assert mg.as_tensor(t) is t and mg.as_tensor([1, 2]).dtype is mg.int64
    assert mg.clone(t) is not t and mg.clone(t).tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda m, x, y, out: m.add(x, y, out=out),
        lambda m, x, y, out: m.mul(x, y, out=out),
        lambda m, x, y, out: m.div(x, y, out=out),
        lambda m, x, y, out: m.exp(x, out=out),
        lambda m, x, y, out: m.sqrt(y, out=out),
        lambda m, x, y, out: m.clamp(x, -1.0, 1.0, out=out),
        lambda m, x, y, out: m.maximum(x, y, out=out),
        lambda m, x, y, out: m.where(x > 0, x, y, out=out),
    ],
)
def test_out_writes_into_the_given_tensor(call):
    x, y = A.astype(np.float64), np.abs(A).astype(np.float64) + 1
    out = mg.empty(2, 3, dtype=mg.float64)
    buffer = out._data
    got = call(mg, mg.tensor(x), mg.tensor(y), out)
    assert got is out and out._data is buffer  # written in place, same memory
    torch = pytest.importorskip("torch")
    want = call(torch, torch.tensor(x), torch.tensor(y), torch.empty(2, 3, dtype=torch.float64))
    np.testing.assert_array_equal(out.numpy(), want.numpy())


def test_out_on_reductions_matmul_and_cat():
    x = mg.tensor(A)
    out = mg.empty(())
    assert mg.sum(x, out=out) is out and out.item() == pytest.approx(A.sum())
    out = mg.empty(3)
    mg.mean(x, dim=0, out=out)
    np.testing.assert_allclose(out.numpy(), A.mean(0))
    out = mg.empty(2, 4)
    mg.matmul(x, mg.tensor(B), out=out)
    np.testing.assert_allclose(out.numpy(), A @ B, rtol=1e-6)
    out = mg.empty(4, 3)
    mg.cat([x, x], out=out)
    np.testing.assert_array_equal(out.numpy(), np.concatenate([A, A]))


def test_out_follows_pytorchs_rules():
    torch = pytest.importorskip("torch")
    for m in (mg, torch):
        x = m.ones(2, 3)
        resized = m.empty(5)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            m.add(x, x, out=resized)
        assert tuple(resized.shape) == (2, 3)
        empty = m.empty(0)
        m.add(x, x, out=empty)  # an empty out is resized silently
        assert tuple(empty.shape) == (2, 3)
        into_int = m.zeros(2, 3, dtype=m.int64)
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired"):
            m.add(x, x, out=into_int)
        m.add(m.ones(2, 3, dtype=m.int64), 1, out=m.zeros(2, 3))  # int into float is fine
        w = m.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
            m.mul(w, 2.0, out=m.empty(2))
        with m.no_grad():
            m.mul(w, 2.0, out=m.empty(2))


def test_legacy_tensor_types_build_and_check_like_pytorch():
    torch = pytest.importorskip("torch")
    for name in ("FloatTensor", "DoubleTensor", "LongTensor", "IntTensor", "BoolTensor"):
        ours, theirs = getattr(mg, name), getattr(torch, name)
        for args in [(2, 3), ([1, 0, 2],), ((1, 2),), ()]:
            a, b = ours(*args), theirs(*args)
            assert tuple(a.shape) == tuple(b.shape) and a.type().split(".")[-1] == name
            if args and isinstance(args[0], (list, tuple)):
                np.testing.assert_array_equal(a.numpy(), b.numpy())
        dtype = getattr(mg, str(theirs.dtype).split(".")[1])
        assert isinstance(mg.zeros(2, dtype=dtype), ours)
    assert not isinstance(mg.zeros(2, dtype=mg.float64), mg.FloatTensor)
    assert isinstance(mg.ones(2), mg.Tensor) and not isinstance(np.ones(2), mg.FloatTensor)
    assert repr(mg.FloatTensor) == "<class 'minigenesis.FloatTensor'>"
    with pytest.raises(TypeError, match="data must be a sequence"):
        mg.FloatTensor(2.5)
    with pytest.raises(TypeError, match="needs a tensor of dtype minigenesis.int64"):
        mg.LongTensor(mg.ones(2))
