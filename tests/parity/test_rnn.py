"""PyTorch parity: RNN, LSTM, GRU and their cells with torch's state_dict loaded into minigenesis
(and back): outputs, final states, and the gradients of the input, the initial states and every
parameter, for the options that change the computation (layers, bidirectional, batch_first,
proj_size, bias=False, relu, unbatched inputs); dropout in eval mode.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import assert_same, data

import minigenesis as mg
from minigenesis import nn

torch = pytest.importorskip("torch")

IN, H, T, B = 4, 6, 5, 3
RTOL, ATOL = 1e-5, 2e-6


def _load_torch_into_mg(t_module, m_module):
    state = {k: mg.tensor(v.detach().numpy()) for k, v in t_module.state_dict().items()}
    assert list(state) == list(m_module.state_dict())  # same names in the same order
    m_module.load_state_dict(state)


def _flat(out):
    """(output, h_n) or (output, (h_n, c_n)) or a cell's h / (h, c), as a flat list."""
    if isinstance(out, tuple):
        return [t for o in out for t in _flat(o)]
    return [out]


def _compare(m_module, t_module, x, states=None, draw=1):
    """Run both on the same input (and initial states); compare every output and every gradient
    of sum(outputs * random weights)."""
    mx = mg.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    m_args, t_args = [mx], [tx]
    m_states, t_states = [], []
    if states is not None:
        m_states = [mg.tensor(s, requires_grad=True) for s in states]
        t_states = [torch.tensor(s, requires_grad=True) for s in states]
        lstm = len(states) == 2
        m_args.append(tuple(m_states) if lstm else m_states[0])
        t_args.append(tuple(t_states) if lstm else t_states[0])
    m_out, t_out = _flat(m_module(*m_args)), _flat(t_module(*t_args))
    assert len(m_out) == len(t_out)
    m_loss, t_loss = 0, 0
    for k, (a, b) in enumerate(zip(m_out, t_out)):
        assert_same(a, b, rtol=RTOL, atol=ATOL, what=f"output {k}")
        w = data(tuple(b.shape), "float32", draw + k).astype(np.float32)
        m_loss = m_loss + (a * mg.tensor(w)).sum()
        t_loss = t_loss + (b * torch.tensor(w)).sum()
    m_loss.backward()
    t_loss.backward()
    assert_same(mx.grad, tx.grad, rtol=RTOL, atol=ATOL, what="input grad")
    for k, (a, b) in enumerate(zip(m_states, t_states)):
        assert_same(a.grad, b.grad, rtol=RTOL, atol=ATOL, what=f"initial state {k} grad")
    m_params = dict(m_module.named_parameters())
    for name, p in t_module.named_parameters():
        assert_same(m_params[name].grad, p.grad, rtol=RTOL, atol=ATOL, what=f"{name} grad")


OPTIONS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False, "num_layers": 2},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(o) or "default")
@pytest.mark.parametrize(
    "cls,extra",
    [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})],
    ids=["rnn_tanh", "rnn_relu", "lstm", "gru"],
)
def test_layer_matches_pytorch(cls, extra, options):
    torch.manual_seed(0)
    t_module = getattr(torch.nn, cls)(IN, H, **extra, **options)
    m_module = getattr(nn, cls)(IN, H, **extra, **options)
    _load_torch_into_mg(t_module, m_module)
    shape = (B, T, IN) if options.get("batch_first") else (T, B, IN)
    _compare(m_module, t_module, data(shape, "float32").astype(np.float32))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
def test_layer_with_initial_states_matches_pytorch(cls, batched):
    torch.manual_seed(1)
    options = {"num_layers": 2, "bidirectional": True}
    t_module = getattr(torch.nn, cls)(IN, H, **options)
    m_module = getattr(nn, cls)(IN, H, **options)
    _load_torch_into_mg(t_module, m_module)
    batch = (B,) if batched else ()
    x = data((T, *batch, IN), "float32", 2).astype(np.float32)
    n_states = 2 if cls == "LSTM" else 1
    states = [data((4, *batch, H), "float32", 3 + k).astype(np.float32) for k in range(n_states)]
    _compare(m_module, t_module, x, states)


@pytest.mark.parametrize(
    "options",
    [{"proj_size": 2}, {"proj_size": 3, "num_layers": 2, "bidirectional": True}],
    ids=["one_layer", "two_layers_bidirectional"],
)
def test_lstm_with_projection_matches_pytorch(options):
    torch.manual_seed(2)
    t_module = torch.nn.LSTM(IN, H, **options)
    m_module = nn.LSTM(IN, H, **options)
    _load_torch_into_mg(t_module, m_module)
    d = 2 if options.get("bidirectional") else 1
    n = d * options.get("num_layers", 1)
    x = data((T, B, IN), "float32", 4).astype(np.float32)
    states = [
        data((n, B, options["proj_size"]), "float32", 5).astype(np.float32),
        data((n, B, H), "float32", 6).astype(np.float32),
    ]
    _compare(m_module, t_module, x, states)


def test_dropout_between_layers_is_off_in_eval_mode_as_in_pytorch():
    torch.manual_seed(3)
    t_module = torch.nn.GRU(IN, H, num_layers=3, dropout=0.4).eval()
    m_module = nn.GRU(IN, H, num_layers=3, dropout=0.4).eval()
    _load_torch_into_mg(t_module, m_module)
    _compare(m_module, t_module, data((T, B, IN), "float32", 7).astype(np.float32))


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
def test_cell_matches_pytorch(cls, bias, batched):
    torch.manual_seed(4)
    t_module = getattr(torch.nn, cls)(IN, H, bias=bias)
    m_module = getattr(nn, cls)(IN, H, bias=bias)
    _load_torch_into_mg(t_module, m_module)
    batch = (B,) if batched else ()
    x = data((*batch, IN), "float32", 8).astype(np.float32)
    n_states = 2 if cls == "LSTMCell" else 1
    states = [data((*batch, H), "float32", 9 + k).astype(np.float32) for k in range(n_states)]
    _compare(m_module, t_module, x, states)
    m_module.zero_grad()
    t_module.zero_grad()
    _compare(m_module, t_module, x)  # no state given: zeros


def test_relu_rnn_cell_matches_pytorch():
    torch.manual_seed(5)
    t_module = torch.nn.RNNCell(IN, H, nonlinearity="relu")
    m_module = nn.RNNCell(IN, H, nonlinearity="relu")
    _load_torch_into_mg(t_module, m_module)
    _compare(m_module, t_module, data((B, IN), "float32", 10).astype(np.float32))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_minigenesis_state_dict_loads_into_pytorch(cls):
    options = {"num_layers": 2, "bidirectional": True}
    if cls == "LSTM":
        options["proj_size"] = 2
    mg.manual_seed(6)
    m_module = getattr(nn, cls)(IN, H, **options)
    t_module = getattr(torch.nn, cls)(IN, H, **options)
    t_module.load_state_dict({k: torch.tensor(v.numpy()) for k, v in m_module.state_dict().items()})
    _compare(m_module, t_module, data((T, B, IN), "float32", 11).astype(np.float32))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_parameter_shapes_and_init_bounds_match_pytorch(cls):
    options = {"num_layers": 2, "bidirectional": True}
    if cls == "LSTM":
        options["proj_size"] = 2
    t_params = dict(getattr(torch.nn, cls)(IN, 16, **options).named_parameters())
    m_params = dict(getattr(nn, cls)(IN, 16, **options).named_parameters())
    assert list(m_params) == list(t_params)
    for name, p in t_params.items():
        assert tuple(m_params[name].shape) == tuple(p.shape), name
        bound = 1 / 4  # 1 / sqrt(hidden_size), the same for every parameter
        assert np.abs(m_params[name].detach().numpy()).max() <= bound
        assert np.abs(p.detach().numpy()).max() <= bound


# ------------------------------------------------------------------------ packed sequences
@pytest.mark.parametrize(
    "cls,options",
    [
        ("LSTM", {"num_layers": 2, "bidirectional": True}),
        ("GRU", {"bidirectional": True}),
        ("RNN", {}),
        ("LSTM", {"proj_size": 2, "batch_first": True}),
    ],
    ids=["lstm_2_layers_bidirectional", "gru_bidirectional", "rnn", "lstm_proj_batch_first"],
)
def test_packed_sequence_through_a_layer_matches_pytorch(cls, options):
    """pack_padded_sequence (unsorted lengths) -> layer with initial states -> pad_packed_sequence:
    the packed data, batch sizes, padded output, lengths, final states and every gradient."""
    from torch.nn.utils import rnn as t_rnn

    from minigenesis.nn.utils import rnn as m_rnn

    torch.manual_seed(7)
    t_module = getattr(torch.nn, cls)(IN, H, **options)
    m_module = getattr(nn, cls)(IN, H, **options)
    _load_torch_into_mg(t_module, m_module)
    batch_first = options.get("batch_first", False)
    lengths = [3, T, 1, 4]
    x = data((4, T, IN) if batch_first else (T, 4, IN), "float32", 12).astype(np.float32)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    m_packed = m_rnn.pack_padded_sequence(mx, lengths, batch_first, enforce_sorted=False)
    t_packed = t_rnn.pack_padded_sequence(tx, lengths, batch_first, enforce_sorted=False)
    assert_same(m_packed.data, t_packed.data, what="packed data")
    assert m_packed.batch_sizes.tolist() == t_packed.batch_sizes.tolist()
    n = (2 if options.get("bidirectional") else 1) * options.get("num_layers", 1)
    h0 = data((n, 4, options.get("proj_size") or H), "float32", 13).astype(np.float32)
    m_h0, t_h0 = mg.tensor(h0, requires_grad=True), torch.tensor(h0, requires_grad=True)
    m_state, t_state = m_h0, t_h0
    if cls == "LSTM":
        c0 = data((n, 4, H), "float32", 14).astype(np.float32)
        m_state, t_state = (m_h0, mg.tensor(c0)), (t_h0, torch.tensor(c0))
    m_out, m_final = m_module(m_packed, m_state)
    t_out, t_final = t_module(t_packed, t_state)
    assert isinstance(m_out, m_rnn.PackedSequence)
    assert_same(m_out.data, t_out.data, rtol=RTOL, atol=ATOL, what="packed output")
    m_pad, m_len = m_rnn.pad_packed_sequence(m_out, batch_first, total_length=T + 1)
    t_pad, t_len = t_rnn.pad_packed_sequence(t_out, batch_first, total_length=T + 1)
    assert_same(m_pad, t_pad, rtol=RTOL, atol=ATOL, what="padded output")
    assert m_len.tolist() == t_len.tolist()
    m_final, t_final = _flat(m_final), _flat(t_final)
    for k, (a, b) in enumerate(zip(m_final, t_final)):
        assert_same(a, b, rtol=RTOL, atol=ATOL, what=f"final state {k}")
    w = data(tuple(t_pad.shape), "float32", 15).astype(np.float32)
    ((m_pad * mg.tensor(w)).sum() + sum((s**2).sum() for s in m_final)).backward()
    ((t_pad * torch.tensor(w)).sum() + sum((s**2).sum() for s in t_final)).backward()
    assert_same(mx.grad, tx.grad, rtol=RTOL, atol=ATOL, what="input grad")
    assert_same(m_h0.grad, t_h0.grad, rtol=RTOL, atol=ATOL, what="h0 grad")
    m_params = dict(m_module.named_parameters())
    for name, p in t_module.named_parameters():
        assert_same(m_params[name].grad, p.grad, rtol=RTOL, atol=ATOL, what=f"{name} grad")


@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_and_pack_sequence_match_pytorch(side):
    from torch.nn.utils import rnn as t_rnn

    from minigenesis.nn.utils import rnn as m_rnn

    seqs = [data((k, 2), "float32", k).astype(np.float32) for k in (2, 5, 3)]
    for batch_first in (False, True):
        m = m_rnn.pad_sequence([mg.tensor(s) for s in seqs], batch_first, -1.0, side)
        t = t_rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first, -1.0, side)
        assert_same(m, t, what="padded")
    m_packed = m_rnn.pack_sequence([mg.tensor(s) for s in seqs], enforce_sorted=False)
    t_packed = t_rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    assert_same(m_packed.data, t_packed.data, what="packed data")
    assert m_packed.sorted_indices.tolist() == t_packed.sorted_indices.tolist()
    assert m_packed.unsorted_indices.tolist() == t_packed.unsorted_indices.tolist()
