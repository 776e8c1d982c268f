"""PyTorch parity: elementwise math (values, dtypes, shapes and gradients), with broadcasting,
Python scalars, 0-d tensors, and PyTorch's subgradient conventions at ties and kinks.

Each case feeds the same random inputs to both libraries, backpropagates the same random
upstream gradient, and compares the output and every leaf's ``.grad``.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import FLOATS, RTOL, assert_grads, assert_same, data, pair

import minigenesis as mg
import minigenesis.nn.functional as F

torch = pytest.importorskip("torch")
TF = torch.nn.functional

SHAPES = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((4, 1, 3), (2, 1)),
    ((), (2, 3)),
    ((2, 3), ()),
]

BINARY = {
    "add": (lambda a, b: a + b, False),
    "sub": (lambda a, b: a - b, False),
    "mul": (lambda a, b: a * b, False),
    "div": (lambda a, b: a / b, True),  # True: b is kept away from 0
    "pow": (lambda a, b: a**b, True),  # and the base positive (a real result)
    "maximum": (lambda a, b: a.maximum(b), False),
    "minimum": (lambda a, b: a.minimum(b), False),
    "method_add": (lambda a, b: a.add(b), False),
    "method_pow": (lambda a, b: a.pow(b), True),
}


def _grad_out(torch_out, dtype, seed=7):
    g = data(tuple(torch_out.shape), "float64", seed)
    return pair(torch, g, dtype)


def _backward(m_out, t_out, dtype):
    gm, gt = _grad_out(t_out, dtype)
    m_out.backward(gm)
    t_out.backward(gt)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("sa", "sb"), SHAPES)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_values_and_gradients(op, sa, sb, dtype):
    fn, positive = BINARY[op]
    a, b = data(sa, "float64", 1), data(sb, "float64", 2)
    if positive:
        a, b = np.abs(a) + 0.5, np.abs(b) + 0.5
    ma, ta = pair(torch, a, dtype, requires_grad=True)
    mb, tb = pair(torch, b, dtype, requires_grad=True)
    m_out, t_out = fn(ma, mb), fn(ta, tb)
    assert_same(m_out, t_out)
    _backward(m_out, t_out, dtype)
    # a gradient summed over a broadcast dim accumulates: allow a few more ulps
    assert_grads([ma, mb], [ta, tb], rtol=4 * RTOL[dtype])


SCALAR_OPS = {
    "add": lambda x, s: x + s,
    "radd": lambda x, s: s + x,
    "sub": lambda x, s: x - s,
    "rsub": lambda x, s: s - x,
    "mul": lambda x, s: x * s,
    "rmul": lambda x, s: s * x,
    "div": lambda x, s: x / s,
    "rdiv": lambda x, s: s / x,
    "pow": lambda x, s: x**s,
    "rpow": lambda x, s: s**x,
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scalar", [2, 0.5, -1.5])
@pytest.mark.parametrize("op", list(SCALAR_OPS))
def test_scalar_operand_values_and_gradients(op, scalar, dtype):
    x = np.abs(data((3, 4), "float64", 3)) + 0.5  # positive: for x ** 0.5 and s / x
    if op == "rpow" and scalar < 0:
        scalar = -scalar  # (-1.5) ** x is complex
    m, t = pair(torch, x, dtype, requires_grad=True)
    m_out, t_out = SCALAR_OPS[op](m, scalar), SCALAR_OPS[op](t, scalar)
    assert_same(m_out, t_out)
    _backward(m_out, t_out, dtype)
    assert_grads([m], [t], rtol=2 * RTOL[dtype])


def _gelu_tanh(x):
    return (
        F.gelu(x, approximate="tanh")
        if isinstance(x, mg.Tensor)
        else TF.gelu(x, approximate="tanh")
    )


UNARY = {
    "exp": (lambda x: x.exp(), None),
    "log": (lambda x: x.log(), "positive"),
    "sqrt": (lambda x: x.sqrt(), "positive"),
    "rsqrt": (lambda x: x.rsqrt(), "positive"),
    "abs": (lambda x: x.abs(), None),
    "abs_op": (lambda x: abs(x), None),
    "sign": (lambda x: x.sign(), None),
    "neg": (lambda x: -x, None),
    "relu": (lambda x: x.relu(), None),
    "tanh": (lambda x: x.tanh(), None),
    "sigmoid": (lambda x: x.sigmoid(), None),
    "clamp_min": (lambda x: x.clamp(min=-0.5), None),
    "clamp_max": (lambda x: x.clamp(max=0.7), None),
    "clamp_both": (lambda x: x.clamp(-0.5, 0.7), None),
    "clip": (lambda x: x.clip(-0.5, 0.7), None),
    "gelu": (lambda x: F.gelu(x) if isinstance(x, mg.Tensor) else TF.gelu(x), None),
    "gelu_tanh": (_gelu_tanh, None),
    "silu": (lambda x: F.silu(x) if isinstance(x, mg.Tensor) else TF.silu(x), None),
    "leaky_relu": (
        lambda x: F.leaky_relu(x, 0.1) if isinstance(x, mg.Tensor) else TF.leaky_relu(x, 0.1),
        None,
    ),
    "softplus": (
        lambda x: F.softplus(x, 2.0, 3.0) if isinstance(x, mg.Tensor) else TF.softplus(x, 2, 3),
        None,
    ),
}


def _unary_cases():
    out = []
    for op in UNARY:
        for shape in [(3, 4), ()]:
            out.append(pytest.param(op, shape, id=f"{op}-{len(shape)}d"))
    return out


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("op", "shape"), _unary_cases())
def test_unary_values_and_gradients(op, shape, dtype):
    fn, domain = UNARY[op]
    x = data(shape, "float64", 4)
    if domain == "positive":
        x = np.abs(x) + 0.1
    m, t = pair(torch, x, dtype, requires_grad=True)
    m_out, t_out = fn(m), fn(t)
    # transcendental functions: both libraries call a libm-quality kernel, within 2 ulps;
    # float16/bfloat16 are computed in float32 and rounded once in both.
    assert_same(m_out, t_out, rtol=2 * RTOL[dtype], atol=1e-7 if dtype == "float32" else 0)
    _backward(m_out, t_out, dtype)
    assert_grads([m], [t], rtol=4 * RTOL[dtype], atol=1e-7 if dtype == "float32" else 0)


# ------------------------------------------------------------------ ties and kinks (subgradients)
def _leaf_pair(values, dtype="float32"):
    return pair(torch, np.asarray(values, dtype=np.float64), dtype, requires_grad=True)


def test_maximum_minimum_split_the_gradient_on_ties():
    for name in ("maximum", "minimum"):
        ma, ta = _leaf_pair([1.0, 2.0, 3.0])
        mb, tb = _leaf_pair([1.0, 5.0, 0.0])
        getattr(ma, name)(mb).sum().backward()
        getattr(torch, name)(ta, tb).sum().backward()
        assert_grads([ma, mb], [ta, tb])


def test_max_min_of_all_elements_share_the_gradient_between_ties():
    for name in ("max", "min", "amax"):
        m, t = _leaf_pair([[3.0, 1.0, 3.0], [0.0, 3.0, 1.0]] if name != "min" else [[0.0, 1, 0]])
        getattr(m, name)().backward()
        getattr(t, name)().backward()
        assert_grads([m], [t])


def test_max_with_dim_gives_the_gradient_to_the_first_index_of_ties():
    m, t = _leaf_pair([[3.0, 1.0, 3.0], [2.0, 2.0, 1.0]])
    mv, mi = m.max(dim=1)
    tv, ti = t.max(dim=1)
    assert_same(mi, ti)
    (mv * mg.tensor([1.0, 2.0])).sum().backward()
    (tv * torch.tensor([1.0, 2.0])).sum().backward()
    assert_grads([m], [t])


@pytest.mark.parametrize("name", ["abs", "relu", "sign"])
def test_kinks_at_zero_give_zero_gradient(name):
    m, t = _leaf_pair([-1.0, 0.0, 2.0])
    getattr(m, name)().sum().backward()
    getattr(t, name)().sum().backward()
    assert_grads([m], [t])


def test_clamp_gradient_is_one_at_the_bounds():
    m, t = _leaf_pair([-1.0, -0.5, 0.0, 0.7, 1.0])
    m.clamp(-0.5, 0.7).sum().backward()
    t.clamp(-0.5, 0.7).sum().backward()
    assert_grads([m], [t])


def test_sqrt_at_zero_has_an_infinite_gradient():
    m, t = _leaf_pair([0.0, 4.0])
    m.sqrt().sum().backward()
    t.sqrt().sum().backward()
    assert_grads([m], [t])


@pytest.mark.parametrize("exponent", [2.0, 0.5, 1.0, 3])
def test_pow_gradient_at_zero_base(exponent):
    # d/dx x^2 at 0 is 0; x^0.5 at 0 is inf
    m, t = _leaf_pair([0.0, 1.5])
    (m**exponent).sum().backward()
    (t**exponent).sum().backward()
    assert_grads([m], [t])


def test_pow_zero_exponent_gradient_at_zero():
    m, t = _leaf_pair([0.0, 1.5])
    (m**0.0).sum().backward()
    (t**0.0).sum().backward()
    assert_grads([m], [t])


def test_pow_gradient_wrt_exponent_at_zero_base():
    # d/dy x^y = x^y log x: torch defines it as 0 where x == 0 and y >= 0
    mx, tx = _leaf_pair([0.0, 2.0])
    my, ty = _leaf_pair([2.0, 3.0])
    (mx**my).sum().backward()
    (tx**ty).sum().backward()
    assert_grads([mx, my], [tx, ty])


# ------------------------------------------------------------------ where
@pytest.mark.parametrize("dtype", FLOATS)
def test_where_values_and_gradients_with_broadcasting(dtype):
    cond = data((2, 3), "float64", 5) > 0
    mx, tx = pair(torch, data((2, 3), "float64", 6), dtype, requires_grad=True)
    my, ty = pair(torch, data((3,), "float64", 8), dtype, requires_grad=True)
    m_out = mg.where(mg.tensor(cond), mx, my)
    t_out = torch.where(torch.tensor(cond), tx, ty)
    assert_same(m_out, t_out)
    _backward(m_out, t_out, dtype)
    assert_grads([mx, my], [tx, ty])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scalar", [0.0, 2.5, 1])
def test_where_with_a_python_scalar_keeps_the_tensor_dtype(dtype, scalar):
    cond = data((2, 3), "float64", 5) > 0
    mx, tx = pair(torch, data((2, 3), "float64", 6), dtype)
    assert_same(mg.where(mg.tensor(cond), mx, scalar), torch.where(torch.tensor(cond), tx, scalar))
    assert_same(mg.where(mg.tensor(cond), scalar, mx), torch.where(torch.tensor(cond), scalar, tx))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64"])
def test_where_with_an_int_scalar_keeps_the_integer_dtype(dtype):
    cond = data((2, 3), "float64", 5) > 0
    mx, tx = pair(torch, data((2, 3), dtype, 6), dtype)
    assert_same(mg.where(mg.tensor(cond), mx, 2), torch.where(torch.tensor(cond), tx, 2))
    assert_same(mg.where(mg.tensor(cond), mx, 2.5), torch.where(torch.tensor(cond), tx, 2.5))


def test_where_with_two_scalars():
    cond = data((2, 3), "float64", 5) > 0
    assert_same(mg.where(mg.tensor(cond), 1.0, 0.0), torch.where(torch.tensor(cond), 1.0, 0.0))
    assert_same(mg.where(mg.tensor(cond), 1, 0), torch.where(torch.tensor(cond), 1, 0))


# ------------------------------------------------------------------ comparisons and predicates
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_comparisons_and_predicates(dtype):
    a, b = data((3, 4), dtype, 1), data((4,), dtype, 2)
    ma, ta = pair(torch, a, dtype)
    mb, tb = pair(torch, b, dtype)
    for fn in (
        lambda x, y: x < y,
        lambda x, y: x <= y,
        lambda x, y: x > y,
        lambda x, y: x >= y,
        lambda x, y: x == y,
        lambda x, y: x != y,
        lambda x, y: x > 0.5,
        lambda x, y: x.eq(y),
        lambda x, y: x.ne(1),
    ):
        assert_same(fn(ma, mb), fn(ta, tb))


def test_isnan_isinf_isfinite():
    values = [1.0, float("nan"), float("inf"), -float("inf"), 0.0]
    for dtype in FLOATS:
        m, t = pair(torch, values, dtype)
        for name in ("isnan", "isinf", "isfinite"):
            assert_same(getattr(m, name)(), getattr(t, name)())
            assert_same(getattr(mg, name)(m), getattr(torch, name)(t))
    m, t = pair(torch, [1, 2], "int64")
    assert_same(m.isnan(), t.isnan())
    assert_same(m.isfinite(), t.isfinite())


def test_allclose_matches_torch():
    a = data((5,), "float64", 1)
    for delta, rtol, atol in [(1e-6, 1e-5, 1e-8), (1e-3, 1e-5, 1e-8), (1e-3, 0, 1e-2)]:
        ma, ta = pair(torch, a, "float32")
        mb, tb = pair(torch, a + delta, "float32")
        assert mg.allclose(ma, mb, rtol, atol) == torch.allclose(ta, tb, rtol, atol)
    m, t = pair(torch, [float("nan")], "float32")
    assert mg.allclose(m, m) == torch.allclose(t, t)
    assert mg.allclose(m, m, equal_nan=True) == torch.allclose(t, t, equal_nan=True)


def test_top_level_functions_match_methods():
    x = np.abs(data((2, 3), "float64", 9)) + 0.1
    m, t = pair(torch, x, "float32")
    for name in ("exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu"):
        assert_same(getattr(mg, name)(m), getattr(torch, name)(t), rtol=2e-6)
    assert_same(mg.softmax(m, 1), torch.softmax(t, 1), rtol=2e-6)
    assert_same(mg.log_softmax(m, 0), torch.log_softmax(t, 0), rtol=2e-6)
    assert_same(mg.clamp(m, 0.5, 1.0), torch.clamp(t, 0.5, 1.0))
    assert_same(mg.maximum(m, m * 0.5), torch.maximum(t, t * 0.5))
    assert_same(mg.minimum(m, m * 0.5), torch.minimum(t, t * 0.5))
    assert_same(mg.matmul(m, m.T), torch.matmul(t, t.T), rtol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS)
def test_softplus_far_below_zero_keeps_tiny_values(dtype):
    # log(1 + e^-30) rounds 1 + e^-30 to 1 and gives 0; PyTorch's log1p gives e^-30
    values = [-30.0, -17.0, -8.0, 0.0, 8.0, 25.0]
    m, t = pair(torch, values, dtype, requires_grad=True)
    m_out, t_out = F.softplus(m), TF.softplus(t)
    assert_same(m_out, t_out, rtol=2 * RTOL[dtype])
    _backward(m_out, t_out, dtype)
    assert_grads([m], [t], rtol=4 * RTOL[dtype])


def test_zero_dim_gradient_from_two_paths_is_a_tensor_of_an_array():
    m, t = _leaf_pair(0.5)
    (m * 2 + m * 3).backward()
    (t * 2 + t * 3).backward()
    assert_grads([m], [t])


def test_zero_dim_comparison_gives_a_0d_bool_tensor():
    m, t = pair(torch, 0.5, "float32")
    assert_same(m > 0, t > 0)
    assert_same(m == m, t == t)


def test_clamp_with_tensor_bounds_values():
    m, t = pair(torch, [0.2, 1.5, -2.0, float("nan")], "float32")
    lo, hi = [0.0, 0.5, -1.5, 0.0], [0.1, 2.0, 2.0, 1.0]
    assert_same(m.clamp(mg.tensor(lo)), t.clamp(torch.tensor(lo)))
    assert_same(m.clamp(mg.tensor(lo), mg.tensor(hi)), t.clamp(torch.tensor(lo), torch.tensor(hi)))
    assert_same(m.clamp(1.0, 0.0), t.clamp(1.0, 0.0))  # min > max: everything is max


def test_clamp_gradient_reaches_tensor_bounds():
    m, t = _leaf_pair([0.2, 1.5, -2.0])
    mlo, tlo = _leaf_pair([0.0, 0.5, -1.5])
    mhi, thi = _leaf_pair([0.1, 2.0, 2.0])
    m.clamp(mlo, mhi).sum().backward()
    t.clamp(tlo, thi).sum().backward()
    assert_grads([m, mlo, mhi], [t, tlo, thi])


def test_nan_propagation():
    values = [[1.0, float("nan"), -2.0], [0.5, 3.0, -1.0]]
    m, t = pair(torch, values, "float32")
    for fn in (
        lambda x, L: x.maximum(L.zeros(3)),
        lambda x, L: x.minimum(L.zeros(3)),
        lambda x, L: x.max(),
        lambda x, L: x.max(1).values,
        lambda x, L: x.max(1).indices,
        lambda x, L: x.argmax(1),
        lambda x, L: x.relu(),
        lambda x, L: x.clamp(0, 1),
        lambda x, L: x.softmax(1),
        lambda x, L: x.mean(1),
        lambda x, L: x.norm(float("inf")),
    ):
        assert_same(fn(m, mg), fn(t, torch), rtol=2e-7)


def test_sign_of_nan_is_zero():
    m, t = pair(torch, [float("nan"), -1.0], "float32")
    assert_same(m.sign(), t.sign())


def test_infinities_in_softmax_and_logsumexp():
    for fn in (
        lambda L: L.tensor([[float("inf"), 1.0], [-float("inf"), -float("inf")]]).logsumexp(1),
        lambda L: L.tensor([[-float("inf"), -float("inf")], [0.0, -float("inf")]]).softmax(1),
        lambda L: L.tensor([[-float("inf"), 0.0]]).log_softmax(1),
    ):
        assert_same(fn(mg), fn(torch))
