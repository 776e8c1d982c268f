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


def test_floor_divide_is_in_the_graph_but_not_differentiable():
    """floor(x / y) has no derivative in PyTorch: its result requires grad, and a backward
    through it raises; one that does not pass through it is unaffected."""
    x = mg.tensor([0.2, -1.1, 2.5], requires_grad=True)
    q = x // 0.7
    assert q.requires_grad and (2.0 // x).requires_grad
    np.testing.assert_array_equal(q.detach().numpy(), np.floor(np.array([0.2, -1.1, 2.5]) / 0.7))
    with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
        (q + x).sum().backward()
    y = x * 1.0
    y //= 2.0
    with pytest.raises(RuntimeError, match="floor_divide is not implemented"):
        y.sum().backward()
    x.grad = None
    (x.detach() // 0.7 + x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])


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


# ---------------------------------------------------------------- results that aliased their input
def test_max_and_min_over_a_zero_dim_tensor_return_a_new_tensor():
    for name in ("max", "min"):
        x = mg.tensor(1.0)
        v = getattr(x, name)(0)[0]
        v.add_(1)
        assert float(x) == 1.0 and float(v) == 2.0
    x = mg.tensor(1.5, requires_grad=True)
    (x.max(0).values * 3).backward()
    assert float(x.grad) == 3.0


ALIASES = {
    "max_dim": lambda x: x.max(0)[0] if x.ndim == 0 else x.max(-1, keepdim=True)[0],
    "expand_same": lambda x: x.expand(x.shape),
    "expand_as_self": lambda x: x.expand_as(x),
    "transpose_same": lambda x: x.transpose(0, -1),
    "t": lambda x: x.t(),
    "flatten": lambda x: x.flatten(),
    "float_same": lambda x: x.float(),
    "to_same": lambda x: x.to(x.dtype),
    "contiguous": lambda x: x.contiguous(),
    "squeeze_none": lambda x: x.squeeze(),
    "reshape_same": lambda x: x.reshape(x.shape),
}


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("op", list(ALIASES))
def test_ops_return_self_a_view_or_a_copy_as_torch(op, shape):
    """Whether the result is the input object, shares its memory, or neither: as in PyTorch."""
    torch = pytest.importorskip("torch")
    if op in ("t",) and len(shape) > 2:
        pytest.skip("t() is for <= 2 dims")
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    m, t = mg.tensor(a), torch.tensor(a)
    mo, to = ALIASES[op](m), ALIASES[op](t)
    assert (mo is m) == (to is t)
    t_shares = to.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    assert bool(np.may_share_memory(mo.numpy(), m.numpy())) == t_shares


# ---------------------------------------------------------------- 0-d results hold arrays
@pytest.mark.parametrize(
    "op",
    ["argmax_0", "argmin_0", "isfinite", "isnan", "isinf", "compare", "invert", "all", "any"],
)
def test_zero_dim_results_convert_to_numpy(op):
    torch = pytest.importorskip("torch")
    fn = {
        "argmax_0": lambda x: x[0].argmax(0),
        "argmin_0": lambda x: x[0].argmin(0),
        "isfinite": lambda x: x[0, 1].isfinite(),
        "isnan": lambda x: x[0, 1].isnan(),
        "isinf": lambda x: x[1, 1].isinf(),
        "compare": lambda x: x[0, 0] > 1,
        "invert": lambda x: ~(x[0, 0] > 1),
        "all": lambda x: (x[0] > 0).all(0),
        "any": lambda x: (x[0] > 0).any(),
    }[op]
    m, t = pair(torch, [[1.0, float("inf")], [2.0, 3.0]], "float32")
    out = fn(m)
    assert isinstance(out.numpy(), np.ndarray)
    assert_same(out, fn(t))


# ---------------------------------------------------------------- result dtypes
@pytest.mark.parametrize(
    "input_dtype,target_dtype",
    [
        ("float16", "float32"),
        ("float32", "float16"),
        ("float64", "float32"),
        ("bfloat16", "float16"),
    ],
)
@pytest.mark.parametrize("pos_weight", [None, 2.0])
def test_bce_with_logits_result_has_the_target_dtype(input_dtype, target_dtype, pos_weight):
    torch = pytest.importorskip("torch")
    mx, tx = pair(torch, [0.3, -1.2, 2.0], input_dtype, requires_grad=True)
    my, ty = pair(torch, [0.0, 0.7, 1.0], target_dtype)
    kw_m = {} if pos_weight is None else {"pos_weight": mg.full((3,), pos_weight)}
    kw_t = {} if pos_weight is None else {"pos_weight": torch.full((3,), pos_weight)}
    m_out = mg.nn.functional.binary_cross_entropy_with_logits(mx, my, **kw_m)
    t_out = torch.nn.functional.binary_cross_entropy_with_logits(tx, ty, **kw_t)
    assert_same(m_out, t_out, rtol=2e-2)
    m_out.backward()
    t_out.backward()
    assert_grads([mx], [tx], rtol=2e-2, atol=1e-3)


@pytest.mark.parametrize(
    "x_dtype,x_shape,y_dtype,y_shape",
    [
        ("float16", (3,), "float32", ()),
        ("float32", (), "float16", (3,)),
        ("int64", (3,), "float64", ()),
        ("int32", (3,), "int64", ()),
        ("float16", (), "float64", ()),
        ("bfloat16", (3,), "float16", (3,)),
    ],
)
def test_where_promotes_like_a_binary_op(x_dtype, x_shape, y_dtype, y_shape):
    torch = pytest.importorskip("torch")
    out = []
    for lib in (mg, torch):
        c = lib.tensor([True, False, True])
        x = lib.ones(x_shape, dtype=getattr(lib, x_dtype))
        y = lib.zeros(y_shape, dtype=getattr(lib, y_dtype))
        out.append(lib.where(c, x, y))
    assert_same(*out)


CLAMPS = [
    ("bool", (2,)),
    ("bool", (None, 1)),
    ("bool", (0.5,)),
    ("int8", (2,)),
    ("int8", (0.5,)),
    ("float16", (0.5,)),
    ("bool", ("t0", None)),
    ("int8", ("t0", None)),
    ("int8", ("t1", None)),
    ("float16", ("t0_f64", None)),
    ("float16", ("t1_f64", None)),
]


@pytest.mark.parametrize("dtype,bounds", CLAMPS)
def test_clamp_bounds_take_part_in_type_promotion(dtype, bounds):
    torch = pytest.importorskip("torch")
    out = []
    for lib in (mg, torch):
        named = {
            "t0": lib.tensor(1),
            "t1": lib.tensor([1, 1]),
            "t0_f64": lib.tensor(1.0, dtype=lib.float64),
            "t1_f64": lib.tensor([1.0, 1.0], dtype=lib.float64),
        }
        x = lib.tensor([1, 0]).to(getattr(lib, dtype))
        out.append(x.clamp(*[named.get(b, b) if isinstance(b, str) else b for b in bounds]))
    assert_same(*out)


@pytest.mark.parametrize("p", [float("inf"), float("-inf"), 2, "fro", 1, 0, 3])
def test_norm_over_everything_keeps_dims_with_keepdim(p):
    torch = pytest.importorskip("torch")
    m, t = pair(torch, [[3.0, -4.0], [1.0, 0.0]], "float32")
    assert_same(m.norm(p, keepdim=True), t.norm(p, keepdim=True), rtol=1e-6)


@pytest.mark.parametrize("name", ["addcmul_", "addcdiv_"])
def test_addcmul_and_addcdiv_compute_in_the_result_dtype(name):
    """bfloat16 operands into a float32 tensor: the product is not rounded to bfloat16."""
    torch = pytest.importorskip("torch")
    a = np.array([1.01, 2.03, 3.07])
    m1, t1 = pair(torch, a, "bfloat16")
    m2, t2 = pair(torch, a[::-1], "bfloat16")
    mx, tx = pair(torch, [0.5, 0.25, 1.0], "float32")
    getattr(mx, name)(m1, m2, value=0.5)
    getattr(tx, name)(t1, t2, value=0.5)
    assert_same(mx, tx)
    d1, d2 = t1.double(), t2.double()
    exact = 0.5 * d1 * d2 if name == "addcmul_" else 0.5 * d1 / d2
    np.testing.assert_allclose(mx.numpy(), np.array([0.5, 0.25, 1.0]) + exact.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- reductions of empty tensors
EMPTY_REDUCTIONS = {
    "sum": lambda x: x.sum(),
    "sum_1": lambda x: x.sum(1),
    "mean_0": lambda x: x.mean(0),
    "var_1": lambda x: x.var(1),
    "std_0": lambda x: x.std(0),
    "prod": lambda x: x.prod(),
    "prod_0": lambda x: x.prod(0),
    "prod_1": lambda x: x.prod(1),
    "max": lambda x: x.max(),
    "max_0": lambda x: x.max(0).values,
    "min_1": lambda x: x.min(1).values,
    "amax": lambda x: x.amax(),
    "amax_0": lambda x: x.amax(0),
    "amin_1": lambda x: x.amin(1),
    "argmax": lambda x: x.argmax(),
    "argmax_0": lambda x: x.argmax(0),
    "argmin_1": lambda x: x.argmin(1),
    "logsumexp_0": lambda x: x.logsumexp(0),
    "logsumexp_1": lambda x: x.logsumexp(1),
    "logsumexp_all": lambda x: x.logsumexp((0, 1)),
    "softmax_0": lambda x: x.softmax(0),
    "log_softmax_1": lambda x: x.log_softmax(1),
    "norm": lambda x: x.norm(),
    "norm_1": lambda x: x.norm(dim=1),
    "norm_p1_0": lambda x: x.norm(1, dim=0),
    "norm_inf": lambda x: x.norm(float("inf")),
    "norm_inf_0": lambda x: x.norm(float("inf"), dim=0),
    "norm_neg_inf_1": lambda x: x.norm(float("-inf"), dim=1),
    "all": lambda x: (x > 0).all(),
    "any_1": lambda x: (x > 0).any(1),
    "cumsum_0": lambda x: x.cumsum(0),
    "cumsum_1": lambda x: x.cumsum(1),
}


# the mean, var and std of nothing are NaN on purpose, and both libraries warn about it
@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore:.*degrees of freedom:UserWarning")
@pytest.mark.parametrize("shape", [(0, 3), (2, 0)])
@pytest.mark.parametrize("op", list(EMPTY_REDUCTIONS))
def test_reductions_of_empty_tensors_match_torch(op, shape):
    """Values (0, 1, nan, -inf, empty), or the same exception type where PyTorch refuses."""
    torch = pytest.importorskip("torch")
    fn = EMPTY_REDUCTIONS[op]
    m, t = pair(torch, np.zeros(shape), "float32", requires_grad=True)
    try:
        t_out = fn(t)
    except (RuntimeError, IndexError) as err:
        with pytest.raises(type(err)):
            fn(m)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mean of nothing
        m_out = fn(m)
    assert_same(m_out, t_out)
    if t_out.requires_grad:
        m_out.sum().backward()
        t_out.sum().backward()
        assert_grads([m], [t])


# ---------------------------------------------------------------- prod and cumsum
@pytest.mark.parametrize("zeros", [0, 1, 2])
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_prod_gradient_with_zeros(dim, zeros):
    """d prod / dx_i = product of the others: with one zero only that element gets a gradient,
    with two none does."""
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(zeros).standard_normal((3, 4))
    a[0, :zeros] = 0
    a[:zeros, 0] = 0
    m, t = pair(torch, a, "float64", requires_grad=True)
    m_out = m.prod() if dim is None else m.prod(dim)
    t_out = t.prod() if dim is None else t.prod(dim)
    assert_same(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    assert_grads([m], [t])
    if dim is None:
        np.testing.assert_allclose(m.grad.numpy(), numeric_grad(np.prod, a), atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "float16"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_values_dtypes_and_gradients(dim, dtype):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(7).standard_normal((3, 4))
    if dtype in ("int64", "bool"):
        a = a > 0 if dtype == "bool" else np.round(a * 3)
    m, t = pair(torch, a, dtype, requires_grad=dtype.startswith("float"))
    m_out, t_out = m.cumsum(dim), t.cumsum(dim)
    assert_same(m_out, t_out, rtol=1e-5 if dtype != "float16" else 5e-3)
    if m.requires_grad:
        w = np.random.default_rng(8).standard_normal((3, 4))
        (m_out * mg.tensor(w, dtype=m.dtype)).sum().backward()
        (t_out * torch.tensor(w, dtype=t.dtype)).sum().backward()
        assert_grads([m], [t], rtol=1e-5 if dtype != "float16" else 5e-3)


# ---------------------------------------------------------------- add/sub(alpha), index_add
def test_add_and_sub_with_alpha():
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 5.0], requires_grad=True)
        out = lib.add(x, y, alpha=2) + x.sub(y, alpha=0.5) + lib.sub(x, 1, alpha=3)
        out.sum().backward()
        if lib is mg:
            m_out, m_grads = out, (x.grad, y.grad)
    assert_same(m_out, out)
    assert_same(m_grads[0], x.grad)
    assert_same(m_grads[1], y.grad)
    assert_same(mg.tensor([1, 2]).add(mg.tensor([1, 1]), alpha=3), torch.tensor([4, 5]))
    with pytest.raises(RuntimeError, match="alpha"):
        mg.tensor([1, 2]).add(mg.tensor([1, 1]), alpha=0.5)


def test_index_add_accumulates_repeated_indices_and_passes_gradients():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (mg, torch):
        x = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]], requires_grad=True)
        s = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.index_add(1, lib.tensor([2, 2]), s, alpha=2)
        z = (x * 1).index_add_(0, lib.tensor([1, 0]), lib.ones(2, 3)) if lib is torch else None
        if lib is mg:
            z = (x * 1).index_add_(0, lib.tensor([1, 0]), lib.ones(2, 3))
        w = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        ((y + z) * w).sum().backward()
        results.append((y, z, x.grad, s.grad))
    for a, b in zip(*results):
        assert_same(a, b)
    # closed form: column 2 gets 2 * (1 + 2) and 2 * (3 + 4); source's gradient is 2 * w[:, 2]
    np.testing.assert_array_equal(results[0][0].detach().numpy()[:, 2], [2 + 6, 5 + 14])
    np.testing.assert_array_equal(results[0][3].numpy(), [[6, 6], [12, 12]])


@pytest.mark.parametrize(
    "bad",
    ["out_of_range", "count", "2d_index", "float_index", "dtype"],
)
def test_index_add_refuses_bad_arguments_as_torch(bad):
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        x = lib.zeros(2, 3)
        args = {
            "out_of_range": (1, lib.tensor([0, 5]), lib.ones(2, 2)),
            "count": (1, lib.tensor([0, 1]), lib.ones(2, 3)),
            "2d_index": (1, lib.tensor([[0, 1]]), lib.ones(2, 2)),
            "float_index": (1, lib.tensor([0.0, 1.0]), lib.ones(2, 2)),
            "dtype": (1, lib.tensor([0, 1]), lib.ones(2, 2, dtype=lib.float64)),
        }[bad]
        with pytest.raises((RuntimeError, IndexError)) as info:
            x.index_add(*args)
        if lib is mg:
            m_type = info.type
    assert m_type is info.type


# ---------------------------------------------------------------- small PyTorch rules
def test_integer_to_a_negative_integer_power_is_refused():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        mg.tensor([2, 3]) ** -1
    np.testing.assert_allclose((mg.tensor([2.0]) ** -1).numpy(), [0.5])


def test_mT_of_a_0d_tensor_is_itself_and_of_a_vector_is_refused():  # noqa: N802
    x = mg.tensor(3.0)
    assert x.mT.shape == () and float(x.mT) == 3.0
    with pytest.raises(RuntimeError, match="matrices"):
        _ = mg.tensor([1.0, 2.0]).mT
    np.testing.assert_array_equal(mg.ones(2, 3, 4).mT.shape, (2, 4, 3))


def test_setitem_of_a_one_element_tensor_into_a_scalar_slot():
    torch = pytest.importorskip("torch")
    for lib in (mg, torch):
        x = lib.zeros(2, 3, requires_grad=True)
        v = lib.tensor([[5.0]], requires_grad=True)
        y = x * 1
        y[0, 1] = v
        (y * lib.arange(6.0).reshape(2, 3)).sum().backward()
        if lib is mg:
            m = (y, x.grad, v.grad)
    for a, b in zip(m, (y, x.grad, v.grad)):
        assert_same(a, b)


# ---------------------------------------------------------------- pad with negative amounts
PADS = [(-1, 2), (2, -1), (-1, -1), (-2, 1, 1, -1), (1, -2, -1, 2), (-1, 0, 0, -2)]


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("amounts", PADS, ids=[str(p) for p in PADS])
def test_pad_with_negative_amounts_crops_as_torch(mode, amounts):
    """Constant and circular padding crop first and pad what is left; reflect and replicate
    index the uncropped input (PyTorch's results, gradients included)."""
    torch = pytest.importorskip("torch")
    shape = (1, 2, 5) if len(amounts) == 2 else (1, 2, 4, 5)  # PyTorch's supported ranks
    a = np.random.default_rng(3).standard_normal(shape)
    m, t = pair(torch, a, "float64", requires_grad=True)
    m_out = mg.nn.functional.pad(m, amounts, mode=mode)
    t_out = torch.nn.functional.pad(t, amounts, mode=mode)
    assert_same(m_out, t_out)
    w = np.random.default_rng(4).standard_normal(tuple(t_out.shape))
    (m_out * mg.tensor(w)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    assert_grads([m], [t])


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_refuses_amounts_that_crop_below_nothing(mode):
    with pytest.raises(RuntimeError, match="leave -1 elements"):
        mg.nn.functional.pad(mg.zeros(1, 2, 5), (-3, -3), mode=mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_reflect_and_replicate_pad_refuse_amounts_that_crop_to_nothing(mode):
    with pytest.raises(RuntimeError, match="leave 0 elements"):
        mg.nn.functional.pad(mg.zeros(1, 2, 5), (-3, -2), mode=mode)


@pytest.mark.parametrize("mode", ["constant", "circular"])
def test_constant_and_circular_pad_crop_to_an_empty_dim(mode):
    assert mg.nn.functional.pad(mg.zeros(1, 2, 5), (-3, -2), mode=mode).shape == (1, 2, 0)


# ---------------------------------------------------------------- linear on integers
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8"])
def test_linear_on_integers_computes_in_that_dtype(dtype):
    torch = pytest.importorskip("torch")
    out = []
    for lib in (mg, torch):
        dt = getattr(lib, dtype)
        x = lib.tensor([[1, 2], [3, -4]], dtype=dt)
        w = lib.tensor([[1, 1], [2, -1], [0, 3]], dtype=dt)
        b = lib.tensor([1, 2, 3], dtype=dt)
        out.append((lib.nn.functional.linear(x, w), lib.nn.functional.linear(x, w, b)))
    for a, b in zip(*out):
        assert_same(a, b)
    with pytest.raises(NotImplementedError, match="Bool"):  # PyTorch's addmm has no bool case
        mg.nn.functional.linear(mg.ones(2, 2, dtype=mg.bool), mg.ones(2, 2, dtype=mg.bool))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)])
def test_argmax_over_everything_keeps_dims_with_keepdim(name, shape):
    torch = pytest.importorskip("torch")
    m, t = pair(torch, np.random.default_rng(5).standard_normal(shape), "float32")
    assert_same(getattr(m, name)(keepdim=True), getattr(t, name)(keepdim=True))


@pytest.mark.parametrize(
    "reduce",
    [
        lambda x, dt: x.sum(0, dtype=dt),
        lambda x, dt: x.sum(dtype=dt),
        lambda x, dt: mg.sum(x, 0, dtype=dt),
        lambda x, dt: x.nansum(dtype=dt),
        lambda x, dt: x.prod(dtype=dt),
        lambda x, dt: x.cumsum(0, dtype=dt),
        lambda x, dt: x.cumprod(1, dtype=dt),
    ],
)
def test_reducing_a_tensor_that_requires_grad_into_an_integer_dtype_is_refused(reduce):
    x = mg.tensor([[1.5, 2.5], [0.5, 3.0]], requires_grad=True)
    for dt, name in ((mg.int64, "Long"), (mg.bool, "Bool")):
        with pytest.raises(RuntimeError, match=f"Autograd not support dtype: {name}"):
            reduce(x, dt)
    with mg.no_grad():
        assert reduce(x, mg.int64).dtype is mg.int64  # without a graph it is a plain cast
    assert reduce(x.detach(), mg.int64).dtype is mg.int64
    assert reduce(x, mg.float64).requires_grad  # a floating dtype keeps the gradient


def test_mean_of_an_integer_dtype_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="mean"):
        mg.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="mean"):
        mg.tensor([1.0, 2.0]).mean(dtype=mg.int64)
