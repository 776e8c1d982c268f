"""An LSTM step of hidden size 1 against NumPy's closed form. Its output gate is a one-column
view of the gate array, where NumPy 2.4's in-place ``negative`` reads the wrong elements; the
cell's sigmoid must not depend on it."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-v))


def _lstm_step(x, h, c, w_ih, w_hh):
    """h', c' of one LSTM step without biases, gates (i, f, g, o) in PyTorch's order."""
    gates = x @ w_ih.T + h @ w_hh.T
    hs = c.shape[-1]
    i, f, o = (_sigmoid(gates[:, k * hs : (k + 1) * hs]) for k in (0, 1, 3))
    g = np.tanh(gates[:, 2 * hs : 3 * hs])
    c_new = f * c + i * g
    return o * np.tanh(c_new), c_new


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch", [2, 3, 5])
def test_lstm_cell_of_hidden_size_one_matches_the_closed_form(dtype: str, batch: int) -> None:
    rng = np.random.default_rng(batch)
    cell = mg.nn.LSTMCell(4, 1, bias=False).to(getattr(mg, dtype))
    x, h, c = (rng.standard_normal(s) for s in ((batch, 4), (batch, 1), (batch, 1)))
    cast = {"dtype": getattr(mg, dtype)}
    h_new, c_new = cell(mg.tensor(x, **cast), (mg.tensor(h, **cast), mg.tensor(c, **cast)))
    w_ih = cell.weight_ih.detach().double().numpy()
    w_hh = cell.weight_hh.detach().double().numpy()
    h_ref, c_ref = _lstm_step(x, h, c, w_ih, w_hh)
    tol = 1e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(c_new.detach().double().numpy(), c_ref, rtol=tol, atol=tol)
    np.testing.assert_allclose(h_new.detach().double().numpy(), h_ref, rtol=tol, atol=tol)


def test_lstm_layer_of_hidden_size_one_matches_the_closed_form() -> None:
    rng = np.random.default_rng(0)
    lstm = mg.nn.LSTM(3, 1, bias=False, batch_first=True)
    x = rng.standard_normal((4, 2, 3))
    out, (h_n, _) = lstm(mg.tensor(x, dtype=mg.float32))
    w_ih = lstm.weight_ih_l0.detach().double().numpy()
    w_hh = lstm.weight_hh_l0.detach().double().numpy()
    h, c = np.zeros((4, 1)), np.zeros((4, 1))
    for t in range(2):
        h, c = _lstm_step(x[:, t], h, c, w_ih, w_hh)
        np.testing.assert_allclose(out[:, t].detach().double().numpy(), h, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(h_n[0].detach().double().numpy(), h, rtol=1e-6, atol=1e-6)
