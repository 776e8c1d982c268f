"""``torch.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell`` and ``gru_cell``: one recurrent step
with the weights passed in (what ``nn.RNNCell``, ``nn.LSTMCell`` and ``nn.GRUCell`` compute, for
programs that keep their own weight tensors). Input (N, I), state (N, H); W_ih (G H, I),
W_hh (G H, H), biases (G H,) or None, with G = 1, 4, 3 gate blocks:

    rnn_*_cell  h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh)                 act = tanh or relu
    lstm_cell   i, f, g, o = blocks of x W_ih^T + b_ih + h W_hh^T + b_hh
                c' = sigmoid(f) c + sigmoid(i) tanh(g),   h' = sigmoid(o) tanh(c')
    gru_cell    r, z = sigmoid of the first 2 blocks of x W_ih^T + b_ih + h W_hh^T + b_hh
                n = tanh(x W_in^T + b_in + r (h W_hn^T + b_hn)),   h' = (1 - z) n + z h

Each is one Linear (x W_ih^T + b_ih) and the fused cell op of ``ops/rnn.py`` that ``nn``'s cells
use, so gradients flow to the input, the state and every weight."""

from __future__ import annotations

from typing import Any

from .._tensor import Tensor
from ..nn import functional as F
from ..ops import rnn as rnn_ops

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"]


def _check(input: Tensor, states: tuple[Tensor, ...], w_ih: Tensor, w_hh: Tensor) -> None:
    """PyTorch's checks: 2-D input and states, sizes matching the weights' columns."""
    for name, t in (("input", input), *((f"hx[{k}]", s) for k, s in enumerate(states))):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name} must be a Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be 2-D (batch, features), got shape {tuple(t.shape)}")
    if input.shape[1] != w_ih.shape[1]:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.shape[1]} expected {w_ih.shape[1]}"
        )
    for k, s in enumerate(states):
        if s.shape[0] != input.shape[0]:
            raise RuntimeError(
                f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {s.shape[0]}"
            )
        if s.shape[1] != w_hh.shape[1]:
            raise RuntimeError(
                f"hidden{k} has inconsistent hidden_size: got {s.shape[1]}, expected "
                f"{w_hh.shape[1]}"
            )


def _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, relu: bool) -> Tensor:
    _check(input, (hx,), w_ih, w_hh)
    return rnn_ops.RNNCell.apply(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh, relu)


def rnn_tanh_cell(
    input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, relu=False)


def rnn_relu_cell(
    input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return _rnn_cell(input, hx, w_ih, w_hh, b_ih, b_hh, relu=True)


def lstm_cell(
    input: Tensor, hx: Any, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One LSTM step from the state ``hx = (h, c)`` (a tuple or a list): returns (h', c')."""
    if not isinstance(hx, (tuple, list)):
        raise TypeError(
            f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, not "
            f"{type(hx).__name__}"
        )
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    h, c = hx
    _check(input, (h, c), w_ih, w_hh)
    return rnn_ops.LSTMCell.apply(F.linear(input, w_ih, b_ih), h, c, w_hh, b_hh, None)


def gru_cell(
    input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:  # fmt: skip
    """One GRU step (gates r, z, n in PyTorch's order): returns h'."""
    _check(input, (hx,), w_ih, w_hh)
    return rnn_ops.GRUCell.apply(F.linear(input, w_ih, b_ih), hx, w_hh, b_hh)
