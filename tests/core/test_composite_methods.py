"""Tensor methods composed of existing ops (tensor_composites.py) and their mg.* forms: values
against NumPy, gradients against float64 central differences (gradcheck), and the integer rules
of the shift and reflected bitwise operators."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck


def _t(a, requires_grad: bool = True) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


RNG = np.random.default_rng(0)
A, B = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))


@pytest.mark.parametrize(
    "name, x, reference",
    [
        ("asinh", [-30.0, -1.0, 0.0, 0.5, 40.0], np.arcsinh),
        ("acosh", [1.0, 1.5, 30.0], np.arccosh),
        ("atanh", [-0.9, 0.0, 0.5], np.arctanh),
    ],
)
def test_inverse_hyperbolic_values_and_gradients(name, x, reference) -> None:
    t = _t(x)
    np.testing.assert_allclose(getattr(mg, name)(t).detach().numpy(), reference(np.array(x)))
    inside = _t([v for v in x if name != "acosh" or v > 1])
    assert gradcheck(lambda u: getattr(u, name)(), (inside,))
    assert np.isnan(mg.tensor([0.5]).acosh().item()) and np.isnan(mg.tensor([2.0]).atanh().item())


def test_addr_addmv_addbmm_match_their_definitions_and_gradients() -> None:
    m, v1, v2 = _t(A), _t(RNG.standard_normal(3)), _t(RNG.standard_normal(4))
    np.testing.assert_allclose(
        m.addr(v1, v2, beta=2, alpha=3).detach().numpy(),
        2 * A + 3 * np.outer(v1.detach(), v2.detach()),
    )
    assert gradcheck(lambda a, b, c: a.addr(b, c, beta=0.5, alpha=2), (m, v1, v2))
    vec = _t(RNG.standard_normal(4))
    np.testing.assert_allclose(
        mg.addmv(v1, m, vec).detach().numpy(), v1.detach().numpy() + A @ vec.detach().numpy()
    )
    assert gradcheck(lambda a, b, c: a.addmv(b, c, alpha=-1), (v1, m, vec))
    b1, b2 = _t(RNG.standard_normal((2, 3, 5))), _t(RNG.standard_normal((2, 5, 4)))
    expected = A + np.einsum("bij,bjk->ik", b1.detach().numpy(), b2.detach().numpy())
    np.testing.assert_allclose(mg.addbmm(m, b1, b2).detach().numpy(), expected)
    assert gradcheck(lambda a, b, c: a.addbmm(b, c), (m, b1, b2))


def test_beta_zero_ignores_self_even_when_it_is_nan() -> None:
    nan = mg.full((2, 2), float("nan"), dtype=mg.float64)
    out = nan.addr(_t([1.0, 2.0], False), _t([3.0, 4.0], False), beta=0)
    np.testing.assert_array_equal(out.numpy(), np.outer([1.0, 2.0], [3.0, 4.0]))


def test_addcmul_addcdiv_and_inner() -> None:
    x, a, b = _t(A), _t(B), _t(np.abs(B) + 1)
    np.testing.assert_allclose(
        x.addcmul(a, b, value=0.5).detach().numpy(), A + 0.5 * B * (np.abs(B) + 1)
    )
    np.testing.assert_allclose(mg.addcdiv(x, a, b).detach().numpy(), A + B / (np.abs(B) + 1))
    assert gradcheck(lambda p, q, r: p.addcdiv(q, r, value=2), (x, a, b))
    c = _t(RNG.standard_normal((2, 5, 4)))
    np.testing.assert_allclose(mg.inner(x, c).detach().numpy(), np.inner(A, c.detach().numpy()))
    assert gradcheck(lambda p, q: p.inner(q), (x, c))


def test_aminmax_argwhere_msort_unique_consecutive() -> None:
    x = mg.tensor([[3.0, -1.0], [2.0, 5.0]])
    lo, hi = mg.aminmax(x)
    assert (lo.item(), hi.item()) == (-1.0, 5.0)
    assert mg.aminmax(x, dim=0, keepdim=True).max.tolist() == [[3.0, 5.0]]
    assert mg.argwhere(mg.tensor([[0, 1], [2, 0]])).tolist() == [[0, 1], [1, 0]]
    assert mg.msort(mg.tensor([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
    values, inverse, counts = mg.unique_consecutive(
        mg.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True
    )
    assert values.tolist() == [1, 2, 3, 1, 2]
    assert inverse.tolist() == [0, 0, 1, 1, 2, 3, 3, 4] and counts.tolist() == [2, 2, 1, 2, 1]
    rows = mg.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]).unique_consecutive(dim=0)
    assert rows.tolist() == [[1, 2], [3, 4], [1, 2]]


def test_unique_consecutive_along_a_dim_of_one_slice_keeps_it() -> None:
    x = mg.tensor([[1.0, 2.0, -1.0]])
    values, inverse, counts = x.unique_consecutive(return_inverse=True, return_counts=True, dim=0)
    assert values.tolist() == [[1.0, 2.0, -1.0]]
    assert inverse.tolist() == [0] and counts.tolist() == [1]
    cols = x.unique_consecutive(dim=1)  # three columns, each differing from the one before
    assert cols.tolist() == [[1.0, 2.0, -1.0]]
    slabs = mg.tensor([[[1, 2]], [[1, 2]], [[1, 3]]]).unique_consecutive(dim=0)
    assert slabs.tolist() == [[[1, 2]], [[1, 3]]]


def test_take_put_index_put_and_masked_scatter() -> None:
    x = _t(A)
    idx = mg.tensor([[0, 11], [5, 5]])
    np.testing.assert_array_equal(x.take(idx).detach().numpy(), A.reshape(-1)[[[0, 11], [5, 5]]])
    assert gradcheck(lambda u: u.take(idx), (x,))
    src = _t([1.0, 2.0, 3.0])
    flat = A.reshape(-1).copy()
    np.add.at(flat, [0, 0, 7], [1.0, 2.0, 3.0])
    out = x.put(mg.tensor([0, 0, 7]), src, accumulate=True)
    np.testing.assert_allclose(out.detach().numpy(), flat.reshape(3, 4))
    assert gradcheck(lambda u, s: u.put(mg.tensor([0, 0, 7]), s, accumulate=True), (x, src))
    rows, cols = mg.tensor([0, 2]), mg.tensor([1, 3])
    put_in = x.index_put((rows, cols), mg.tensor(9.0, dtype=mg.float64))
    expected = A.copy()
    expected[[0, 2], [1, 3]] = 9.0
    np.testing.assert_array_equal(put_in.detach().numpy(), expected)
    mask = mg.tensor([[True, False, True, False]] * 3)
    source = _t(np.arange(12.0).reshape(3, 4))
    scattered = x.masked_scatter(mask, source)
    expected = A.copy()
    expected[mask.numpy()] = np.arange(6.0)
    np.testing.assert_array_equal(scattered.detach().numpy(), expected)
    assert gradcheck(lambda u, s: u.masked_scatter(mask, s), (x, source))


def test_fill_diagonal_and_inplace_forms() -> None:
    assert mg.zeros(3, 3).fill_diagonal_(5).tolist() == np.diag([5.0] * 3).tolist()
    tall = mg.zeros(5, 2).fill_diagonal_(1, wrap=True)
    expected = np.zeros((5, 2))
    np.fill_diagonal(expected, 1, wrap=True)
    np.testing.assert_array_equal(tall.numpy(), expected)
    for name, ref in [("sigmoid_", lambda a: 1 / (1 + np.exp(-a))), ("tanh_", np.tanh),
                      ("relu_", lambda a: np.maximum(a, 0)), ("neg_", np.negative)]:  # fmt: skip
        t = mg.tensor(A)
        assert getattr(t, name)() is t
        np.testing.assert_allclose(t.numpy(), ref(A), rtol=1e-6)
    w = _t(A)
    y = w * 1
    y.sigmoid_()
    (y * _t(B, False)).sum().backward()
    s = 1 / (1 + np.exp(-A))
    np.testing.assert_allclose(w.grad.numpy(), B * s * (1 - s))


def test_positive_floor_divide_isposinf_isreal_nextafter() -> None:
    x = mg.tensor([-7.0, 7.0, float("inf"), -float("inf")])
    assert mg.positive(x) is x
    with pytest.raises(RuntimeError):
        mg.positive(mg.tensor([True]))
    assert mg.floor_divide(mg.tensor([-7, 7]), 2).tolist() == [-4, 3]
    assert mg.isposinf(x).tolist() == [False, False, True, False]
    assert mg.isneginf(x).tolist() == [False, False, False, True]
    assert mg.isreal(x).all().item()
    one = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    after = mg.nextafter(one, mg.tensor([2.0, 2.0], dtype=mg.float64))
    assert after.tolist() == [np.nextafter(1.0, 2.0), 2.0]
    after.sum().backward()
    assert one.grad.tolist() == [1.0, 0.0]  # no step where self == other


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.int8, mg.uint8])
def test_shifts_follow_pytorchs_rules_at_the_edges(dtype) -> None:
    np_dtype = dtype.numpy_dtype
    bits = np.dtype(np_dtype).itemsize * 8
    values = [1, 5, 100] if dtype == mg.uint8 else [-8, 1, 5]
    x = mg.tensor(values, dtype=dtype)
    for s in (-1, 0, 1, bits - 1, bits, bits + 5):
        left = (x << s).numpy()
        right = (x >> s).numpy()
        for v, l, r in zip(values, left, right, strict=True):
            inside = 0 <= s < bits
            wide_left = (v << s) % (1 << bits) if inside else 0
            if np.dtype(np_dtype).kind == "i" and wide_left >= 1 << (bits - 1):
                wide_left -= 1 << bits
            assert l == wide_left, (v, s)
            fill = (-1 if v < 0 else 0) if np.dtype(np_dtype).kind == "i" else 0
            assert r == (v >> s if inside else fill), (v, s)
        assert left.dtype == np_dtype and right.dtype == np_dtype


def test_reflected_bitwise_and_shift_operators() -> None:
    t = mg.tensor([1, 2, 6])
    assert (3 & t).tolist() == [1, 2, 2] and (3 | t).tolist() == [3, 3, 7]
    assert (5 ^ t).tolist() == [4, 7, 3]
    assert (1 << t).tolist() == [2, 4, 64] and (64 >> t).tolist() == [32, 16, 1]
    assert (True | mg.tensor([True, False])).tolist() == [True, True]
    assert (mg.tensor([True]) << 1).tolist() == [2]
    assert mg.bitwise_left_shift(t, mg.tensor([1, 0, 2])).tolist() == [2, 2, 24]
    with pytest.raises(NotImplementedError):
        mg.tensor([1.0]) << 1
    with pytest.raises(NotImplementedError):
        1.5 & t


def test_broadcast_tensors() -> None:
    a, b = mg.broadcast_tensors(mg.ones(2, 1), mg.arange(3.0))
    assert tuple(a.shape) == tuple(b.shape) == (2, 3)
    assert b.tolist() == [[0.0, 1.0, 2.0]] * 2


def test_embedding_scale_grad_by_freq_divides_by_the_count_in_the_batch() -> None:
    e = mg.nn.Embedding(5, 2, scale_grad_by_freq=True)
    idx = mg.tensor([[1, 1, 2], [1, 4, 1]])
    (e(idx) * mg.ones(2, 3, 2)).sum().backward()
    # index 1 appears 4 times: its 4 unit gradients sum to 4, divided by 4
    np.testing.assert_array_equal(e.weight.grad.numpy(), [[0, 0], [1, 1], [1, 1], [0, 0], [1, 1]])
