"""mg.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp against closed forms, float64
central finite differences and torch.autograd.functional (values, shapes, tuple nesting, errors)."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import functional as AF

RNG = np.random.default_rng(7)
A = RNG.standard_normal((2, 3))
B = RNG.standard_normal(3)


def _fd_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d f(x)[a] / d x[b] by central differences, shape f(x).shape + x.shape."""
    fx = np.asarray(f(x))
    jac = np.zeros(fx.shape + x.shape)
    for b in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[b] = eps
        jac[(...,) + b] = (np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps)
    return jac


def _np(t):
    return t.detach().numpy()


# --------------------------------------------------------------------------- closed forms / FD
def test_jacobian_of_elementwise_function_is_diagonal_of_its_derivative():
    x = mg.tensor(A)
    jac = AF.jacobian(lambda t: t.sin() * t, x)
    assert jac.shape == (2, 3, 2, 3)
    expected = np.zeros((2, 3, 2, 3))
    for i, j in np.ndindex(2, 3):
        expected[i, j, i, j] = np.cos(A[i, j]) * A[i, j] + np.sin(A[i, j])
    np.testing.assert_allclose(_np(jac), expected, rtol=1e-12, atol=1e-14)


def test_jacobian_of_matrix_vector_product_is_the_matrix():
    w = mg.tensor(A)
    jac = AF.jacobian(lambda v: w @ v, mg.tensor(B))
    np.testing.assert_allclose(_np(jac), A, rtol=1e-14)


def test_jacobian_matches_finite_differences():
    def f_np(x):
        return np.tanh(x @ x.T).ravel()

    jac = AF.jacobian(lambda t: (t @ t.t()).tanh().reshape(-1), mg.tensor(A))
    np.testing.assert_allclose(_np(jac), _fd_jacobian(f_np, A), rtol=1e-6, atol=1e-8)


def test_hessian_of_quadratic_form_is_symmetrised_matrix():
    m = RNG.standard_normal((3, 3))
    hess = AF.hessian(lambda x: x @ (mg.tensor(m) @ x), mg.tensor(B))
    np.testing.assert_allclose(_np(hess), m + m.T, rtol=1e-12)


def test_hessian_matches_finite_differences_of_gradient():
    def grad_np(x):  # gradient of sum(x^3 * sin(x))
        return 3 * x**2 * np.sin(x) + x**3 * np.cos(x)

    hess = AF.hessian(lambda t: (t**3 * t.sin()).sum(), mg.tensor(A))
    np.testing.assert_allclose(_np(hess), _fd_jacobian(grad_np, A), rtol=1e-6, atol=1e-8)


def test_jvp_and_vjp_are_the_two_products_with_the_jacobian():
    v_in, v_out = RNG.standard_normal(3), RNG.standard_normal(4)

    def f_np(x):
        return np.array([x[0] * x[1], np.exp(x[2]), x.sum() ** 2, np.sin(x[0] * x[2])])

    def f(x):
        return mg.stack([x[0] * x[1], x[2].exp(), x.sum() ** 2, (x[0] * x[2]).sin()])

    jac = _fd_jacobian(f_np, B)
    out, jv = AF.jvp(f, mg.tensor(B), mg.tensor(v_in))
    np.testing.assert_allclose(_np(out), f_np(B), rtol=1e-14)
    np.testing.assert_allclose(_np(jv), jac @ v_in, rtol=1e-6, atol=1e-8)
    _, vj = AF.vjp(f, mg.tensor(B), mg.tensor(v_out))
    np.testing.assert_allclose(_np(vj), v_out @ jac, rtol=1e-6, atol=1e-8)


def test_hvp_and_vhp_of_a_symmetric_hessian_agree_with_full_hessian():
    v = RNG.standard_normal((2, 3))

    def f(x):
        return (x.exp() * x.roll(1, 1)).sum()

    hess = _np(AF.hessian(f, mg.tensor(A))).reshape(6, 6)
    _, hv = AF.hvp(f, mg.tensor(A), mg.tensor(v))
    _, vh = AF.vhp(f, mg.tensor(A), mg.tensor(v))
    np.testing.assert_allclose(_np(hv).ravel(), hess @ v.ravel(), rtol=1e-10)
    np.testing.assert_allclose(_np(vh).ravel(), v.ravel() @ hess, rtol=1e-10)


def test_unused_input_gives_zeros_without_strict():
    jac = AF.jacobian(lambda x, y: x.exp(), (mg.tensor(A), mg.tensor(B)))
    assert jac[1].shape == (2, 3, 3)
    assert not _np(jac[1]).any()


def test_results_are_detached_without_create_graph():
    x = mg.tensor(A, requires_grad=True)
    jac = AF.jacobian(lambda t: t**2, x)
    out, vj = AF.vjp(lambda t: (t**2).sum(), x)
    assert not jac.requires_grad and not out.requires_grad and not vj.requires_grad


def test_create_graph_jacobian_can_be_differentiated_again():
    x = mg.tensor(B, requires_grad=True)
    jac = AF.jacobian(lambda t: t**3, x, create_graph=True)  # diag(3 x^2)
    assert jac.requires_grad
    jac.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * B, rtol=1e-12)


def test_create_graph_jvp_can_be_differentiated_again():
    x = mg.tensor(B, requires_grad=True)
    _, jv = AF.jvp(lambda t: t.sin() * t, x, mg.ones(3, dtype=mg.float64), create_graph=True)
    jv.sum().backward()  # d/dx (cos x * x + sin x) = 2 cos x - x sin x
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(B) - B * np.sin(B), rtol=1e-12)


def test_scalar_input_and_output_need_no_v():
    out, g = AF.vjp(lambda t: t**3, mg.tensor(2.0, dtype=mg.float64))
    assert float(out) == 8.0 and float(g) == 12.0
    _, h = AF.hvp(lambda t: t**3, mg.tensor(2.0, dtype=mg.float64))
    assert float(h) == 12.0


# --------------------------------------------------------------------------- errors
def test_strict_raises_for_an_output_independent_of_an_input():
    with pytest.raises(
        RuntimeError, match="Output 0 of the user-provided function is independent of input 1"
    ):
        AF.jacobian(lambda x, y: x.exp(), (mg.tensor(A), mg.tensor(B)), strict=True)
    with pytest.raises(RuntimeError, match="independent of input 1. This is not allowed in strict"):
        AF.vjp(lambda x, y: x.exp(), (mg.tensor(A), mg.tensor(B)), mg.ones(2, 3), strict=True)


def test_strict_raises_for_an_output_that_does_not_require_grad():
    const = mg.tensor(A)
    with pytest.raises(
        RuntimeError, match="Output 0 of the user-provided function does not require gradients"
    ):
        AF.jvp(lambda x: const.exp(), mg.tensor(A), mg.ones(2, 3), strict=True)


def test_strict_hessian_of_linear_function_raises():
    with pytest.raises(
        RuntimeError,
        match="jacobian of the user-provided function with respect to input 0 is independent",
    ):
        AF.hessian(lambda x: x.sum(), mg.tensor(B), strict=True)


def test_strict_and_vectorize_together_raise():
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True`"):
        AF.jacobian(lambda x: x.exp(), mg.tensor(B), strict=True, vectorize=True)


def test_bad_arguments_are_named():
    x = mg.tensor(A)
    with pytest.raises(
        TypeError, match="The inputs given to jacobian must be either a Tensor or a tuple"
    ):
        AF.jacobian(lambda t: t, [x])
    with pytest.raises(
        RuntimeError, match="v can only be None if the user-provided function returns a single"
    ):
        AF.vjp(lambda t: t.exp(), x)
    with pytest.raises(RuntimeError, match="v has invalid size"):
        AF.jvp(lambda t: t.exp(), x, mg.ones(3))
    with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
        AF.vjp(lambda t: (t, t), x, (mg.ones(2, 3),))
    with pytest.raises(RuntimeError, match="should contain a single element"):
        AF.hessian(lambda t: t.exp(), x)
    with pytest.raises(RuntimeError, match="should return a single Tensor"):
        AF.hvp(lambda t: (t.sum(), t.sum()), x, mg.ones(2, 3))
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.jacobian(lambda t: t, x, strategy="forward-mode")
    with pytest.raises(ValueError, match="strategy"):
        AF.jacobian(lambda t: t, x, strategy="sideways")


# --------------------------------------------------------------------------- torch parity
def _same(ours, theirs, path="result"):
    """Same nesting, shapes and values."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _same(a, b, f"{path}[{i}]")
        return
    assert not isinstance(ours, tuple), f"{path} is a tuple where torch has a tensor"
    assert tuple(ours.shape) == tuple(theirs.shape), path
    np.testing.assert_allclose(_np(ours), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


def _both(torch, fn_name, f, inputs, *extra, **kwargs):
    TF = torch.autograd.functional

    def to_t(x):
        return tuple(map(to_t, x)) if isinstance(x, tuple) else torch.tensor(x)

    def to_m(x):
        return tuple(map(to_m, x)) if isinstance(x, tuple) else mg.tensor(x)

    ours = getattr(AF, fn_name)(f, to_m(inputs), *map(to_m, extra), **kwargs)
    theirs = getattr(TF, fn_name)(f, to_t(inputs), *map(to_t, extra), **kwargs)
    _same(ours, theirs)


def _two_out(x, y):
    return (x * y).sin(), (x**2).sum() * y


def _scalar(x, y):
    return (x.sin() * y).sum() + (x**3).sum() * y.sum()


@pytest.mark.parametrize(
    "f, inputs",
    [
        (_two_out, (A, B)),  # tuple of outputs x tuple of inputs
        (lambda x: (x.exp(), x.sum()), A),  # tuple of outputs, one input
        (lambda x, y: (x * y).sum(0), (A, B)),  # one output, tuple of inputs
        (lambda x: x.exp(), A),  # tensor -> tensor
        (lambda x, y: x.exp(), (A, B)),  # an unused input
    ],
)
def test_jacobian_nesting_and_values_match_torch(f, inputs):
    torch = pytest.importorskip("torch")
    _both(torch, "jacobian", f, inputs)
    _both(torch, "jacobian", f, inputs, vectorize=True)


@pytest.mark.parametrize(
    "f, inputs",
    [(_scalar, (A, B)), (lambda x: (x.sin() ** 2).sum(), A), (lambda x, y: (x**3).sum(), (A, B))],
)
def test_hessian_nesting_and_values_match_torch(f, inputs):
    torch = pytest.importorskip("torch")
    _both(torch, "hessian", f, inputs)


def test_vector_products_match_torch():
    torch = pytest.importorskip("torch")
    va, vb = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    _both(torch, "vjp", _two_out, (A, B), (va, vb))
    _both(torch, "jvp", _two_out, (A, B), (va, vb))
    _both(torch, "hvp", _scalar, (A, B), (va, vb))
    _both(torch, "vhp", _scalar, (A, B), (va, vb))
    _both(torch, "jvp", lambda x: x.exp().sum(), A, va)
    _both(torch, "hvp", lambda x: (x.sin() ** 2).sum(), A, va)


def test_functional_is_reachable_as_torch_spells_it():
    import minigenesis.autograd.functional as by_path

    assert mg.autograd.functional is by_path
    assert by_path.jacobian is AF.jacobian
