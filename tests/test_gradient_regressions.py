"""Gradients and values that once came out silently wrong: each is checked against an independent
float64 central finite difference (or a closed form) and, where PyTorch defines it, PyTorch.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from parity_helpers import assert_grads, assert_same, pair

import minigenesis as mg


def numeric_grad(f, a: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """d sum(f(x)) / dx by float64 central differences, f mapping an array to an array."""
    a = np.array(a, dtype=np.float64)
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        hi, lo = a.copy(), a.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (np.sum(f(hi)) - np.sum(f(lo))) / (2 * eps)
    return g


def mg_grad(f, a: np.ndarray) -> np.ndarray:
    """d sum(f(x)) / dx by minigenesis' backward, in float64."""
    x = mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=True)
    f(x).sum().backward()
    return x.grad.numpy()


# ---------------------------------------------------------------- var/std over size-1 dims
VAR_CASES = [
    ((1, 3), {"dim": 0, "unbiased": False}),
    ((1, 3), {"dim": 0, "correction": 0, "keepdim": True}),
    ((2, 1, 3), {"dim": (0, 1), "correction": 0}),
    ((2, 1, 3), {"dim": (1, -1), "correction": 1}),
    ((2, 1, 3), {"dim": -2, "unbiased": False, "keepdim": True}),
    ((3, 1), {"dim": (-1,), "correction": 0}),
    ((1, 1, 4), {"dim": (0, 1), "correction": 0}),
    ((1, 1, 4), {"dim": (0, 2), "correction": 1, "keepdim": True}),
]


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("shape,kwargs", VAR_CASES)
def test_var_and_std_over_size_one_dims_reduce_only_those_dims(name, shape, kwargs):
    """A reduced dim of size 1 is still a reduced dim: x - mean is 0 there, not x - mean(all)."""
    a = np.random.default_rng(0).standard_normal(shape)

    def ref(v):
        dims = kwargs["dim"] if isinstance(kwargs["dim"], tuple) else (kwargs["dim"],)
        c = kwargs.get("correction", 0 if kwargs.get("unbiased") is False else 1)
        n = np.prod([v.shape[d] for d in dims])
        out = ((v - v.mean(axis=dims, keepdims=True)) ** 2).sum(axis=dims) / (n - c)
        return out if name == "var" else np.sqrt(out)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # N - c = 0 (a single element, correction 1): inf/NaN
        got = mg_grad(lambda x: getattr(x, name)(**kwargs), a)
        np.testing.assert_allclose(got, numeric_grad(ref, a), atol=1e-6)
    torch = pytest.importorskip("torch")
    m, t = pair(torch, a, "float64", requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m_out, t_out = getattr(m, name)(**kwargs), getattr(t, name)(**kwargs)
        assert_same(m_out, t_out)
        m_out.sum().backward()
        t_out.sum().backward()
    assert_grads([m], [t])


# ---------------------------------------------------------------- zero_/fill_ in a graph
@pytest.mark.parametrize(
    "fill",
    [lambda v: v.zero_(), lambda v: v.fill_(2.5), lambda v: v.fill_(mg.tensor(2.5))],
    ids=["zero_", "fill_number", "fill_tensor"],
)
def test_zero_and_fill_on_a_non_leaf_cut_the_old_gradient_path(fill):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    v = x * 3
    fill(v)
    (v * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])  # v no longer depends on x


def test_fill_with_a_tensor_that_requires_grad_passes_the_summed_gradient():
    torch = pytest.importorskip("torch")
    grads = []
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        value = lib.tensor(0.5, requires_grad=True)
        v = x * 3
        v.fill_(value)
        (v * lib.tensor([1.0, 2.0, 4.0])).sum().backward()
        grads.append((x.grad, value.grad))
    assert_same(*[g[0] for g in grads])
    assert_same(*[g[1] for g in grads])
    assert float(grads[0][1]) == 7.0  # d/dvalue sum(value * w) = sum(w)


def test_fill_refuses_a_value_tensor_with_dims():
    with pytest.raises(RuntimeError, match="0-dim"):
        mg.zeros(3).fill_(mg.ones(3))


# ---------------------------------------------------------------- remainder / fmod
REMAINDERS = {
    "mod": lambda x, y: x % y,
    "mod_scalar": lambda x, y: (x % 1.0) + x,
    "remainder": lambda x, y: x.remainder(y),
    "fmod": lambda x, y: x.fmod(y),
    "fmod_function": lambda x, y: mg.fmod(x, 0.7) if isinstance(x, mg.Tensor) else x.fmod(0.7),
}


@pytest.mark.parametrize("op", list(REMAINDERS))
def test_remainder_and_fmod_pass_gradients_to_both_operands(op):
    torch = pytest.importorskip("torch")
    fn = REMAINDERS[op]
    xs, ys = [1.5, -2.5, 3.7, -0.3], [2.0, -3.0, -1.5, 0.7]
    m, t = pair(torch, xs, "float64", requires_grad=True)
    mb, tb = pair(torch, ys, "float64", requires_grad=True)
    m_out, t_out = fn(m, mb), fn(t, tb)
    assert_same(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_grads([m, mb], [t, tb])
    # away from the jumps, the finite difference agrees (x and y perturbed one at a time)
    base = mg.tensor(ys, dtype=mg.float64)
    f = lambda v: fn(mg.tensor(v), base).numpy()  # noqa: E731
    np.testing.assert_allclose(m.grad.numpy(), numeric_grad(f, np.array(xs)), atol=1e-6)
    if mb.grad is not None:
        f = lambda v: fn(mg.tensor(xs, dtype=mg.float64), mg.tensor(v)).numpy()  # noqa: E731
        np.testing.assert_allclose(mb.grad.numpy(), numeric_grad(f, np.array(ys)), atol=1e-6)


def test_reflected_remainder_has_the_quotient_gradient():
    """``2.0 % x``: dz/dx = -floor(2 / x). PyTorch has no derivative for a number % tensor and
    raises; minigenesis gives the same formula as for tensor % tensor."""
    xs = np.array([0.7, -1.3, 3.0 + 0.25])
    got = mg_grad(lambda x: 2.0 % x, xs)
    np.testing.assert_allclose(got, numeric_grad(lambda v: np.remainder(2.0, v), xs), atol=1e-6)
    np.testing.assert_array_equal(got, -np.floor(2.0 / xs))


def test_floor_divide_has_zero_gradient():
    """floor(x / y) is piecewise constant: a zero gradient (PyTorch's backward refuses)."""
    got = mg_grad(lambda x: x // 0.7 + x, np.array([0.2, -1.1, 2.5]))
    np.testing.assert_array_equal(got, [1.0, 1.0, 1.0])


# ---------------------------------------------------------------- norms at zero
NORMS = {
    "fro": lambda x: x.norm(),
    "p2": lambda x: x.norm(2),
    "p2_dim": lambda x: x.norm(dim=1),
    "p2_dim_keep": lambda x: x.norm(2, dim=-1, keepdim=True),
    "p1": lambda x: x.norm(1),
    "p1_dim": lambda x: x.norm(p=1, dim=0),
    "p3": lambda x: x.norm(3),
    "p3_dim": lambda x: x.norm(3, dim=1),
    "p_half_dim": lambda x: x.norm(0.5, dim=1),
    "p_1_5": lambda x: x.norm(1.5, dim=(0, 1)),
    "p_neg1_dim": lambda x: x.norm(-1, dim=1),
    "inf": lambda x: x.norm(float("inf")),
    "inf_dim": lambda x: x.norm(float("inf"), dim=1),
    "neg_inf_dim": lambda x: x.norm(float("-inf"), dim=0),
    "functional": lambda x: mg.norm(x, 2, 1) if isinstance(x, mg.Tensor) else x.norm(2, 1),
}


@pytest.mark.parametrize("values", ["zeros", "zero_row", "zero_entries"])
@pytest.mark.parametrize("op", list(NORMS))
def test_norm_gradient_at_zero_is_zero_not_nan(op, values):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(1).standard_normal((2, 3))
    if values == "zeros":
        a[:] = 0
    elif values == "zero_row":
        a[0] = 0
    else:
        a[:, 0] = 0
    m, t = pair(torch, a, "float64", requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # p < 0 at zero: 0 ** -1 in the forward
        m_out, t_out = NORMS[op](m), NORMS[op](t)
    assert_same(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert np.isfinite(m.grad.numpy()).all()
    assert_grads([m], [t])


def test_gradient_penalty_at_a_zero_gradient_is_finite():
    """||d(w x)/dx||: at w = 0 the penalty's own gradient is 0 (not NaN), as PyTorch."""
    w = mg.zeros(3, requires_grad=True)
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = mg.autograd.grad((w * x).sum(), [x], create_graph=True)
    g.norm().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("p", [2, 3, 0.5])
def test_norm_gradient_matches_finite_differences_away_from_zero(p):
    a = np.random.default_rng(2).standard_normal((3, 4))

    def ref(v):
        return (np.abs(v) ** p).sum(axis=1) ** (1 / p)

    np.testing.assert_allclose(mg_grad(lambda x: x.norm(p, dim=1), a), numeric_grad(ref, a), 1e-6)


def test_norm_second_derivative_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).standard_normal((2, 3))
    for p in (2, 3, 1.5):
        m, t = pair(torch, a, "float64", requires_grad=True)
        (gm,) = mg.autograd.grad(m.norm(p, dim=1).sum(), [m], create_graph=True)
        (gt,) = torch.autograd.grad(t.norm(p, dim=1).sum(), [t], create_graph=True)
        w = np.random.default_rng(4).standard_normal((2, 3))
        (gm * mg.tensor(w)).sum().backward()
        (gt * torch.tensor(w)).sum().backward()
        assert_grads([m], [t], rtol=1e-10, atol=1e-12)


def test_amin_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 0.5, 0.5], [2.0, 3.0, -1.0]])
    for dims in itertools.chain([None, 0, -1, (0, 1)]):
        m, t = pair(torch, a, "float64", requires_grad=True)
        args = () if dims is None else (dims,)
        m_out, t_out = m.amin(*args), t.amin(*args)
        assert_same(m_out, t_out)
        m_out.sum().backward()
        t_out.sum().backward()
        assert_grads([m], [t])
