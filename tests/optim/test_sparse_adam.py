"""SparseAdam against a NumPy transcription of its rule: only the rows a sparse gradient holds
move (their values and both moments), with eps added to sqrt(v) before the bias correction;
the other rows and their moments stay as they were. Dense gradients and bad options are refused
with PyTorch's messages."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def _numpy_sparse_adam(w, steps, lr, betas, eps, maximize=False):
    """steps: a list of (rows, dense gradient) pairs; returns the weights and moments."""
    w = w.copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    b1, b2 = betas
    for t, (rows, g) in enumerate(steps, start=1):
        g = -g[rows] if maximize else g[rows]
        m[rows] += (1 - b1) * (g - m[rows])
        v[rows] += (1 - b2) * (g * g - v[rows])
        step_size = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        w[rows] -= step_size * m[rows] / (np.sqrt(v[rows]) + eps)
    return w, m, v


@pytest.mark.parametrize("maximize", [False, True])
def test_sparse_adam_updates_only_the_rows_looked_up(maximize: bool) -> None:
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((8, 3))
    emb = nn.Embedding(8, 3, sparse=True)
    emb.weight.data = mg.tensor(w0)
    opt = mg.optim.SparseAdam(
        emb.parameters(), lr=0.05, betas=(0.8, 0.95), eps=1e-6, maximize=maximize
    )
    steps = []
    for idx in ([1, 2, 2], [5], [2, 7, 1], [5, 5]):
        gy = rng.standard_normal((len(idx), 3))
        opt.zero_grad()
        (emb(mg.tensor(idx)) * mg.tensor(gy)).sum().backward()
        dense = np.zeros((8, 3))
        np.add.at(dense, idx, gy)
        steps.append((np.unique(idx), dense))
        opt.step()
    w, m, v = _numpy_sparse_adam(w0, steps, 0.05, (0.8, 0.95), 1e-6, maximize)
    np.testing.assert_allclose(emb.weight.detach().numpy(), w, rtol=1e-12)
    state = opt.state[emb.weight]
    np.testing.assert_allclose(state["exp_avg"].numpy(), m, rtol=1e-12)
    np.testing.assert_allclose(state["exp_avg_sq"].numpy(), v, rtol=1e-12)
    assert state["step"] == 4
    untouched = [0, 3, 4, 6]
    np.testing.assert_array_equal(emb.weight.detach().numpy()[untouched], w0[untouched])
    assert not state["exp_avg"].numpy()[untouched].any()


def test_sparse_adam_float32_rounds_as_float32() -> None:
    emb = nn.Embedding(4, 2, sparse=True)
    opt = mg.optim.SparseAdam(emb.parameters())
    emb(mg.tensor([1])).sum().backward()
    opt.step()
    assert emb.weight.dtype == mg.float32 and opt.state[emb.weight]["exp_avg"].dtype == mg.float32


def test_sparse_adam_resumes_from_a_saved_state_dict() -> None:
    def run(resume: bool) -> np.ndarray:
        mg.manual_seed(0)
        emb = nn.Embedding(6, 2, sparse=True)
        opt = mg.optim.SparseAdam(emb.parameters(), lr=0.1)
        for k, idx in enumerate(([1, 2], [2, 4], [4, 5])):
            if resume and k == 2:  # a fresh optimizer from a saved (and reloaded) state
                buffer = io.BytesIO()
                mg.save(opt.state_dict(), buffer)
                buffer.seek(0)
                opt = mg.optim.SparseAdam(emb.parameters(), lr=0.1)
                opt.load_state_dict(mg.load(buffer))
            opt.zero_grad()
            (emb(mg.tensor(idx)) ** 2).sum().backward()
            opt.step()
        assert int(opt.state[emb.weight]["step"]) == 3
        return emb.weight.detach().numpy()

    np.testing.assert_array_equal(run(resume=True), run(resume=False))


def test_sparse_adam_refuses_dense_gradients_and_bad_options() -> None:
    lin = nn.Linear(2, 2)
    lin(mg.ones(1, 2)).sum().backward()
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients"):
        mg.optim.SparseAdam(lin.parameters()).step()
    p = [mg.zeros(2, requires_grad=True)]
    with pytest.raises(ValueError, match="Invalid learning rate: 0"):
        mg.optim.SparseAdam(p, lr=0)
    with pytest.raises(ValueError, match="Invalid epsilon value"):
        mg.optim.SparseAdam(p, eps=0.0)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        mg.optim.SparseAdam(p, betas=(0.9, 1.0))


def test_sparse_adam_sits_at_pytorchs_path() -> None:
    from minigenesis.optim.sparse_adam import SparseAdam

    assert SparseAdam is mg.optim.SparseAdam
