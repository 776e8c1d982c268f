"""Edge behaviours where PyTorch's answer is the float64 truth (or its documented choice) and ours
differed: a triangular solve with a zero pivot divides by it, slogdet's sign is in the graph,
frexp is exact on subnormals and differentiable, i0e/i1e's gradients at +-inf are their limits,
and the functions PyTorch's CPU kernels lack raise as they do."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_triangular_solve_with_a_zero_pivot_divides_by_it_as_lapack_does():
    a = np.array([[0.0, 1.0], [0.0, 1.0]])  # upper triangular, a_00 = 0
    b = np.array([[1.0, 0.0], [2.0, 3.0]])
    with np.errstate(divide="ignore", invalid="ignore"):  # back substitution by hand
        x1 = b[1] / a[1, 1]
        x0 = (b[0] - a[0, 1] * x1) / a[0, 0]
    got = mg.linalg.solve_triangular(mg.tensor(a), mg.tensor(b), upper=True).numpy()
    np.testing.assert_array_equal(got, np.stack([x0, x1]))  # [-inf, -inf], [2, 3]


def test_lu_factor_gradient_at_a_singular_matrix_is_computed_not_raised():
    a = mg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=mg.float64, requires_grad=True)
    lu, _, info = mg.linalg.lu_factor_ex(a)
    assert int(info) == 2  # U's last pivot is 0
    (g,) = mg.autograd.grad(lu.sum(), a)
    assert g.shape == (2, 2)


def test_slogdet_sign_requires_grad_and_its_gradient_is_zero():
    a = mg.tensor([[2.0, 1.0], [1.0, -3.0]], dtype=mg.float64, requires_grad=True)
    sign, logabsdet = mg.linalg.slogdet(a)
    assert sign.requires_grad and logabsdet.requires_grad
    (g,) = mg.autograd.grad(sign.sum(), a)
    np.testing.assert_array_equal(g.numpy(), np.zeros((2, 2)))


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        ("float64", [5e-310, -2.2e-320, 3.0, 0.0]),
        ("float32", [1e-40, -3e-45, 3.0, 1e38]),
        ("float16", [6e-8, -3e-5, 65504.0, 1e-7]),
    ],
)
def test_frexp_of_subnormals_matches_numpy_and_is_differentiable(dtype, values):
    x = np.array(values, dtype=dtype)
    t = mg.tensor(x, requires_grad=True)
    mantissa, exponent = mg.frexp(t)
    want_m, want_e = np.frexp(x)
    np.testing.assert_array_equal(mantissa.detach().numpy(), want_m)
    np.testing.assert_array_equal(exponent.numpy(), want_e)
    assert mantissa.requires_grad and not exponent.requires_grad
    (g,) = mg.autograd.grad(mantissa[2], t)  # a normal number: d mantissa / dx = 2^-e
    assert float(g[2]) == 2.0 ** -int(want_e[2])


@pytest.mark.parametrize("name", ["i0e", "i1e"])
def test_scaled_bessel_gradients_at_infinity_are_their_limit_zero(name):
    x = mg.tensor([float("inf"), -float("inf"), 1.0], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(getattr(mg.special, name)(x).sum(), x)
    assert g.tolist()[:2] == [0.0, 0.0] and np.isfinite(g.tolist()[2])


def test_functions_pytorchs_cpu_kernels_lack_raise_not_implemented():
    half = mg.tensor([0.25], dtype=mg.float16)
    with pytest.raises(NotImplementedError, match="Half"):
        mg.special.log_ndtr(half)
    with pytest.raises(NotImplementedError, match="BFloat16"):
        mg.special.ndtri(half.bfloat16())
    with pytest.raises(NotImplementedError, match="Long"):
        mg.special.round(mg.tensor([1, 2]))
    assert mg.round(mg.tensor([1, 2])).tolist() == [1, 2]  # mg.round keeps integers, as torch's
