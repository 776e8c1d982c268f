"""Recurrent layers as in PyTorch: RNN, LSTM, GRU and their single-step cells.

A layer reads a sequence x_1 .. x_T and carries a state from step to step (H: hidden size):

    RNN   h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)            act = tanh or relu
    LSTM  i, f, g, o = the 4 blocks of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh
          c_t = sigmoid(f) c_{t-1} + sigmoid(i) tanh(g),   h_t = sigmoid(o) tanh(c_t)
          (with proj_size > 0: h_t = (sigmoid(o) tanh(c_t)) W_hr^T, of size proj_size)
    GRU   r, z = sigmoid of the first 2 blocks of x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh
          n = tanh(x_t W_in^T + b_in + r (h_{t-1} W_hn^T + b_hn)),   h_t = (1 - z) n + z h_{t-1}

Layers stack (``num_layers``: layer k reads the outputs of layer k-1, with dropout between them in
training), and ``bidirectional=True`` adds a second pass from x_T back to x_1 whose outputs are
concatenated to the first's. Everything PyTorch exposes is kept: the parameter names
(``weight_ih_l0``, ``bias_hh_l1_reverse``, ``weight_hr_l0``), shapes, gate order and initialisation
U(-1/sqrt(H), 1/sqrt(H)), so a PyTorch state_dict loads either way; the shapes of inputs, initial
states and outputs, ``batch_first``, unbatched (2-D) inputs, and batches of sequences of
different lengths packed by ``nn.utils.rnn.pack_padded_sequence`` (a ``PackedSequence`` in, one
out; each sequence's final state is that of its own last step).

How it runs: per layer and direction, x W_ih^T + b_ih for the whole sequence is one Linear op (one
big matmul instead of T small ones); then each time step is one fused cell op
(``ops/rnn.py``), whose backward computes the gate gradients directly.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from .._tensor import Tensor
from ..autocast_policy import LOWER, autocast_function
from ..creation import empty, zeros
from ..functions import cat
from ..ops import rnn as rnn_ops
from ..ops.round_once import is_two_byte_float, widen
from ..size import plain_int
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode: str, xw: Tensor, state: Any, w_hh: Tensor, b_hh: Tensor | None, w_hr: Any):
    """One time step of a cell on the projected input ``xw`` = x W_ih^T + b_ih: the new state
    (h, or (h, c) for an LSTM)."""
    if mode == "LSTM" and w_hr is None:
        return _lstm_layer_step(xw, state[0], state[1], w_hh, b_hh)
    if mode == "LSTM":
        return rnn_ops.LSTMCell.apply(xw, state[0], state[1], w_hh, b_hh, w_hr)
    if mode == "GRU":
        return rnn_ops.GRUCell.apply(xw, state, w_hh, b_hh)
    return rnn_ops.RNNCell.apply(xw, state, w_hh, b_hh, mode == "RNN_RELU")


@autocast_function(LOWER)  # an LSTM layer's step, low under autocast as PyTorch's (an LSTMCell's
def _lstm_layer_step(xw, h, c, w_hh, b_hh):  # is float32 on the CPU: it stays an op of its own)
    return rnn_ops.LSTMCell.apply(xw, h, c, w_hh, b_hh, None)


def _unstack(x: Tensor) -> tuple:
    """x[0], x[1], ... as one graph node (the steps of a sequence, the layers of a state)."""
    return rnn_ops.Unstack.apply(x)


def _stack(xs: list) -> Tensor:
    return rnn_ops.Stack.apply(*xs)


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, the checks, and the loop over layers,
    directions and time steps. ``mode`` is 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU'."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode!r} (one of {', '.join(_GATES)})")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):  # PyTorch's TypeError (a bool is an int there too)
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be an integer greater than zero, got {value!r}")
        if not isinstance(num_layers, int):
            raise TypeError(f"num_layers should be of type int, got: {type(num_layers).__name__}")
        if num_layers <= 0:
            raise ValueError(f"num_layers must be an integer greater than zero, got {num_layers!r}")
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                f"element being zeroed, got {dropout!r}"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(proj_size, int) or isinstance(proj_size, bool) or proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections, got "
                f"{proj_size!r}"
            )
        if proj_size >= hidden_size:
            raise ValueError(
                f"proj_size has to be smaller than hidden_size (got proj_size={proj_size}, "
                f"hidden_size={hidden_size})"
            )
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size

        # Registered in PyTorch's order (layer, direction, then w_ih, w_hh, b_ih, b_hh, w_hr), so
        # parameters() and state_dict() list them as PyTorch does.
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * num_directions
            for direction in range(num_directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [
                    ("weight_ih", (gate_size, layer_input)),
                    ("weight_hh", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    name = base + suffix
                    self.register_parameter(
                        name, Parameter(empty(*shape, dtype=dtype, device=device))
                    )
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights into one buffer for cuDNN; here there is nothing to do."""

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ------------------------------------------------------------------ checks
    def _name(self) -> str:
        return type(self).__name__

    def _check_input(self, input: Any, hx: Any, packed: bool = False) -> bool:
        """Is the input batched? Raises PyTorch's errors for a wrong input (and says why).
        ``packed``: ``input`` is a PackedSequence's data, (steps of all sequences, features)."""
        if not isinstance(input, Tensor):
            raise TypeError(
                f"{self._name()}: input must be a Tensor or a PackedSequence, got "
                f"{type(input).__name__}"
            )
        if packed and input.ndim != 2:
            raise RuntimeError(
                f"input must have 2 dimensions, got {input.ndim} (a PackedSequence's data is "
                f"(sum of lengths, {self.input_size}); its shape is {tuple(input.shape)})"
            )
        if input.ndim not in (2, 3):
            raise ValueError(
                f"{self._name()}: Expected input to be 2D or 3D, got {input.ndim}D input instead "
                f"(shape {tuple(input.shape)}; expected (L, N, {self.input_size}), "
                f"(N, L, {self.input_size}) with batch_first=True, or unbatched "
                f"(L, {self.input_size}))"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{input.shape[-1]} (input shape {tuple(input.shape)})"
            )
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"input must have the type {weight.dtype}, got type {input.dtype}")
        batched = input.ndim == 3
        states = hx if isinstance(hx, tuple) else (hx,) if hx is not None else ()
        for s in states:
            if not isinstance(s, Tensor):
                raise TypeError(
                    f"{self._name()}: the initial state must be a Tensor, got {type(s).__name__}"
                )
            if s.ndim != input.ndim:
                kind = "batched 3-D" if batched else "unbatched 2-D"
                raise RuntimeError(
                    f"For {kind} input, hx should also be {input.ndim}-D but got {s.ndim}-D "
                    f"tensor (shape {tuple(s.shape)})"
                )
        return batched

    def _check_state(self, s: Tensor, expected: tuple, what: str) -> None:
        if tuple(s.shape) != expected:
            raise RuntimeError(
                f"Expected {what} size {expected}, got {list(s.shape)} ({self._name()} with "
                f"num_layers={self.num_layers}, bidirectional={self.bidirectional}: (num_layers * "
                f"num_directions, batch, hidden))"
            )

    # ------------------------------------------------------------------ the loop
    def forward(self, input: Any, hx: Any = None) -> tuple:
        lstm = self.mode == "LSTM"
        if lstm and isinstance(hx, list):  # [h_0, c_0], as PyTorch also accepts
            hx = tuple(hx)
        if lstm and hx is not None and not (isinstance(hx, tuple) and len(hx) == 2):
            raise TypeError(
                f"LSTM: the initial state must be a tuple (h_0, c_0), got {type(hx).__name__}"
            )
        packed = isinstance(input, PackedSequence)
        batch_sizes = None  # packed: how many sequences still run at each step
        if packed:
            self._check_input(input.data, None, packed=True)
            batch_sizes = [int(b) for b in input.batch_sizes.tolist()]
            steps, batch, batched = len(batch_sizes), batch_sizes[0], True
            if hx is not None and input.sorted_indices is not None:  # into the packed order
                idx = input.sorted_indices
                hx = tuple(s[:, idx] for s in hx) if lstm else hx[:, idx]
            x = input.data
        else:
            batched = self._check_input(input, hx)
            if not batched:  # one sequence: a batch of one, removed again at the end
                input = input.unsqueeze(1)
                if hx is not None:
                    hx = tuple(s.unsqueeze(1) for s in hx) if lstm else hx.unsqueeze(1)
            elif self.batch_first:
                input = input.transpose(0, 1)
            steps, batch, x = input.shape[0], input.shape[1], input
        if steps == 0:
            raise RuntimeError(f"{self._name()}: the input sequence is empty (length 0)")
        h0, c0 = self._initial_state(hx, batch, x)

        h_layers = _unstack(h0)
        c_layers = _unstack(c0) if lstm else None
        nd = 2 if self.bidirectional else 1
        layer_input = x
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(nd):
                k = layer * nd + direction
                w_ih, w_hh = self.all_weights[k][:2]
                b_ih, b_hh = self.all_weights[k][2:4] if self.bias else (None, None)
                w_hr = self.all_weights[k][-1] if self.proj_size > 0 else None
                if is_two_byte_float(w_hh) and x.dtype == w_hh.dtype:
                    # the steps get float32 copies of the recurrent weights: their gradients
                    # are summed over the steps in float32 and rounded once, by the copy's cast
                    w_hh, b_hh, w_hr = widen(w_hh), widen(b_hh), widen(w_hr)
                xw = F.linear(layer_input, w_ih, b_ih)  # every step's x W_ih^T at once
                xs = xw.split(batch_sizes) if packed else _unstack(xw)
                state = (h_layers[k], c_layers[k]) if lstm else h_layers[k]
                ys = [None] * steps
                order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
                for t in order:
                    active = batch if batch_sizes is None else batch_sizes[t]
                    state, ys[t] = self._advance(xs[t], state, active, w_hh, b_hh, w_hr)
                outputs.append(cat(ys) if packed else _stack(ys))
                h_n.append(state[0] if lstm else state)
                if lstm:
                    c_n.append(state[1])
            layer_input = outputs[0] if nd == 1 else cat(outputs, dim=-1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)

        output = layer_input
        h_n = _stack(h_n)
        c_n = _stack(c_n) if lstm else None
        if packed:
            output = input._replace(data=output)
            if input.unsorted_indices is not None:  # the states back in the caller's order
                h_n = h_n[:, input.unsorted_indices]
                c_n = c_n[:, input.unsorted_indices] if lstm else None
        elif not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if lstm else (output, h_n)

    def _initial_state(self, hx: Any, batch: int, x: Tensor) -> tuple:
        """(h_0, c_0) (c_0 None but for an LSTM): zeros, or the given states once checked."""
        lstm = self.mode == "LSTM"
        nd = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        h_shape = (self.num_layers * nd, batch, real_hidden)
        c_shape = (self.num_layers * nd, batch, self.hidden_size)
        if hx is None:
            h0 = zeros(*h_shape, dtype=x.dtype, device=x.device)
            return h0, zeros(*c_shape, dtype=x.dtype, device=x.device) if lstm else None
        if lstm:
            self._check_state(hx[0], h_shape, "hidden[0]")
            self._check_state(hx[1], c_shape, "hidden[1]")
            return hx
        self._check_state(hx, h_shape, "hidden")
        return hx, None

    def _advance(self, xw: Tensor, state: Any, active: int, w_hh, b_hh, w_hr) -> tuple:
        """One time step: (the new state of the whole batch, the new h of the rows that ran).
        In a packed batch only the first ``active`` rows (the sequences not finished yet) run;
        the others keep their state."""
        lstm = self.mode == "LSTM"
        rows = state[0].shape[0] if lstm else state.shape[0]
        if active == rows:
            new = _step(self.mode, xw, state, w_hh, b_hh, w_hr)
            return new, new[0] if lstm else new
        if lstm:
            h, c = state
            nh, nc = _step(self.mode, xw, (h[:active], c[:active]), w_hh, b_hh, w_hr)
            return (cat([nh, h[active:]]), cat([nc, c[active:]])), nh
        new = _step(self.mode, xw, state[:active], w_hh, b_hh, w_hr)
        return cat([new, state[active:]]), new


class RNN(RNNBase):
    """``nn.RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``: h_t = act(x_t W_ih^T + b_ih +
    h_{t-1} W_hh^T + b_hh). ``forward(input, h_0=None)`` returns (output, h_n)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:  # PyTorch's positional order has nonlinearity fourth
            args = list(args)
            kwargs["nonlinearity"] = args.pop(3)
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """``nn.LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0)``: gates i, f, g, o (see the module docstring).
    ``forward(input, (h_0, c_0)=None)`` returns (output, (h_n, c_n))."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """``nn.GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False)``: gates r, z, n (see the module docstring).
    ``forward(input, h_0=None)`` returns (output, h_n)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """What the cells share: weight_ih (G*H, input), weight_hh (G*H, H), bias_ih and bias_hh
    (G*H,), all ~ U(-1/sqrt(H), 1/sqrt(H)), and the input checks."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool,
        num_chunks: int,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        # (a cell, unlike RNNBase, takes NumPy integers: PyTorch's cell does not check the type)
        input_size, hidden_size = plain_int(input_size), plain_int(hidden_size)
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):  # PyTorch's TypeError (a bool is an int there too)
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be an integer greater than zero, got {value!r}")
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        g = num_chunks * hidden_size
        self.weight_ih = Parameter(empty(g, input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(empty(g, hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(g, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(g, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input: Any, states: tuple) -> tuple:
        """Checks as PyTorch's; returns (batched, the input and the states as 2-D). A missing
        state (None) is zeros. (A cell runs once per time step: the checks read the arrays'
        shapes, and the messages are built only when one fails.)"""
        name = type(self).__name__
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
        ndim = input._data.ndim
        if ndim not in (1, 2):
            raise ValueError(
                f"{name}: Expected input to be 1D or 2D, got {ndim}D instead (shape "
                f"{tuple(input.shape)}; expected (N, {self.input_size}) or ({self.input_size},))"
            )
        batched = ndim == 2
        x = input if batched else input.unsqueeze(0)
        n, size = x._data.shape
        if size != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {size} expected {self.input_size} "
                f"(input shape {tuple(input.shape)})"
            )
        out = []
        for k, s in enumerate(states):
            if s is None:
                s = zeros(n, self.hidden_size, dtype=x.dtype, device=x.device)
            elif not isinstance(s, Tensor):
                raise TypeError(f"{name}: hx must be a Tensor, got {type(s).__name__}")
            else:
                label = "" if len(states) == 1 else f"[{k}]"
                if s._data.ndim != ndim:
                    raise RuntimeError(
                        f"{name}: hx{label} must be {ndim}-D like the input, got shape "
                        f"{tuple(s.shape)} for input shape {tuple(input.shape)}"
                    )
                s = s if batched else s.unsqueeze(0)
                s_n, s_size = s._data.shape
                if s_n != n:
                    raise RuntimeError(
                        f"Input batch size {n} doesn't match hidden{label} batch size {s_n}"
                    )
                if s_size != self.hidden_size:
                    raise RuntimeError(
                        f"hidden{label} has inconsistent hidden_size: got {s_size}, expected "
                        f"{self.hidden_size}"
                    )
            out.append(s)
        return batched, x, out

    def _xw(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """``nn.RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')``: one step,
    h' = act(x W_ih^T + b_ih + h W_hh^T + b_hh). ``forward(input, hx=None)`` returns h'."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}. Select from 'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched, x, (h,) = self._prepare(input, (hx,))
        out = rnn_ops.RNNCell.apply(
            self._xw(x), h, self.weight_hh, self.bias_hh, self.nonlinearity == "relu"
        )
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """``nn.LSTMCell(input_size, hidden_size, bias=True)``: one LSTM step (gates i, f, g, o).
    ``forward(input, (h, c)=None)`` returns (h', c')."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple | None = None) -> tuple:
        if isinstance(hx, list):  # [h, c], as PyTorch also accepts
            hx = tuple(hx)
        if hx is not None and not (isinstance(hx, tuple) and len(hx) == 2):
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c), got {type(hx).__name__}")
        batched, x, (h, c) = self._prepare(input, hx if hx is not None else (None, None))
        h, c = rnn_ops.LSTMCell.apply(self._xw(x), h, c, self.weight_hh, self.bias_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """``nn.GRUCell(input_size, hidden_size, bias=True)``: one GRU step (gates r, z, n).
    ``forward(input, hx=None)`` returns h'."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        batched, x, (h,) = self._prepare(input, (hx,))
        out = rnn_ops.GRUCell.apply(self._xw(x), h, self.weight_hh, self.bias_hh)
        return out if batched else out.squeeze(0)
