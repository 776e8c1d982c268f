"""CPU autocast for the recurrent layers, as PyTorch 2.13 runs them: nn.RNN, nn.LSTM (without a
projection) and nn.RNNCell compute in the low dtype (PyTorch's oneDNN RNN layer and the linears
of its RNN cell are on its lower-precision list); nn.GRU, nn.GRUCell and nn.LSTMCell stay
float32 on the CPU. Oracle: the RNN cell's closed form in NumPy from bfloat16-rounded operands."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

X = np.random.default_rng(0).standard_normal((5, 2, 6))


def _bf(a):
    return np.asarray(a, dtype=np.float64).astype(ml_dtypes.bfloat16).astype(np.float64)


@pytest.mark.parametrize(
    "name, kwargs, low",
    [
        ("RNN", {}, True),
        ("RNN", {"num_layers": 2, "bidirectional": True}, True),
        ("LSTM", {}, True),
        ("GRU", {}, False),
    ],
)
def test_recurrent_layers_follow_pytorchs_cpu_autocast_dtypes(name, kwargs, low):
    mg.manual_seed(0)
    layer = getattr(mg.nn, name)(6, 3, **kwargs)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out, state = layer(mg.tensor(X, dtype=mg.float32))
    want = mg.bfloat16 if low else mg.float32
    assert out.dtype == want
    assert all(s.dtype == want for s in (state if isinstance(state, tuple) else (state,)))
    out.float().sum().backward()
    assert all(p.grad.dtype == mg.float32 for p in layer.parameters())


@pytest.mark.parametrize("name, low", [("RNNCell", True), ("GRUCell", False), ("LSTMCell", False)])
def test_recurrent_cells_follow_pytorchs_cpu_autocast_dtypes(name, low):
    mg.manual_seed(0)
    cell = getattr(mg.nn, name)(6, 3)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = cell(mg.tensor(X[0], dtype=mg.float32))
    out = out[0] if isinstance(out, tuple) else out
    assert out.dtype == (mg.bfloat16 if low else mg.float32)


def test_rnn_cell_under_autocast_is_the_closed_form_of_rounded_operands():
    mg.manual_seed(0)
    cell = mg.nn.RNNCell(6, 3)
    h0 = np.random.default_rng(1).standard_normal((2, 3))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = cell(mg.tensor(X[0], dtype=mg.float32), mg.tensor(h0, dtype=mg.float32))
    w_ih, w_hh = (_bf(w.detach().numpy()) for w in (cell.weight_ih, cell.weight_hh))
    b_ih, b_hh = (_bf(b.detach().numpy()) for b in (cell.bias_ih, cell.bias_hh))
    xw = _bf(_bf(X[0]) @ w_ih.T + b_ih)  # the input's linear, rounded to bfloat16
    want = np.tanh(xw + _bf(h0) @ w_hh.T + b_hh)
    np.testing.assert_allclose(out.detach().float().numpy(), want, rtol=2**-7, atol=2**-7)
