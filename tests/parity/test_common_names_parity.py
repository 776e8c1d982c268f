"""PyTorch parity of the common names: result_type, broadcast_shapes, stride(), unfold (values,
strides, gradient), renorm's gradient, the comparison functions with mixed dtypes and numbers,
rsub, and the in-place functional activations."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def _pair(dtype: str, shape=(2,)):
    return mg.ones(shape, dtype=getattr(mg, dtype)), torch.ones(shape, dtype=getattr(torch, dtype))


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("db", DTYPES)
@pytest.mark.parametrize("zero_d", [False, True])
def test_result_type_matches_pytorch_for_every_dtype_pair(da, db, zero_d) -> None:
    a, ta = _pair(da)
    b, tb = _pair(db, () if zero_d else (2,))
    assert mg.result_type(a, b).name == str(torch.result_type(ta, tb)).split(".")[1]


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("number", [True, 3, 2.5])
def test_result_type_with_a_number_matches_pytorch(da, number) -> None:
    a, ta = _pair(da)
    assert mg.result_type(a, number).name == str(torch.result_type(ta, number)).split(".")[1]
    assert mg.result_type(number, a).name == str(torch.result_type(number, ta)).split(".")[1]


def test_broadcast_shapes_matches_pytorch() -> None:
    for shapes in [((2, 1), (3,)), (2, (3, 1)), ((1,), (0,)), ((4, 1, 5), (1, 3, 1), 5), ()]:
        assert tuple(mg.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))


def test_stride_matches_pytorch_for_views() -> None:
    x, t = mg.arange(60.0).reshape(3, 4, 5), torch.arange(60.0).reshape(3, 4, 5)
    views = [
        lambda a: a,
        lambda a: a.transpose(0, 2),
        lambda a: a[:, ::2],
        lambda a: a.permute(1, 2, 0),
        lambda a: a[1],
        lambda a: a[:, :1].expand(3, 7, 5),
        lambda a: a.unfold(2, 2, 1),
    ]
    for view in views:
        assert view(x).stride() == view(t).stride()


@pytest.mark.parametrize(
    ("shape", "dim", "size", "step"),
    [((7,), 0, 2, 2), ((7,), 0, 3, 1), ((2, 6, 3), -2, 4, 2), ((3, 5), 1, 5, 1), ((4,), 0, 0, 1)],
)
def test_unfold_values_and_gradient_match_pytorch(shape, dim, size, step) -> None:
    v = np.random.default_rng(0).normal(size=shape)
    x = mg.tensor(v, requires_grad=True)
    t = torch.tensor(v, requires_grad=True)
    y, ty = x.unfold(dim, size, step), t.unfold(dim, size, step)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    w = np.random.default_rng(1).normal(size=tuple(ty.shape))
    (y * mg.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize(("p", "dim", "maxnorm"), [(2, 0, 1.0), (1, 1, 2.0), (3.0, -1, 0.5)])
def test_renorm_gradient_matches_pytorch(p, dim, maxnorm) -> None:
    v = np.random.default_rng(2).normal(size=(3, 4)) * 2
    g = np.random.default_rng(3).normal(size=(3, 4))
    x, t = mg.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    (x.renorm(p, dim, maxnorm) * mg.tensor(g)).sum().backward()
    (t.renorm(p, dim, maxnorm) * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge", "greater", "less_equal"])
@pytest.mark.parametrize("other", [1, 1.5, True, "int32", "float16"])
def test_comparison_functions_match_pytorch_on_mixed_operands(name, other) -> None:
    v = np.array([[0, 1, 2], [3, -1, 1]])
    x, t = mg.tensor(v), torch.tensor(v)
    if isinstance(other, str):
        o = np.array([1, 2, 0])
        args = mg.tensor(o, dtype=getattr(mg, other)), torch.tensor(o, dtype=getattr(torch, other))
    else:
        args = other, other
    got, want = getattr(mg, name)(x, args[0]), getattr(torch, name)(t, args[1])
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    ("dtype", "other", "alpha"), [("int64", 2, 3), ("int32", 2.5, 1), ("float32", 1, 2.0)]
)
def test_rsub_matches_pytorch_dtype_and_values(dtype, other, alpha) -> None:
    v = np.array([1, -2, 3])
    got = mg.rsub(mg.tensor(v, dtype=getattr(mg, dtype)), other, alpha=alpha)
    want = torch.rsub(torch.tensor(v, dtype=getattr(torch, dtype)), other, alpha=alpha)
    assert str(got.dtype).split(".")[1] == str(want.dtype).split(".")[1]
    np.testing.assert_allclose(got.numpy(), want.numpy())


@pytest.mark.parametrize("name", ["relu_", "elu_", "hardtanh_", "leaky_relu_"])
def test_inplace_activations_match_pytorch_through_a_graph(name) -> None:
    v = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    x, t = mg.tensor(v, requires_grad=True), torch.tensor(v, requires_grad=True)
    y, ty = getattr(F, name)(x * 1.5), getattr(torch.nn.functional, name)(t * 1.5)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)
