"""roll, index_select, stacking, movedim, tile, repeat_interleave, take_along_dim, scatter,
index_fill / index_copy, diag, trace, outer, addmm, baddbmm, meshgrid: values against torch and
NumPy, gradients against float64 finite differences, and errors on bad input."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
A = rng.standard_normal((3, 4, 5))
M = rng.standard_normal((3, 4))


def both(a):
    return mg.tensor(a), torch.tensor(a)


def close(m, t):
    assert tuple(m.shape) == tuple(t.shape)
    np.testing.assert_allclose(m.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


def leaf(a):
    return mg.tensor(np.array(a, dtype=np.float64), requires_grad=True)


IDX = np.array([[0, 2, 1], [1, 1, 0]])  # scatter index along dim 1 of a (2, 4) tensor
CASES = [
    ("roll", lambda x: x.roll(2, 1)),
    ("roll_multi", lambda x: x.roll((1, -3), (0, 2))),
    ("roll_flat", lambda x: x.roll(7)),
    ("index_select", lambda x: x.index_select(2, x.new_tensor([4, 0, 4]).long())),
    ("movedim", lambda x: x.movedim((0, 2), (2, 0))),
    ("moveaxis", lambda x: x.moveaxis(0, -1)),
    ("swapaxes", lambda x: x.swapaxes(0, 2)),
    ("swapdims", lambda x: x.swapdims(1, 2)),
    ("tile", lambda x: x.tile((2, 1, 1, 2))),
    ("tile_short", lambda x: x.tile((2,))),
    ("repeat_interleave", lambda x: x.repeat_interleave(3, 1)),
    ("repeat_interleave_flat", lambda x: x.repeat_interleave(2)),
    ("reshape_as", lambda x: x.reshape_as(x.new_zeros(5, 12))),
    ("hstack", lambda x: (mg if isinstance(x, mg.Tensor) else torch).hstack([x, x[:, :2]])),
    ("vstack", lambda x: (mg if isinstance(x, mg.Tensor) else torch).vstack([x[0, 0], x[1, 1]])),
    (
        "column_stack",
        lambda x: (mg if isinstance(x, mg.Tensor) else torch).column_stack([x[0, 0], x[0].t()]),
    ),
    ("diag_of_vector", lambda x: x[0, 0].diag(2)),
    ("diag_below", lambda x: x[0].diag(-1)),
    ("diag_above", lambda x: x[0].diag(3)),
    ("trace", lambda x: x[1].trace()),
    ("outer", lambda x: x[0, 0].outer(x[1, 2])),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_values_match_torch(name, fn):
    m, t = both(A)
    close(fn(m), fn(t))


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_finite_differences(name, fn):
    assert gradcheck(fn, (leaf(A),))


def test_take_along_dim_broadcasts_like_torch():
    idx = rng.integers(0, 4, size=(1, 2, 5))
    (m, t), (mi, ti) = both(A), both(idx)
    close(m.take_along_dim(mi, 1), t.take_along_dim(ti, 1))
    close(mg.take_along_dim(m, mi), torch.take_along_dim(t, ti))
    assert gradcheck(lambda x: x.take_along_dim(mi, 1), (leaf(A),))


def test_scatter_values_and_gradients_like_torch():
    x, src = rng.standard_normal((2, 4)), rng.standard_normal((2, 3))
    idx = np.array([[0, 2, 3], [1, 3, 0]])  # distinct per row: a deterministic write
    tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(src, requires_grad=True)
    mx, ms = leaf(x), leaf(src)
    w = rng.standard_normal((2, 4))
    for fn in (
        lambda a, b, i: a.scatter(1, i, b),
        lambda a, b, i: a.scatter_add(1, i, b),
        lambda a, b, i: a.scatter(1, i, value=2.5) * b.sum(),
    ):
        out_t = fn(tx, ts, torch.tensor(idx))
        out_m = fn(mx, ms, mg.tensor(idx))
        close(out_m.detach(), out_t.detach())
        gt = torch.autograd.grad((out_t * torch.tensor(w)).sum(), (tx, ts))
        gm = mg.autograd.grad((out_m * mg.tensor(w)).sum(), (mx, ms))
        for a, b in zip(gm, gt, strict=True):
            close(a, b)
    rep = mg.tensor(IDX)  # repeated indices: scatter_add adds them up
    assert gradcheck(lambda a, b: a.scatter_add(1, rep, b), (leaf(x), leaf(src)))
    assert gradcheck(lambda a, b: a.scatter(1, mg.tensor(idx), b), (leaf(x), leaf(src)))


def test_scatter_on_0d_tensors_like_torch():
    for fn in (
        lambda x, i, s: x.scatter(0, i, s),
        lambda x, i, s: x.scatter_add(0, i, s),
        lambda x, i, s: x.scatter(0, i, value=-4.0),
    ):
        m = fn(mg.tensor(2.0), mg.tensor(0), mg.tensor(5.0))
        close(
            m,
            fn(
                torch.tensor(2.0, dtype=torch.float64),
                torch.tensor(0),
                torch.tensor(5.0, dtype=torch.float64),
            ),
        )


def test_scatter_in_place_writes_self():
    x = mg.zeros(2, 4)
    out = x.scatter_(1, mg.tensor([[3], [0]]), mg.tensor([[1.0], [2.0]]))
    assert out is x
    np.testing.assert_array_equal(x.numpy(), [[0, 0, 0, 1], [2, 0, 0, 0]])
    x.scatter_add_(0, mg.tensor([[1, 1, 1, 1]]), mg.ones(1, 4))
    np.testing.assert_array_equal(x.numpy(), [[0, 0, 0, 1], [3, 1, 1, 1]])


def test_index_fill_and_index_copy_like_torch():
    (m, t) = both(M)
    idx = [2, 0]
    close(m.index_fill(0, mg.tensor(idx), -1.0), t.index_fill(0, torch.tensor(idx), -1.0))
    src = rng.standard_normal((3, 2))
    close(
        m.index_copy(1, mg.tensor(idx), mg.tensor(src)),
        t.index_copy(1, torch.tensor(idx), torch.tensor(src)),
    )
    y = mg.tensor(M)
    y.index_fill_(1, mg.tensor([3]), 0.0).index_copy_(
        0, mg.tensor([1]), mg.ones(1, 4, dtype=mg.float64)
    )
    close(
        y,
        t.index_fill(1, torch.tensor([3]), 0.0).index_copy(
            0, torch.tensor([1]), torch.ones(1, 4, dtype=torch.float64)
        ),
    )
    assert gradcheck(
        lambda a, s: a.index_copy(1, mg.tensor(idx), s).index_fill(0, mg.tensor([1]), 3.0),
        (leaf(M), leaf(src)),
    )


def test_addmm_and_baddbmm_like_torch():
    x, a, b = rng.standard_normal(5), rng.standard_normal((3, 4)), rng.standard_normal((4, 5))
    (mx, tx), (ma, ta), (mb, tb) = both(x), both(a), both(b)
    close(mg.addmm(mx, ma, mb, beta=0.5, alpha=2.0), torch.addmm(tx, ta, tb, beta=0.5, alpha=2.0))
    nan = mg.full((3, 5), float("nan"), dtype=mg.float64)
    assert not mg.addmm(nan, ma, mb, beta=0).isnan().any()  # beta=0 ignores the input
    bx, b1, b2 = (rng.standard_normal(s) for s in ((2, 3, 5), (2, 3, 4), (2, 4, 5)))
    (m0, t0), (m1, t1), (m2, t2) = both(bx), both(b1), both(b2)
    close(m0.baddbmm(m1, m2, beta=-1, alpha=0.5), t0.baddbmm(t1, t2, beta=-1, alpha=0.5))
    assert gradcheck(
        lambda p, q, r: p.baddbmm(q, r, beta=0.3, alpha=-2), (leaf(bx), leaf(b1), leaf(b2))
    )
    assert gradcheck(lambda p, q, r: mg.addmm(p, q, r, alpha=3), (leaf(x), leaf(a), leaf(b)))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_like_torch(indexing):
    a, b, c = np.arange(2.0), np.arange(3.0), np.arange(4.0)
    ms = mg.meshgrid(mg.tensor(a), mg.tensor(b), mg.tensor(c), indexing=indexing)
    ts = torch.meshgrid(torch.tensor(a), torch.tensor(b), torch.tensor(c), indexing=indexing)
    for m, t in zip(ms, ts, strict=True):
        close(m, t)


def test_functions_match_methods():
    x = mg.tensor(M)
    close(mg.roll(x, 1, 0), torch.roll(torch.tensor(M), 1, 0))
    close(mg.t(x), torch.t(torch.tensor(M)))
    close(mg.broadcast_to(x[0], (2, 4)), torch.broadcast_to(torch.tensor(M)[0], (2, 4)))
    close(mg.diag(x), torch.diag(torch.tensor(M)))
    close(mg.trace(x[:, :3]), torch.trace(torch.tensor(M)[:, :3]))


def test_bad_input_is_refused_with_a_clear_error():
    x = mg.tensor(M)
    with pytest.raises(IndexError, match="dim 5"):
        x.roll(1, 5)
    with pytest.raises(RuntimeError, match="same length"):
        x.roll((1, 2), 0)
    with pytest.raises(IndexError, match="index_select"):
        x.index_select(0, mg.tensor([3]))
    with pytest.raises(RuntimeError, match="int64"):
        x.scatter(0, mg.tensor([[0.0]]), 1.0)
    with pytest.raises(RuntimeError, match="as many dims"):
        x.scatter(0, mg.tensor([0]), 1.0)
    with pytest.raises(RuntimeError, match="1-d or 2-d"):
        mg.tensor(A).diag()
    with pytest.raises(RuntimeError, match="matrix"):
        x[0].trace()
    with pytest.raises(RuntimeError, match="1-d"):
        x.outer(x)
    with pytest.raises(RuntimeError, match="matrices"):
        mg.addmm(x, x[0], x)
    with pytest.raises(RuntimeError, match="indexing"):  # (PyTorch's type)
        mg.meshgrid(x[0], indexing="yx")
    with pytest.raises(RuntimeError, match="must have shape"):
        x.index_copy(0, mg.tensor([0]), mg.ones(4, dtype=mg.float64))
    with pytest.raises(RuntimeError, match="non-negative"):
        x.repeat_interleave(-1)
