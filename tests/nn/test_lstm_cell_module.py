"""nn.LSTMCell as a module, with and without bias and with and without an initial state: its
outputs against a float64 NumPy step written from PyTorch's documented equations, its gradients
against central differences, and its argument checks."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck


def numpy_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """i, f, g, o = split(x W_ih^T + b_ih + h W_hh^T + b_hh); c' = f c + i g; h' = o tanh(c')."""
    pre = x @ w_ih.T + h @ w_hh.T + (0 if b_ih is None else b_ih + b_hh)
    i, f, g, o = np.split(pre, 4, axis=1)
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c_new = sig(f) * c + sig(i) * np.tanh(g)
    return sig(o) * np.tanh(c_new), c_new


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("with_state", [True, False])
@pytest.mark.parametrize("batched", [True, False])
def test_lstm_cell_matches_the_documented_step(bias, with_state, batched):
    rng = np.random.default_rng(0)
    cell = mg.nn.LSTMCell(3, 5, bias=bias).double()
    x = rng.standard_normal((4, 3) if batched else (3,))
    h = rng.standard_normal((4, 5) if batched else (5,))
    c = rng.standard_normal((4, 5) if batched else (5,))
    state = (mg.tensor(h), mg.tensor(c)) if with_state else None
    h_new, c_new = cell(mg.tensor(x), state)
    params = [p.detach().numpy() for p in (cell.weight_ih, cell.weight_hh)]
    biases = (
        [None, None] if not bias else [cell.bias_ih.detach().numpy(), cell.bias_hh.detach().numpy()]
    )
    x2, h2, c2 = (np.atleast_2d(a) for a in (x, h, c))
    if not with_state:
        h2, c2 = np.zeros_like(h2), np.zeros_like(c2)
    want_h, want_c = numpy_step(x2, h2, c2, *params, *biases)
    if not batched:
        want_h, want_c = want_h[0], want_c[0]
    assert tuple(h_new.shape) == want_h.shape and tuple(c_new.shape) == want_c.shape
    np.testing.assert_allclose(h_new.detach().numpy(), want_h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c_new.detach().numpy(), want_c, rtol=1e-12, atol=1e-12)
    assert (cell.bias_ih is None) == (not bias)


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell_gradients_match_central_differences(bias):
    rng = np.random.default_rng(1)
    cell = mg.nn.LSTMCell(3, 4, bias=bias).double()
    x = mg.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    h = mg.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    c = mg.tensor(rng.standard_normal((2, 4)), requires_grad=True)

    def two_steps(x, h, c, *weights):
        h1, c1 = cell(x, (h, c))
        h2, c2 = cell(x * 0.5, (h1, c1))
        return (h2 * 1.3).sum() + (c2 * c2).sum()

    assert gradcheck(two_steps, (x, h, c, *cell.parameters()))


def test_lstm_cell_checks_name_what_is_wrong():
    cell = mg.nn.LSTMCell(3, 4)
    with pytest.raises(TypeError, match="hx must be a tuple"):
        cell(mg.randn(2, 3), mg.randn(2, 4))
    with pytest.raises(TypeError, match="hx must be a Tensor"):
        cell(mg.randn(2, 3), (np.zeros((2, 4)), mg.randn(2, 4)))
    with pytest.raises(RuntimeError, match=r"hx\[0\] must be 2-D like the input"):
        cell(mg.randn(2, 3), (mg.randn(4), mg.randn(2, 4)))
    with pytest.raises(RuntimeError, match=r"batch size 2 doesn't match hidden\[1\] batch size 3"):
        cell(mg.randn(2, 3), (mg.randn(2, 4), mg.randn(3, 4)))
