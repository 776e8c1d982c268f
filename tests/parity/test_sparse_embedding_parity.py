"""nn.Embedding(sparse=True) with SparseAdam and with SGD (momentum) against PyTorch: the same
sparse gradient (after coalescing) and the same weights after several steps; F.embedding_bag's
bags (every mode, padding, empty bags, per-sample weights) and their gradients."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minigenesis as mg  # noqa: E402

BATCHES = ([1, 2, 2], [5], [2, 7, 1], [5, 5, 0])


def _train(lib, make_opt, w0, grads):
    emb = lib.nn.Embedding(8, 3, sparse=True, padding_idx=0)
    with lib.no_grad():
        emb.weight.copy_(lib.tensor(w0))
    opt = make_opt(lib, emb.parameters())
    coalesced = []
    for idx, gy in zip(BATCHES, grads):
        opt.zero_grad()
        (emb(lib.tensor(idx)) * lib.tensor(gy)).sum().backward()
        g = emb.weight.grad.coalesce()
        coalesced.append((g.indices().numpy().copy(), g.values().numpy().copy()))
        opt.step()
    return emb.weight.detach().numpy(), coalesced


@pytest.mark.parametrize(
    "make_opt",
    [
        lambda lib, p: lib.optim.SparseAdam(list(p), lr=0.05, betas=(0.8, 0.95)),
        lambda lib, p: lib.optim.SGD(p, lr=0.1, momentum=0.9),
    ],
    ids=["sparse_adam", "sgd_momentum"],
)
def test_sparse_embedding_training_matches_pytorch(make_opt) -> None:
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((8, 3)).astype(np.float32)
    grads = [rng.standard_normal((len(i), 3)).astype(np.float32) for i in BATCHES]
    ours, our_grads = _train(mg, make_opt, w0, grads)
    theirs, their_grads = _train(torch, make_opt, w0, grads)
    for (i1, v1), (i2, v2) in zip(our_grads, their_grads):
        np.testing.assert_array_equal(i1, i2)
        np.testing.assert_allclose(v1, v2, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_bag_matches_pytorch(mode: str, padding_idx) -> None:
    rng = np.random.default_rng(1)
    w0, gy = rng.standard_normal((10, 4)), rng.standard_normal((5, 4))
    idx, offsets = np.array([4, 1, 7, 2, 2, 9, 0, 3]), np.array([0, 3, 5, 5, 6])
    psw = rng.standard_normal(8) if mode == "sum" else None
    results = []
    for lib in (mg, torch):
        w = lib.tensor(w0, requires_grad=True)
        extra = {} if psw is None else {"per_sample_weights": lib.tensor(psw)}
        out = lib.nn.functional.embedding_bag(
            lib.tensor(idx), w, lib.tensor(offsets), mode=mode, padding_idx=padding_idx, **extra
        )
        (out * lib.tensor(gy)).sum().backward()
        results.append((out.detach().numpy(), w.grad.numpy()))
    (out, grad), (want_out, want_grad) = results
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-15)
