"""``mg.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell`` and ``gru_cell`` (one recurrent step
with the weights passed in) against the step written in NumPy from its definition, float64
finite differences for every input, the matching ``nn`` cell, and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd import gradcheck

N, IN, H = 3, 4, 5


def _draw(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape) * 0.6


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _arrays(gates, seed=0, bias=True):
    x, h, c = _draw((N, IN), seed), _draw((N, H), seed + 1), _draw((N, H), seed + 2)
    w_ih, w_hh = _draw((gates * H, IN), seed + 3), _draw((gates * H, H), seed + 4)
    b_ih = _draw((gates * H,), seed + 5) if bias else None
    b_hh = _draw((gates * H,), seed + 6) if bias else None
    return x, h, c, w_ih, w_hh, b_ih, b_hh


def _leaf(a):
    return None if a is None else mg.tensor(a, dtype=mg.float64, requires_grad=True)


def _pre(x, h, w_ih, w_hh, b_ih, b_hh):
    xw = x @ w_ih.T + (0 if b_ih is None else b_ih)
    hw = h @ w_hh.T + (0 if b_hh is None else b_hh)
    return xw, hw


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_rnn_cells_compute_the_activation_of_both_linears(act, bias):
    x, h, _, w_ih, w_hh, b_ih, b_hh = _arrays(1, bias=bias)
    xw, hw = _pre(x, h, w_ih, w_hh, b_ih, b_hh)
    want = np.tanh(xw + hw) if act == "tanh" else np.maximum(xw + hw, 0)
    fn = mg.rnn_tanh_cell if act == "tanh" else mg.rnn_relu_cell
    got = fn(*(_leaf(a) for a in (x, h, w_ih, w_hh, b_ih, b_hh)))
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)


def test_lstm_cell_follows_the_gate_equations_with_a_tuple_or_a_list_state():
    x, h, c, w_ih, w_hh, b_ih, b_hh = _arrays(4)
    xw, hw = _pre(x, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = np.split(xw + hw, 4, axis=1)
    c_want = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    h_want = _sigmoid(o) * np.tanh(c_want)
    ws = [_leaf(a) for a in (w_ih, w_hh, b_ih, b_hh)]
    for state in ((_leaf(h), _leaf(c)), [_leaf(h), _leaf(c)]):
        h_got, c_got = mg.lstm_cell(_leaf(x), state, *ws)
        np.testing.assert_allclose(h_got.detach().numpy(), h_want, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(c_got.detach().numpy(), c_want, rtol=1e-12, atol=1e-12)


def test_gru_cell_applies_the_reset_gate_to_the_hidden_linear_only():
    x, h, _, w_ih, w_hh, b_ih, b_hh = _arrays(3)
    xw, hw = _pre(x, h, w_ih, w_hh, b_ih, b_hh)
    (xr, xz, xn), (hr, hz, hn) = np.split(xw, 3, axis=1), np.split(hw, 3, axis=1)
    r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    want = (1 - z) * n + z * h
    got = mg.gru_cell(*(_leaf(a) for a in (x, h, w_ih, w_hh, b_ih, b_hh)))
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"])
def test_cell_functions_gradients_match_finite_differences(name):
    gates = {"lstm_cell": 4, "gru_cell": 3}.get(name, 1)
    x, h, c, w_ih, w_hh, b_ih, b_hh = _arrays(gates, seed=7)
    fn = getattr(mg, name)
    if name == "lstm_cell":

        def step(x, h, c, *ws):
            return mg.lstm_cell(x, (h, c), *ws)

        inputs = [_leaf(a) for a in (x, h, c, w_ih, w_hh, b_ih, b_hh)]
    else:
        step, inputs = fn, [_leaf(a) for a in (x, h, w_ih, w_hh, b_ih, b_hh)]
    assert gradcheck(step, inputs)


@pytest.mark.parametrize(
    ("name", "module"), [("rnn_tanh_cell", nn.RNNCell), ("lstm_cell", nn.LSTMCell),
                         ("gru_cell", nn.GRUCell)],
)  # fmt: skip
def test_cell_function_matches_the_nn_cell_with_the_same_weights(name, module):
    mg.manual_seed(0)
    cell = module(IN, H)
    x = mg.randn(N, IN)
    h = mg.randn(N, H)
    ws = (cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)
    if name == "lstm_cell":
        c = mg.randn(N, H)
        got, want = getattr(mg, name)(x, (h, c), *ws), cell(x, (h, c))
        for g, w in zip(got, want, strict=True):
            assert mg.equal(g, w)
    else:
        assert mg.equal(getattr(mg, name)(x, h, *ws), cell(x, h))


def test_cell_functions_reject_what_pytorch_rejects():
    x, h = mg.randn(N, IN), mg.randn(N, H)
    w_ih, w_hh = mg.randn(4 * H, IN), mg.randn(4 * H, H)
    with pytest.raises(TypeError, match="tuple of Tensors"):
        mg.lstm_cell(x, h, w_ih, w_hh)
    with pytest.raises(RuntimeError, match="two hidden states"):
        mg.lstm_cell(x, [h], w_ih, w_hh)
    with pytest.raises(RuntimeError, match="inconsistent input_size: got 4 expected 6"):
        mg.rnn_tanh_cell(x, h, mg.randn(H, 6), mg.randn(H, H))
    with pytest.raises(RuntimeError, match="inconsistent hidden_size"):
        mg.gru_cell(x, mg.randn(N, H + 1), mg.randn(3 * H, IN), mg.randn(3 * H, H))
    with pytest.raises(RuntimeError, match="batch size"):
        mg.rnn_relu_cell(x, mg.randn(N + 1, H), mg.randn(H, IN), mg.randn(H, H))
