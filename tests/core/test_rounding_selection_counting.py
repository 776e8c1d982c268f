"""Rounding, nan_to_num, isclose, lerp, amax/amin, cumprod, masked_fill/select, where, nonzero,
unique and bincount: values against NumPy/torch, gradients against finite differences."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(0)


def _f64(a, requires_grad=True):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round", "frac"])
def test_rounding_values_match_torch(name):
    torch = pytest.importorskip("torch")
    a = np.array([-2.5, -1.5, -0.7, -0.5, 0.0, 0.5, 1.5, 2.5, 3.49, np.inf, -np.inf], np.float32)
    got = getattr(mg, name)(mg.tensor(a)).numpy()
    want = getattr(torch, name)(torch.tensor(a)).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("decimals", [-1, 1, 2])
def test_round_with_decimals_matches_torch(decimals):
    torch = pytest.importorskip("torch")
    a = RNG.normal(scale=50, size=20).astype(np.float32)
    got = mg.round(mg.tensor(a), decimals=decimals).numpy()
    want = torch.round(torch.tensor(a), decimals=decimals).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "round"])
def test_rounding_gradient_is_zero(name):
    x = _f64([-1.3, 0.2, 2.7])
    getattr(x, name)().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)


def test_frac_gradient_is_identity():
    x = _f64([-1.3, 0.2, 2.7])
    assert gradcheck(lambda t: t.frac() * t, (x,))


def test_rounding_integers_pass_through_and_bool_is_refused():
    i = mg.tensor([1, -2, 3])
    assert mg.floor(i).dtype == mg.int64 and mg.floor(i).tolist() == [1, -2, 3]
    with pytest.raises(NotImplementedError, match="bool"):
        mg.floor(mg.tensor([True]))
    with pytest.raises(NotImplementedError, match="decimals"):
        mg.round(i, decimals=-1)


def test_inplace_rounding_and_unary_change_self():
    a = np.array([-1.6, -0.4, 0.4, 2.5], np.float32)
    for name, ref in [
        ("floor_", np.floor),
        ("ceil_", np.ceil),
        ("trunc_", np.trunc),
        ("round_", np.round),
        ("abs_", np.abs),
        ("sign_", np.sign),
        ("exp_", np.exp),
    ]:
        x = mg.tensor(a.copy())
        assert getattr(x, name)() is x
        np.testing.assert_allclose(x.numpy(), ref(a), rtol=1e-6)
    x = mg.tensor(np.abs(a))
    x.sqrt_()
    np.testing.assert_allclose(x.numpy(), np.sqrt(np.abs(a)), rtol=1e-6)


def test_inplace_exp_in_a_graph_gives_the_gradient():
    x = _f64([0.1, -0.4])
    y = x * 1.0
    y.exp_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.1, -0.4]))


def test_nan_to_num_matches_torch_and_gradient_skips_replaced():
    torch = pytest.importorskip("torch")
    a = np.array([np.nan, np.inf, -np.inf, 1.5], np.float32)
    for kw in [{}, {"nan": 2.0, "posinf": 9.0, "neginf": -9.0}]:
        got = mg.nan_to_num(mg.tensor(a), **kw).numpy()
        np.testing.assert_array_equal(got, torch.nan_to_num(torch.tensor(a), **kw).numpy())
    x = _f64(a)
    x.nan_to_num().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 0, 1])


def test_isclose_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([1.0, 1.0 + 1e-6, 1.1, np.inf, np.nan, -np.inf], np.float32)
    b = np.array([1.0, 1.0, 1.0, np.inf, np.nan, np.inf], np.float32)
    for kw in [{}, {"equal_nan": True}, {"rtol": 0.2, "atol": 0.0}]:
        got = mg.isclose(mg.tensor(a), mg.tensor(b), **kw).numpy()
        np.testing.assert_array_equal(got, torch.isclose(torch.tensor(a), torch.tensor(b), **kw))
    with pytest.raises(ValueError, match="rtol"):
        mg.isclose(mg.tensor(a), mg.tensor(b), rtol=-1)


def test_lerp_values_and_gradients():
    s, e, w = (_f64(RNG.normal(size=(2, 3))) for _ in range(3))
    np.testing.assert_allclose(
        mg.lerp(s, e, 0.3).detach().numpy(), s.detach().numpy() + 0.3 * (e - s).detach().numpy()
    )
    assert gradcheck(lambda a, b, c: mg.lerp(a, b, c), (s, e, w))
    assert gradcheck(lambda a, b: a.lerp(b, 0.25), (s, e))
    with pytest.raises(TypeError, match="end"):
        s.lerp(1.0, 0.5)


def test_amax_amin_functions_split_gradient_among_ties_like_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
    for fn in ["amax", "amin"]:
        x, t = _f64(a), torch.tensor(a, requires_grad=True)
        getattr(mg, fn)(x, dim=1, keepdim=True).sum().backward()
        getattr(torch, fn)(t, dim=1, keepdim=True).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
        assert getattr(mg, fn)(mg.tensor(a)).item() == getattr(torch, fn)(torch.tensor(a)).item()


def test_cumprod_values_and_gradient_with_and_without_zeros():
    torch = pytest.importorskip("torch")
    a = RNG.normal(size=(3, 4))
    for dim in (0, 1, -1):
        np.testing.assert_allclose(
            mg.cumprod(mg.tensor(a), dim).numpy(), np.cumprod(a, axis=dim), rtol=1e-12
        )
        assert gradcheck(lambda t, d=dim: t.cumprod(d), (_f64(a),))
    z = a.copy()
    z[0, 1] = 0.0
    z[1, 0] = z[1, 2] = 0.0
    assert gradcheck(lambda t: t.cumprod(1), (_f64(z),))
    x, t = _f64(z), torch.tensor(z, requires_grad=True)
    x.cumprod(1).sum().backward()
    t.cumprod(1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    assert mg.cumprod(mg.tensor([1, 2, 3]), 0).dtype == mg.int64


def test_masked_fill_where_and_masked_select():
    torch = pytest.importorskip("torch")
    a = RNG.normal(size=(2, 3)).astype(np.float32)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(
        mg.masked_fill(mg.tensor(a), mg.tensor(m), -1.0).numpy(),
        torch.masked_fill(torch.tensor(a), torch.tensor(m), -1.0).numpy(),
    )
    np.testing.assert_array_equal(
        mg.tensor(a).where(mg.tensor(m), 0.0).numpy(), np.where(m, a, 0.0)
    )
    np.testing.assert_array_equal(
        mg.masked_select(mg.tensor(a), mg.tensor(m)).numpy(),
        torch.masked_select(torch.tensor(a), torch.tensor(m)).numpy(),
    )
    x = _f64(a)
    x.masked_select(mg.tensor(m)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.broadcast_to(m, a.shape).astype(float))
    with pytest.raises(RuntimeError, match="mask"):
        mg.masked_select(mg.tensor(a), mg.tensor([1, 0, 1]))


def test_nonzero_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[0, 1, 0], [2, 0, 3]])
    np.testing.assert_array_equal(mg.nonzero(mg.tensor(a)).numpy(), torch.nonzero(torch.tensor(a)))
    for got, want in zip(
        mg.tensor(a).nonzero(as_tuple=True), torch.tensor(a).nonzero(as_tuple=True), strict=True
    ):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.dtype == mg.int64


def test_unique_matches_torch():
    torch = pytest.importorskip("torch")
    a = np.array([[3, 1, 3], [2, 1, 7]])
    got = mg.unique(mg.tensor(a), return_inverse=True, return_counts=True)
    want = torch.unique(torch.tensor(a), return_inverse=True, return_counts=True)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(mg.tensor(a).unique().numpy(), [1, 2, 3, 7])


def test_bincount_matches_torch_and_refuses_bad_input():
    torch = pytest.importorskip("torch")
    a = np.array([0, 1, 1, 4])
    w = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(
        mg.bincount(mg.tensor(a)).numpy(), torch.bincount(torch.tensor(a))
    )
    got = mg.bincount(mg.tensor(a), weights=mg.tensor(w), minlength=7)
    want = torch.bincount(torch.tensor(a), weights=torch.tensor(w), minlength=7)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype.name == str(want.dtype).removeprefix("torch.")
    with pytest.raises(RuntimeError, match="non-negative"):
        mg.bincount(mg.tensor([-1, 2]))
    with pytest.raises(RuntimeError, match="1-d"):
        mg.bincount(mg.tensor([[1, 2]]))
    with pytest.raises(RuntimeError, match="weights"):
        mg.bincount(mg.tensor([1, 2]), weights=mg.tensor([1.0]))
