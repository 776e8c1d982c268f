"""The top-level recurrent steps with the weights passed in (torch.rnn_tanh_cell,
rnn_relu_cell, gru_cell, lstm_cell).

The references are the cells' definitions in NumPy, gates in PyTorch's order: for the GRU
r, z, n with n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn)) and h' = (1 - z) n + z h; for the
LSTM i, f, g, o with c' = sigmoid(f) c + sigmoid(i) tanh(g) and h' = sigmoid(o) tanh(c').
Input is (batch, features), as PyTorch's top-level cells take it (the nn cells also take one
unbatched row).
"""

from __future__ import annotations

import numpy as np

from .simple import S, f64, op

_IN, _HID, _BATCH = 3, 4, 2


def _affine(x, h, w_ih, w_hh, b_ih, b_hh):
    x, h, w_ih, w_hh = f64(x), f64(h), f64(w_ih), f64(w_hh)
    gx, gh = x @ w_ih.T, h @ w_hh.T
    if b_ih is not None:
        gx, gh = gx + f64(b_ih), gh + f64(b_hh)
    return gx, gh


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _rnn(activation):
    def ref(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
        gx, gh = _affine(x, h, w_ih, w_hh, b_ih, b_hh)
        return activation(gx + gh)

    return ref


def _gru(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    gx, gh = _affine(x, h, w_ih, w_hh, b_ih, b_hh)
    (xr, xz, xn), (hr, hz, hn) = np.split(gx, 3, -1), np.split(gh, 3, -1)
    r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    return (1 - z) * n + z * f64(h)


def _lstm(x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    h, c = hx
    gx, gh = _affine(x, h, w_ih, w_hh, b_ih, b_hh)
    i, f, g, o = np.split(gx + gh, 4, -1)
    c1 = _sigmoid(f) * f64(c) + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c1), c1


def _samples(gates: int, lstm: bool = False):
    def samples(m):
        def state(*shape):
            return (m(*shape), m(*shape)) if lstm else m(*shape)

        weights = (m(gates * _HID, _IN), m(gates * _HID, _HID))
        biases = (m(gates * _HID), m(gates * _HID))
        return [
            S(m(_BATCH, _IN), state(_BATCH, _HID), *weights, *biases),
            S(m(_BATCH, _IN), state(_BATCH, _HID), *weights, desc="no biases"),
            S(m(1, _IN), state(1, _HID), *weights, *biases, desc="batch of one"),
        ]

    return samples


ENTRIES = [
    op("rnn_tanh_cell", _rnn(np.tanh), _samples(1), method=False),
    op("rnn_relu_cell", _rnn(lambda v: np.maximum(v, 0.0)), _samples(1), method=False),
    op("gru_cell", _gru, _samples(3), method=False),
    op("lstm_cell", _lstm, _samples(4, lstm=True), method=False),
]
