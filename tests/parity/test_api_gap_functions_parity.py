"""PyTorch parity of the functions and forms added to close API gaps: index_reduce, as_strided,
angle, trapezoid / cumulative_trapezoid, renorm, the in-place trig forms and the shifts in place,
out= on extrema, and the calls both refuse. Values, dtypes, gradients and exception types."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")

RNG = np.random.default_rng(3)
A = RNG.standard_normal((3, 4))
S = RNG.standard_normal((5, 4))
IDX = np.array([2, 0, 2, 1, 0])

CASES = {
    "index_reduce_prod": lambda L, a, s: a.index_reduce(0, L.tensor(IDX), s, "prod"),
    "index_reduce_mean": lambda L, a, s: a.index_reduce(0, L.tensor(IDX), s, "mean"),
    "index_reduce_amax_no_self": lambda L, a, s: a.index_reduce(
        0, L.tensor(IDX), s, "amax", include_self=False
    ),
    "index_reduce_amin": lambda L, a, s: a.index_reduce(0, L.tensor(IDX), s, "amin"),
    "as_strided_overlap": lambda L, a, s: a.as_strided((4, 3), (2, 1), 1) * 2,
    "as_strided_zero_stride": lambda L, a, s: s.as_strided((3, 4), (0, 1), 3),
    "angle": lambda L, a, s: a.angle(),
    "trapezoid_x": lambda L, a, s: L.trapezoid(a, L.tensor([0.0, 0.5, 2.0, 2.5], dtype=a.dtype)),
    "trapezoid_dx": lambda L, a, s: L.trapezoid(a, dx=0.3, dim=0),
    "trapz": lambda L, a, s: L.trapz(s, dx=2.0),
    "cumulative_trapezoid": lambda L, a, s: L.cumulative_trapezoid(s, dim=0),
    "renorm": lambda L, a, s: L.renorm(a, 1, 1, 0.5),
    "asin_": lambda L, a, s: (a / 4).asin_(),
    "acos_": lambda L, a, s: (a / 4).acos_(),
    "atan_": lambda L, a, s: (a * 1).atan_(),
    "true_divide_": lambda L, a, s: (a * 1).true_divide_(s[:3]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_value_and_gradient_match_pytorch(name):
    fn = CASES[name]
    ma = mg.tensor(A, requires_grad=True)
    ms = mg.tensor(S, requires_grad=True)
    ta = torch.tensor(A, requires_grad=True)
    ts = torch.tensor(S, requires_grad=True)
    mine, theirs = fn(mg, ma, ms), fn(torch, ta, ts)
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    weights = RNG.standard_normal(tuple(mine.shape))
    (mine * mg.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for m, t in ((ma, ta), (ms, ts)):
        if t.grad is None:
            assert m.grad is None or not m.grad.numpy().any()
        else:
            np.testing.assert_allclose(m.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_integer_dtypes_of_new_functions_match_pytorch():
    for L in (mg, torch):
        assert str(L.trapezoid(L.tensor([1, 2, 4])).dtype).endswith("float32")
        assert str(L.angle(L.tensor([1, -2])).dtype).endswith("float32")
    mine = mg.tensor([1, 2, 3]).index_reduce(0, mg.tensor([0, 0]), mg.tensor([2, 3]), "mean")
    theirs = torch.tensor([1, 2, 3]).index_reduce(
        0, torch.tensor([0, 0]), torch.tensor([2, 3]), "mean"
    )
    assert mine.tolist() == theirs.tolist()


def test_shift_assignments_match_pytorch():
    for L in (mg, torch):
        x = L.tensor([1, 2, 3], dtype=L.int16)
        x <<= 3
        x >>= 1
        assert x.tolist() == [4, 8, 12]


def test_max_out_pair_matches_pytorch():
    results = []
    for L in (mg, torch):
        v, i = L.empty(4), L.empty(4, dtype=L.int64)
        L.max(L.tensor(A, dtype=L.float32), 0, out=(v, i))
        results.append((v.tolist(), i.tolist()))
    assert results[0] == results[1]


REFUSED = {
    "logsumexp_no_dim": lambda L: L.logsumexp(L.ones(3)),
    "logcumsumexp_int": lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    "nanmean_int": lambda L: L.nanmean(L.tensor([1, 2])),
    "lerp_mixed": lambda L: L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5),
    "addcdiv_int": lambda L: L.addcdiv(L.ones(2), L.tensor([1, 2]), L.tensor([1, 2])),
    "meshgrid_mixed": lambda L: L.meshgrid(L.ones(2), L.tensor([1, 2]), indexing="ij"),
    "isposinf_float_out": lambda L: L.isposinf(L.ones(2), out=L.empty(2)),
    "nonzero_int32_out": lambda L: L.nonzero(L.ones(2), out=L.empty(0, dtype=L.int32)),
    "amax_double_out": lambda L: L.amax(L.ones(2), 0, out=L.empty((), dtype=L.float64)),
    "as_strided_out_of_bounds": lambda L: L.arange(6.0).as_strided((2, 3), (1, 2), 1),
    "index_reduce_sum": lambda L: L.ones(2).index_reduce(0, L.tensor([0]), L.ones(1), "sum"),
    "trapezoid_points": lambda L: L.trapezoid(L.ones(2, 3), L.tensor([0.0, 1.0]), dim=1),
    "float_shift_inplace": lambda L: L.ones(2).bitwise_left_shift_(1),
    "int_asin_": lambda L: L.tensor([1, 2]).asin_(),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_pytorchs_exception_type(name):
    with pytest.raises(Exception) as theirs:
        REFUSED[name](torch)
    with pytest.raises(Exception) as mine:
        REFUSED[name](mg)
    assert type(mine.value) is type(theirs.value), (mine.value, theirs.value)
