"""The Tensor aliases and legacy forms of tensor_aliases.py, against NumPy (float64) and, where
differentiable, float64 central differences (gradcheck)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(0)


def _t(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def test_sizes_and_bytes_follow_the_dtype():
    x = mg.zeros(3, 4, dtype=mg.int16)
    assert (x.ndimension(), x.itemsize, x.nbytes) == (2, 2, 24)
    assert x[:, :2].nbytes == 12  # a view counts its own elements


def test_retains_grad_is_true_only_after_retain_grad_on_a_non_leaf():
    x = mg.ones(2, requires_grad=True)
    y, z = x * 2, x * 3
    y.retain_grad()
    assert (y.retains_grad, z.retains_grad, x.retains_grad) == (True, False, False)


@pytest.mark.parametrize(("dtype", "signed"), [(mg.bool, False), (mg.uint8, False),
                                               (mg.int8, True), (mg.float32, True)])  # fmt: skip
def test_is_signed_by_dtype(dtype, signed):
    assert mg.zeros(1, dtype=dtype).is_signed() is signed
    assert mg.is_signed(mg.zeros(1, dtype=dtype)) is signed


def test_is_nonzero_needs_exactly_one_element():
    assert mg.tensor([2.5]).is_nonzero() and not mg.tensor(0).is_nonzero()
    with pytest.raises(RuntimeError, match="more than one value"):
        mg.ones(2).is_nonzero()
    with pytest.raises(RuntimeError, match="no values"):
        mg.ones(0).is_nonzero()


def test_device_facts_on_the_cpu():
    x = mg.ones(2)
    assert x.get_device() == -1 and not x.is_pinned() and x.is_same_size(mg.zeros(2))
    assert not x.is_same_size(mg.zeros(2, 1))
    with pytest.raises(RuntimeError, match="accelerator"):
        x.pin_memory()


def test_legacy_new_reads_sizes_or_data_with_selfs_dtype():
    x = mg.zeros(1, dtype=mg.float64)
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype is mg.float64
    assert x.new(mg.Size([4])).shape == (4,) and x.new().shape == (0,)
    np.testing.assert_array_equal(x.new((2, 3)).numpy(), [2.0, 3.0])


def test_new_empty_strided_has_the_asked_geometry():
    y = mg.ones(1).new_empty_strided((2, 3), (1, 2))
    assert y.shape == (2, 3) and y.stride() == (1, 2) and not y.requires_grad


def test_a_real_tensor_is_its_own_conjugate():
    x = _t(RNG.normal(size=(2, 3)))
    assert x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x and x.real is x
    assert x.conj_physical() is x and not x.is_conj() and not x.is_neg()
    np.testing.assert_array_equal(x.H.numpy(), x.numpy().T)
    b = _t(RNG.normal(size=(4, 2, 3)))
    np.testing.assert_array_equal(b.mH.numpy(), np.swapaxes(b.numpy(), -1, -2))
    np.testing.assert_array_equal(b.adjoint().numpy(), np.swapaxes(b.numpy(), -1, -2))
    with pytest.raises(RuntimeError, match="non-complex"):
        _ = x.imag
    with pytest.raises(RuntimeError, match="only supported on matrices"):
        _ = mg.ones(3).H


def test_sum_to_size_reverses_a_broadcast_with_its_gradient():
    a = RNG.normal(size=(2, 3, 4))
    np.testing.assert_allclose(_t(a).sum_to_size(3, 1).numpy(), a.sum(0).sum(-1, keepdims=True))
    np.testing.assert_allclose(_t(a).sum_to_size((1, 4)).numpy(), a.sum((0, 1))[None])
    assert gradcheck(lambda x: x.sum_to_size(1, 4), (_t(a, True),))
    with pytest.raises(RuntimeError, match="not expandable"):
        _t(a).sum_to_size(2, 4)


def test_split_with_sizes_must_add_up():
    a = np.arange(10.0)
    parts = _t(a).split_with_sizes([3, 7])
    np.testing.assert_array_equal(parts[1].numpy(), a[3:])
    with pytest.raises(RuntimeError, match="sum exactly to 10"):
        _t(a).split_with_sizes([3, 3])


def test_narrow_copy_is_a_copy():
    x = _t(np.arange(6.0))
    y = x.narrow_copy(0, 1, 3)
    y[0] = 100.0
    assert x[1].item() == 1.0 and y.tolist() == [100.0, 2.0, 3.0]


@pytest.mark.parametrize("case", ["slice", "select", "diagonal", "as_strided"])
def test_scatters_replace_the_part_and_send_gradients_to_both(case):
    base = RNG.normal(size=(4, 4))
    expect = base.copy()
    if case == "slice":
        src, fn = RNG.normal(size=(4, 2)), lambda x, s: x.slice_scatter(s, 1, 1, 4, 2)
        expect[:, 1:4:2] = src
    elif case == "select":
        src, fn = RNG.normal(size=4), lambda x, s: x.select_scatter(s, 0, 2)
        expect[2] = src
    elif case == "diagonal":
        src, fn = RNG.normal(size=3), lambda x, s: x.diagonal_scatter(s, 1)
        expect[np.arange(3), np.arange(1, 4)] = src
    else:
        src, fn = RNG.normal(size=(2, 2)), lambda x, s: x.as_strided_scatter(s, (2, 2), (1, 4), 1)
        flat = expect.reshape(-1)
        flat[[1, 5, 2, 6]] = src.reshape(-1)
    np.testing.assert_array_equal(fn(_t(base), _t(src)).numpy(), expect)
    assert gradcheck(fn, (_t(base, True), _t(src, True)))


def test_torch_scatter_forms_match_the_methods():
    x, s = _t(np.zeros((2, 3))), _t(np.ones(3))
    np.testing.assert_array_equal(mg.select_scatter(x, s, 0, 1).numpy(), [[0, 0, 0], [1, 1, 1]])
    with pytest.raises(RuntimeError, match="src to have a size equal"):
        mg.slice_scatter(x, _t(np.ones((2, 2))), 1, 0, 3)


def test_vdot_hardshrink_prelu_match_numpy_with_gradients():
    a, b = RNG.normal(size=5), RNG.normal(size=5)
    np.testing.assert_allclose(_t(a).vdot(_t(b)).item(), np.vdot(a, b))
    x = np.array([-2.0, -0.5, -0.2, 0.3, 0.5, 1.5, np.nan])
    np.testing.assert_array_equal(_t(x).hardshrink(0.4).numpy(), np.where(np.abs(x) <= 0.4, 0.0, x))
    h = RNG.normal(size=(3, 2, 4))
    w = np.array([0.1, -0.3])
    expect = np.where(h > 0, h, w[None, :, None] * h)
    np.testing.assert_allclose(_t(h).prelu(_t(w)).numpy(), expect)
    assert gradcheck(lambda x, w: x.prelu(w), (_t(h, True), _t(w, True)))
    assert gradcheck(lambda x: x.hardshrink(0.2), (_t(RNG.normal(size=6) + 0.5, True),))


def test_igamma_is_the_regularized_incomplete_gamma():
    a = np.array([1.0, 2.0, 3.0])
    x = np.array([0.5, 1.0, 4.0])
    # P(1, x) = 1 - e^-x;  P(2, x) = 1 - e^-x (1 + x);  P(3, x) = 1 - e^-x (1 + x + x^2 / 2)
    p = 1 - np.exp(-x) * np.array([1, 1 + x[1], 1 + x[2] + x[2] ** 2 / 2])
    np.testing.assert_allclose(_t(a).igamma(_t(x)).numpy(), p, rtol=1e-12)
    np.testing.assert_allclose(mg.igammac(_t(a), _t(x)).numpy(), 1 - p, rtol=1e-12)
    y = _t(a)
    y.igamma_(_t(x))
    np.testing.assert_allclose(y.numpy(), p, rtol=1e-12)


def test_legacy_lu_lu_solve_and_triangular_solve_solve_systems():
    a = RNG.normal(size=(3, 3)) + 3 * np.eye(3)
    b = RNG.normal(size=(3, 2))
    lu, piv = _t(a).lu()
    np.testing.assert_allclose(_t(b).lu_solve(lu, piv).numpy(), np.linalg.solve(a, b))
    _, _, info = mg.lu(_t(np.zeros((2, 2))), get_infos=True)  # singular: no error, info > 0
    assert info.item() > 0
    u = np.triu(a)
    x, coeff = _t(b).triangular_solve(_t(u))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(u, b))
    np.testing.assert_array_equal(coeff.numpy(), u)
    xt, _ = mg.triangular_solve(_t(b), _t(u), upper=True, transpose=True)
    np.testing.assert_allclose(xt.numpy(), np.linalg.solve(u.T, b))
    assert gradcheck(lambda b, u: b.triangular_solve(u)[0], (_t(b, True), _t(u, True)))


def test_sparse_facts_of_a_dense_tensor():
    x = _t([[0.0, 2.0], [3.0, 0.0]])
    assert (x.sparse_dim(), x.dense_dim()) == (0, 2)
    np.testing.assert_array_equal(x.to_sparse_coo().to_dense().numpy(), x.numpy())


def test_nonzero_static_pads_or_cuts():
    x = mg.tensor([[0, 1], [2, 0]])
    np.testing.assert_array_equal(
        x.nonzero_static(size=3, fill_value=-7).numpy(), [[0, 1], [1, 0], [-7, -7]]
    )
    np.testing.assert_array_equal(mg.nonzero_static(x, size=1).numpy(), [[0, 1]])


def test_unsafe_forms_and_geometry_facts():
    x = _t(np.arange(6.0).reshape(2, 3))
    assert [t.shape for t in x.unsafe_chunk(3, 1)] == [(2, 1)] * 3
    assert [t.shape for t in mg.unsafe_split(x, 2, 1)] == [(2, 2), (2, 1)]
    assert x.dim_order() == (0, 1) and x.t().dim_order() == (1, 0)
    assert x.is_set_to(x) and not x.is_set_to(x.t()) and x.const_data_ptr() == x.data_ptr()
    y = mg.zeros(1)
    assert y.resize_as_(x).shape == (2, 3)


def test_triangular_solve_broadcasts_the_cloned_coefficient_to_the_batch():
    rng = np.random.default_rng(5)
    a = np.triu(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    x, coeff = mg.tensor(b).triangular_solve(mg.tensor(a))
    assert coeff.shape == (2, 3, 3)
    np.testing.assert_array_equal(coeff.numpy(), np.broadcast_to(a, (2, 3, 3)))
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-12)


def test_lu_unpack_of_a_tensor_requiring_grad_passes_gradients_to_the_packed_factors():
    # L = tril(LU, -1) + I, U = triu(LU): d(sum(w1 L) + sum(w2 U)) / dLU = tril(w1, -1) + triu(w2)
    rng = np.random.default_rng(6)
    lu = mg.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    w1, w2 = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    _, l_, u = mg.lu_unpack(lu, mg.tensor([1, 2, 3], dtype=mg.int32))
    ((l_ * mg.tensor(w1)).sum() + (u * mg.tensor(w2)).sum()).backward()
    np.testing.assert_allclose(lu.grad.numpy(), np.tril(w1, -1) + np.triu(w2), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_tensor_hardshrink_refuses_integer_and_bool_tensors_as_f_hardshrink(dtype):
    with pytest.raises(NotImplementedError, match="hardshrink"):
        mg.tensor([-2, 0, 3], dtype=getattr(mg, dtype)).hardshrink()
