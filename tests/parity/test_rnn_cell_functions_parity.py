"""``torch.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell`` and ``gru_cell`` side by side with
PyTorch's: outputs and the gradients of every input, in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

N, IN, H = 3, 4, 5


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"])
def test_cell_function_outputs_and_gradients_match_pytorch(name):
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    rng = np.random.default_rng(3)
    shapes = [(N, IN), (N, H), (N, H), (gates * H, IN), (gates * H, H), (gates * H,), (gates * H,)]
    arrays = [rng.standard_normal(s) * 0.6 for s in shapes]
    results = []
    for lib in (mg, torch):
        x, h, c, *ws = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays)
        leaves = [x, h, c, *ws]
        if name == "lstm_cell":
            out = lib.lstm_cell(x, (h, c), *ws)
            loss = (out[0] * 1.5).sum() + (out[1] * out[1]).sum()
        else:
            out = (getattr(lib, name)(x, h, *ws),)
            loss = (out[0] * out[0]).sum()
            del leaves[2]  # no cell state
        grads = lib.autograd.grad(loss, leaves)
        results.append([t.detach().numpy() for t in (*out, *grads)])
    for ours, theirs in zip(*results, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
