"""torch.* aliases of F with aten's signatures, the window functions, lu_unpack, histogramdd and
the scatters, called the same way on minigenesis and on the installed PyTorch (float64)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)


def _pair(*arrays):
    return [mg.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def _close(ours, theirs):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                               atol=1e-12)  # fmt: skip


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_with_int_reductions(reduction):
    x, y, z = RNG.normal(size=(3, 4, 5))
    t = np.sign(RNG.normal(size=4))
    (mx, my, mz, mt), (tx, ty, tz, tt) = _pair(x, y, z, t)
    for name, args in [
        ("cosine_embedding_loss", lambda a, b, c, s: (a, b, s, 0.1, reduction)),
        ("hinge_embedding_loss", lambda a, b, c, s: (a[:, 0], s, 0.5, reduction)),
        ("margin_ranking_loss", lambda a, b, c, s: (a[:, 0], b[:, 0], s, 0.2, reduction)),
        ("triplet_margin_loss", lambda a, b, c, s: (a, b, c, 1.0, 2.0, 1e-6, True, reduction)),
        ("poisson_nll_loss", lambda a, b, c, s: (a, b.exp(), True, True, 1e-8, reduction)),
        ("kl_div", lambda a, b, c, s: (a.log_softmax(-1), b.softmax(-1), reduction)),
    ]:
        _close(
            getattr(mg, name)(*args(mx, my, mz, mt)), getattr(torch, name)(*args(tx, ty, tz, tt))
        )


def test_norms_embedding_and_shuffles():
    x = RNG.normal(size=(2, 4, 3, 3))
    w, b, mean, var = (
        RNG.normal(size=4),
        RNG.normal(size=4),
        RNG.normal(size=4),
        RNG.uniform(1, 2, 4),
    )
    (mx, mw, mb, mm, mv), (tx, tw, tb, tm, tv) = _pair(x, w, b, mean, var)
    _close(mg.batch_norm(mx, mw, mb, mm, mv, False, 0.1, 1e-5, False),
           torch.batch_norm(tx, tw, tb, tm, tv, False, 0.1, 1e-5, False))  # fmt: skip
    _close(mg.instance_norm(mx, mw, mb, None, None, True, 0.1, 1e-5, False),
           torch.instance_norm(tx, tw, tb, None, None, True, 0.1, 1e-5, False))  # fmt: skip
    _close(mg.group_norm(mx, 2, mw, mb, 1e-5), torch.group_norm(tx, 2, tw, tb, 1e-5))
    _close(mg.pixel_shuffle(mx, 2), torch.pixel_shuffle(tx, 2))
    _close(mg.channel_shuffle(mx, 2), torch.channel_shuffle(tx, 2))
    weight = RNG.normal(size=(6, 3))
    (mwt,), (twt,) = _pair(weight)
    idx = [[1, 5], [0, 1]]
    _close(mg.embedding(mwt, mg.tensor(idx), 1), torch.embedding(twt, torch.tensor(idx), 1))


def test_ctc_loss_with_atens_reduction():
    log_probs = RNG.normal(size=(6, 2, 4))
    (mlp,), (tlp,) = _pair(log_probs)
    targets, lengths = [[1, 2], [3, 3]], [6, 5]
    ours = mg.ctc_loss(mlp.log_softmax(-1), mg.tensor(targets), lengths, [2, 2], 0, 2, False)
    theirs = torch.ctc_loss(
        tlp.log_softmax(-1), torch.tensor(targets), lengths, [2, 2], 0, 2, False
    )
    _close(ours, theirs)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])  # fmt: skip
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, periodic):
    for n in (0, 1, 2, 7):
        ours = getattr(mg, name)(n, periodic, dtype=mg.float64)
        _close(ours, getattr(torch, name)(n, periodic, dtype=torch.float64))


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 3)])
def test_lu_unpack(shape):
    a = RNG.normal(size=shape)
    lu, piv = mg.linalg.lu_factor(mg.tensor(a))
    tlu, tpiv = torch.linalg.lu_factor(torch.tensor(a))
    for ours, theirs in zip(mg.lu_unpack(lu, piv), torch.lu_unpack(tlu, tpiv), strict=True):
        _close(ours, theirs)


def test_histogramdd_range_and_weights():
    pts, wts = RNG.uniform(size=(40, 2)), RNG.uniform(size=40)
    (mp, mw), (tp, tw) = _pair(pts, wts)
    ours = mg.histogramdd(mp, [3, 2], range=[0.0, 1.0, 0.0, 1.0], weight=mw, density=True)
    theirs = torch.histogramdd(tp, [3, 2], range=[0.0, 1.0, 0.0, 1.0], weight=tw, density=True)
    _close(ours[0], theirs[0])
    for a, b in zip(ours[1], theirs[1], strict=True):
        _close(a, b)


def test_range_unravel_scalar_tensor():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in [(1, 4), (0, 1, 0.3), (3, 0, -1)]:
            _close(mg.range(*args), torch.range(*args))
        for lib in (mg, torch):  # end is required: range(5) is PyTorch's TypeError
            with pytest.raises(TypeError):
                lib.range(5)
    for flat in ([7, -1, 8], 5):
        for a, b in zip(mg.unravel_index(mg.tensor(flat), (2, 4)),
                        torch.unravel_index(torch.tensor(flat), (2, 4)), strict=True):  # fmt: skip
            assert a.tolist() == b.tolist()
    assert mg.scalar_tensor(3).dtype.name == str(torch.scalar_tensor(3).dtype).split(".")[1]


def test_scatters_and_sum_to_size():
    a = RNG.normal(size=(3, 4))
    (ma,), (ta,) = _pair(a)
    _close(
        ma.slice_scatter(mg.zeros(3, 2), 1, 0, 4, 2),
        ta.slice_scatter(torch.zeros(3, 2), 1, 0, 4, 2),
    )
    _close(ma.diagonal_scatter(mg.ones(2), -1), ta.diagonal_scatter(torch.ones(2), -1))
    _close(ma.as_strided_scatter(mg.ones(2, 2), (2, 2), (1, 4), 1),
           ta.as_strided_scatter(torch.ones(2, 2), (2, 2), (1, 4), 1))  # fmt: skip
    _close(ma.sum_to_size(1, 4), ta.sum_to_size(1, 4))
