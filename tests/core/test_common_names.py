"""mg.result_type, mg.broadcast_shapes, mg.detach, Tensor.stride, Tensor.unfold as a view, the
in-place forms expm1_ ... and F.relu_ ...: checked against NumPy and closed forms (the values of
the computing ones are also checked by the op database, tests/ops/db_common_names.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


# ------------------------------------------------------------------------------ result_type
@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (lambda: mg.ones(2), lambda: 2, mg.float32),  # a number never raises a float's width
        (lambda: mg.ones(2, dtype=mg.int32), lambda: 2.5, mg.float32),  # int + float: default
        (lambda: mg.ones(2, dtype=mg.int32), lambda: mg.tensor(3), mg.int32),  # 0-d same kind
        (lambda: mg.ones(2, dtype=mg.int32), lambda: mg.tensor(3.0), mg.float32),
        (lambda: mg.ones(2, dtype=mg.float16), lambda: mg.ones(2), mg.float32),
        (lambda: mg.ones(2, dtype=mg.bool), lambda: True, mg.bool),
        (lambda: 2, lambda: 3, mg.int64),
        (lambda: True, lambda: 2.0, mg.float32),
        (lambda: False, lambda: True, mg.bool),
    ],
)
def test_result_type_follows_the_promotion_categories(a, b, expected) -> None:
    assert mg.result_type(a(), b()) is expected


def test_result_type_of_numbers_uses_the_default_float_dtype() -> None:
    previous = mg.get_default_dtype()
    mg.set_default_dtype(mg.float64)
    try:
        assert mg.result_type(2, 3.0) is mg.float64
    finally:
        mg.set_default_dtype(previous)


def test_result_type_refuses_what_is_not_a_tensor_or_number() -> None:
    with pytest.raises(TypeError, match="Tensor or Number"):
        mg.result_type(mg.ones(2), "a")


# --------------------------------------------------------------------------- broadcast_shapes
@pytest.mark.parametrize(
    "shapes",
    [((2, 1), (3,)), (2, (3, 1)), ((1,), (0,)), ((4, 1, 5), (1, 3, 1), (5,)), ((),), ()],
)
def test_broadcast_shapes_agrees_with_numpy(shapes) -> None:
    got = mg.broadcast_shapes(*shapes)
    assert isinstance(got, mg.Size)
    assert tuple(got) == np.broadcast_shapes(*shapes)


def test_broadcast_shapes_refuses_mismatched_and_negative_sizes() -> None:
    with pytest.raises(RuntimeError, match="length 3 at -1"):
        mg.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError):
        mg.broadcast_shapes((0,), (3,))
    with pytest.raises(ValueError, match="negative length"):
        mg.broadcast_shapes((-1,))


# ------------------------------------------------------------------------------- detach
def test_detach_shares_memory_and_leaves_the_graph() -> None:
    x = mg.ones(3, requires_grad=True)
    y = mg.detach(x * 2)
    assert not y.requires_grad and y.grad_fn is None
    z = mg.detach(x)
    z[0] = 5.0  # the same memory, as in PyTorch
    assert x[0].item() == 5.0
    with pytest.raises(TypeError):
        mg.detach(np.ones(2))


# ------------------------------------------------------------------------------- stride
def test_stride_is_the_arrays_strides_in_elements() -> None:
    base = np.arange(60.0).reshape(3, 4, 5)
    x = mg.tensor(base)
    for t, a in [
        (x, base),
        (x.transpose(0, 2), base.transpose(2, 1, 0)),
        (x[:, ::2], base[:, ::2]),
        (x.permute(1, 2, 0), base.transpose(1, 2, 0)),
    ]:
        assert t.stride() == tuple(s // 8 for s in a.strides)
    assert x.stride() == (20, 5, 1)
    assert x.stride(0) == 20 and x.stride(-1) == 1
    assert mg.ones(3, 1).expand(3, 4).stride() == (1, 0)  # an expanded dim does not move
    assert mg.tensor(1.0).stride() == ()


def test_stride_refuses_a_dim_out_of_range() -> None:
    with pytest.raises(IndexError):
        mg.ones(2, 3).stride(2)
    with pytest.raises(IndexError, match="no dimensions"):
        mg.tensor(1.0).stride(0)


# ------------------------------------------------------------------------------- unfold
def test_unfold_is_a_view_with_the_window_strides() -> None:
    a = mg.arange(10.0)
    u = a.unfold(0, 4, 3)
    assert u.shape == (3, 4)
    assert u.stride() == (3, 1)  # the next window is step elements on, the next element one
    assert u._base is a
    u[1, 0] = -1.0  # a write into a window reaches the base
    assert a[3].item() == -1.0
    assert u._version == a._version


def test_unfold_gradient_counts_the_windows_covering_each_element() -> None:
    n, size, step = 9, 4, 2
    x = mg.zeros(n, dtype=mg.float64, requires_grad=True)
    x.unfold(0, size, step).sum().backward()
    windows = (n - size) // step + 1
    expected = [sum(i * step <= j < i * step + size for i in range(windows)) for j in range(n)]
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_unfold_of_a_0d_tensor_is_one_element() -> None:
    assert mg.tensor(5.0).unfold(0, 1, 1).tolist() == [5.0]
    assert mg.tensor(5.0).unfold(-1, 0, 1).shape == (0,)


def test_unfold_refuses_bad_windows() -> None:
    a = mg.arange(7.0)
    with pytest.raises(RuntimeError, match="maximum size"):
        a.unfold(0, 8, 1)
    with pytest.raises(RuntimeError, match="step is 0"):
        a.unfold(0, 2, 0)
    with pytest.raises(RuntimeError, match="size is -1"):
        a.unfold(0, -1, 1)
    with pytest.raises(IndexError):
        a.unfold(1, 2, 1)


# ------------------------------------------------------------------------------- renorm
def test_renorm_caps_each_slice_norm_at_maxnorm() -> None:
    rng = np.random.default_rng(0)
    v = rng.normal(size=(5, 4)) * np.array([[0.1], [3], [0.2], [5], [1]])
    out = mg.tensor(v).renorm(2, 0, 1.0).numpy()
    norms = np.linalg.norm(v, axis=1)
    big = norms > 1.0
    np.testing.assert_allclose(np.linalg.norm(out[big], axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(out[~big], v[~big])  # the short slices are untouched


# ------------------------------------------------------------------------------- in place
@pytest.mark.parametrize(
    ("name", "ref", "lo", "hi"),
    [
        ("expm1", np.expm1, -2, 2),
        ("log1p", np.log1p, -0.5, 2),
        ("sinh", np.sinh, -2, 2),
        ("cosh", np.cosh, -2, 2),
        ("tan", np.tan, -1, 1),
        ("log2", np.log2, 0.1, 4),
        ("log10", np.log10, 0.1, 4),
    ],
)
def test_inplace_pointwise_writes_into_self(name, ref, lo, hi) -> None:
    v = np.random.default_rng(1).uniform(lo, hi, (3, 4))
    x = mg.tensor(v)
    version = x._version
    assert getattr(x, f"{name}_")() is x
    np.testing.assert_allclose(x.numpy(), ref(v), rtol=1e-12)
    assert x._version > version


def test_inplace_expm1_on_a_computed_tensor_keeps_the_gradient() -> None:
    v = np.array([-1.0, 0.5, 2.0])
    x = mg.tensor(v, requires_grad=True)
    y = x * 1.0
    y.expm1_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(v))  # d(e^x - 1)/dx


@pytest.mark.parametrize(
    ("fn", "kwargs", "ref"),
    [
        (F.relu_, {}, lambda v: np.maximum(v, 0)),
        (F.elu_, {"alpha": 0.5}, lambda v: np.where(v > 0, v, 0.5 * np.expm1(v))),
        (F.hardtanh_, {"min_val": -0.5, "max_val": 1.5}, lambda v: np.clip(v, -0.5, 1.5)),
        (F.leaky_relu_, {"negative_slope": 0.2}, lambda v: np.where(v > 0, v, 0.2 * v)),
    ],
)
def test_functional_inplace_activations_write_into_their_input(fn, kwargs, ref) -> None:
    v = np.array([-2.0, -0.3, 0.7, 2.5])
    x = mg.tensor(v)
    assert fn(x, **kwargs) is x
    np.testing.assert_allclose(x.numpy(), ref(v))


def test_functional_inplace_activation_refuses_a_leaf_that_requires_grad() -> None:
    with pytest.raises(RuntimeError):
        F.relu_(mg.ones(2, requires_grad=True))


def test_comparison_functions_need_a_tensor_first() -> None:
    with pytest.raises(TypeError):
        mg.eq(2, mg.ones(2))
    with pytest.raises(TypeError):
        mg.rsub(2, mg.ones(2))
