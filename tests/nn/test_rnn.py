"""Recurrent layers and their fused cell ops, checked without PyTorch: float64 finite differences
(first and second derivatives of the fused cells), the cells against the same step written with
elementary ops, the layers against the definitions of their options (reverse direction, stacked
layers, batch_first, unbatched), shapes, state_dict round trips, initialisation and input errors.
(Side-by-side checks against PyTorch are in tests/parity/test_rnn.py.)
"""

from __future__ import annotations

import io

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.autograd import gradcheck
from minigenesis.ops import rnn as R

B, IN, H = 3, 4, 5


def _t(shape, draw, scale=0.7, grad=True):
    rng = np.random.default_rng(draw)
    return mg.tensor(rng.standard_normal(shape) * scale, dtype=mg.float64, requires_grad=grad)


def _cell_inputs(mode, bias=True, proj=0, draw=0, batch=B, hidden=H):
    """Float64 leaves for one fused step: xw, state, W_hh, b_hh (and W_hr)."""
    gates = {"rnn": 1, "relu": 1, "lstm": 4, "gru": 3}[mode] * hidden
    hsize = proj or hidden
    xw = _t((batch, gates), draw)
    h = _t((batch, hsize), draw + 1)
    w = _t((gates, hsize), draw + 2)
    b = _t((gates,), draw + 3) if bias else None
    if mode == "lstm":
        c = _t((batch, hidden), draw + 4)
        w_hr = _t((proj, hidden), draw + 5) if proj else None
        return [xw, h, c, w, b, w_hr]
    return [xw, h, w, b]


def _apply(mode, *args):
    if mode == "lstm":
        return R.LSTMCell.apply(*args)
    if mode == "gru":
        return R.GRUCell.apply(*args)
    return R.RNNCell.apply(*args, mode == "relu")


def _composite(mode, *args):
    """The same step from elementary ops (PyTorch's formulas, gate order i,f,g,o / r,z,n)."""
    if mode == "lstm":
        xw, h, c, w, b, w_hr = args
        pre = xw + h @ w.mT + (b if b is not None else 0)
        i, f, g, o = pre.chunk(4, 1)
        c2 = f.sigmoid() * c + i.sigmoid() * g.tanh()
        m = o.sigmoid() * c2.tanh()
        return (m if w_hr is None else m @ w_hr.mT), c2
    xw, h, w, b = args
    hw = h @ w.mT + (b if b is not None else 0)
    if mode == "gru":
        xr, xz, xn = xw.chunk(3, 1)
        hr, hz, hn = hw.chunk(3, 1)
        r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return (1 - z) * n + z * h
    a = xw + hw
    return a.relu() if mode == "relu" else a.tanh()


CELLS = [
    ("rnn", True, 0),
    ("relu", True, 0),
    ("rnn", False, 0),
    ("lstm", True, 0),
    ("lstm", False, 0),
    ("lstm", True, 3),
    ("gru", True, 0),
    ("gru", False, 0),
]


@pytest.mark.parametrize("mode,bias,proj", CELLS)
def test_fused_cell_gradients_match_finite_differences(mode, bias, proj):
    inputs = _cell_inputs(mode, bias, proj)
    assert gradcheck(lambda *a: _apply(mode, *a), inputs)


# the bias-free variants differ only in a missing term: slow-marked, as finite differences of a
# gradient cost one backward per input element
SECOND = [
    pytest.param(*c, marks=pytest.mark.slow) if not c[1] and c[0] != "rnn" else c for c in CELLS
]


@pytest.mark.parametrize("mode,bias,proj", SECOND)
def test_fused_cell_second_derivatives_match_finite_differences(mode, bias, proj):
    """Differentiating the gradient (backward with create_graph=True) is itself correct."""
    inputs = _cell_inputs(mode, bias, min(proj, 2), draw=7, batch=2, hidden=3)
    leaves = [t for t in inputs if t is not None]
    out = _apply(mode, *inputs)
    weights = [
        _t(o.shape, 20 + k, grad=False) for k, o in enumerate(out if mode == "lstm" else [out])
    ]

    def first_grads(*args):
        outs = _apply(mode, *args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        loss = sum((o * w).sum() for o, w in zip(outs, weights))
        ls = [a for a in args if a is not None]
        return mg.autograd.grad(loss, ls, create_graph=True)

    assert len(leaves) == len(first_grads(*inputs))
    assert gradcheck(first_grads, inputs)


@pytest.mark.parametrize("mode,bias,proj", CELLS)
def test_fused_cell_matches_the_step_written_with_elementary_ops(mode, bias, proj):
    fused_in = _cell_inputs(mode, bias, proj, draw=3)
    ref_in = [None if t is None else t.detach().requires_grad_() for t in fused_in]
    fused, ref = _apply(mode, *fused_in), _composite(mode, *ref_in)
    fused = fused if isinstance(fused, tuple) else (fused,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    loss_f = sum((o * _t(o.shape, 30 + k, grad=False)).sum() for k, o in enumerate(fused))
    loss_r = sum((o * _t(o.shape, 30 + k, grad=False)).sum() for k, o in enumerate(ref))
    loss_f.backward()
    loss_r.backward()
    for a, b in zip(fused, ref):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    for a, b in zip(fused_in, ref_in):
        if a is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------------------------ layers
def _layer(cls, **kw):
    mg.manual_seed(0)
    return cls(IN, H, dtype=mg.float64, **kw)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
@pytest.mark.parametrize("layers,bidir,batch_first", [(1, False, False), (2, True, True)])
def test_layer_output_and_state_shapes(cls, layers, bidir, batch_first):
    m = cls(IN, H, num_layers=layers, bidirectional=bidir, batch_first=batch_first)
    T, d = 6, 2 if bidir else 1
    x = mg.randn(B, T, IN) if batch_first else mg.randn(T, B, IN)
    out, state = m(x)
    assert out.shape == ((B, T, d * H) if batch_first else (T, B, d * H))
    states = state if cls is nn.LSTM else (state,)
    for s in states:
        assert s.shape == (layers * d, B, H)
    out1, state1 = m(mg.randn(T, IN))  # unbatched
    assert out1.shape == (T, d * H)
    for s in state1 if cls is nn.LSTM else (state1,):
        assert s.shape == (layers * d, H)


def test_lstm_projection_shapes():
    m = nn.LSTM(IN, H, num_layers=2, proj_size=2, bidirectional=True)
    out, (h, c) = m(mg.randn(7, B, IN))
    assert out.shape == (7, B, 4) and h.shape == (4, B, 2) and c.shape == (4, B, H)
    assert m.weight_hr_l1_reverse.shape == (2, H)
    assert m.weight_ih_l1.shape == (4 * H, 4) and m.weight_hh_l0.shape == (4 * H, 2)


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_reverse_direction_is_the_forward_pass_over_the_flipped_sequence(cls):
    bi = _layer(cls, bidirectional=True)
    uni = _layer(cls)
    uni.load_state_dict(
        {k.replace("_reverse", ""): v for k, v in bi.state_dict().items() if k.endswith("_reverse")}
    )
    x = _t((6, B, IN), 1, grad=False)
    backwards = mg.arange(5, -1, -1)
    out, _ = bi(x)
    rev, _ = uni(x[backwards])
    np.testing.assert_allclose(
        out[:, :, H:].detach().numpy(), rev[backwards].detach().numpy(), rtol=1e-12
    )


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_second_layer_reads_the_first_layers_outputs(cls):
    two = _layer(cls, num_layers=2)
    first, second = _layer(cls), cls(H, H, dtype=mg.float64)
    sd = two.state_dict()
    first.load_state_dict({k: v for k, v in sd.items() if k.endswith("_l0")})
    second.load_state_dict({k.replace("_l1", "_l0"): v for k, v in sd.items() if k.endswith("_l1")})
    x = _t((5, B, IN), 2, grad=False)
    out, state = two(x)
    mid, s1 = first(x)
    ref, s2 = second(mid)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    if cls is nn.LSTM:
        state, s1, s2 = state[1], s1[1], s2[1]
    np.testing.assert_allclose(
        state.detach().numpy(), mg.cat([s1, s2]).detach().numpy(), rtol=1e-12
    )


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_batch_first_and_unbatched_inputs_give_the_same_numbers(cls):
    m = _layer(cls, num_layers=2, bidirectional=True)
    mb = _layer(cls, num_layers=2, bidirectional=True, batch_first=True)
    mb.load_state_dict(m.state_dict())
    x = _t((5, B, IN), 3, grad=False)
    out, _ = m(x)
    out_b, _ = mb(x.transpose(0, 1))
    np.testing.assert_allclose(out_b.transpose(0, 1).detach().numpy(), out.detach().numpy())
    one, _ = m(x[:, 1])
    np.testing.assert_allclose(one.detach().numpy(), out[:, 1].detach().numpy(), rtol=1e-12)


def test_lstm_initial_state_gradients_match_finite_differences():
    mg.manual_seed(0)
    m = nn.LSTM(2, 3, num_layers=2, bidirectional=True, dtype=mg.float64)
    x = _t((3, 2, 2), 4)
    h0, c0 = _t((4, 2, 3), 5), _t((4, 2, 3), 6)
    assert gradcheck(lambda x, h, c: m(x, (h, c))[0], [x, h0, c0])


@pytest.mark.parametrize("cls", [pytest.param(nn.RNN, marks=pytest.mark.slow), nn.GRU])
def test_layer_gradients_match_finite_differences(cls):
    mg.manual_seed(0)
    m = cls(2, 3, num_layers=2, bidirectional=True, dtype=mg.float64)
    x, h0 = _t((3, 2, 2), 7), _t((4, 2, 3), 8)
    assert gradcheck(lambda x, h: m(x, h), [x, h0])


def test_dropout_between_layers_only_in_training():
    m = nn.LSTM(IN, H, num_layers=2, dropout=0.5)
    x = mg.randn(6, B, IN)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    m.train()
    c = m(x)[0]
    assert not np.allclose(c.detach().numpy(), a.detach().numpy())
    with pytest.warns(UserWarning, match="num_layers greater than 1"):
        nn.GRU(IN, H, dropout=0.3)


# ------------------------------------------------------------------ parameters and state_dict
def test_parameter_names_order_and_init_range_are_pytorchs():
    m = nn.LSTM(IN, 16, num_layers=2, bidirectional=True, proj_size=3)
    names = [n for n, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and names[-1] == "weight_hr_l1_reverse"
    assert len(names) == 20
    for p in m.parameters():
        a = p.detach().numpy()
        assert a.min() >= -0.25 and a.max() <= 0.25  # 1/sqrt(16)
        assert a.max() - a.min() > 0.3  # really spread over the range
    assert [n for n, _ in nn.GRU(IN, H, bias=False).named_parameters()] == [
        "weight_ih_l0",
        "weight_hh_l0",
    ]


@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU, nn.RNNCell, nn.LSTMCell, nn.GRUCell])
def test_state_dict_round_trip_through_save_and_load(cls):
    kw = {} if "Cell" in cls.__name__ else {"num_layers": 2, "bidirectional": True}
    a, b = cls(IN, H, **kw), cls(IN, H, **kw)
    buf = io.BytesIO()
    mg.save(a.state_dict(), buf)
    buf.seek(0)
    b.load_state_dict(mg.load(buf))
    x = mg.randn(4, B, IN) if not kw == {} else mg.randn(B, IN)
    ya, yb = a(x), b(x)
    ya = ya[0] if isinstance(ya, tuple) else ya
    yb = yb[0] if isinstance(yb, tuple) else yb
    np.testing.assert_array_equal(ya.detach().numpy(), yb.detach().numpy())


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.LSTMCell, nn.GRUCell])
def test_cells_take_unbatched_inputs_and_default_states(cls):
    m = cls(IN, H)
    x = mg.randn(B, IN)
    y = m(x)
    y1 = m(x[0])
    first = (y[0][0], y1[0]) if cls is nn.LSTMCell else (y[0], y1)
    # one row of a batched product and the same row alone are summed in different orders (gemm
    # vs gemv): float32 round-off of about eps * sum |terms|, absolute, not relative to a small y
    np.testing.assert_allclose(
        first[0].detach().numpy(), first[1].detach().numpy(), rtol=1e-6, atol=1e-6
    )
    zeros = mg.zeros(B, H)
    y0 = m(x, (zeros, zeros)) if cls is nn.LSTMCell else m(x, zeros)
    a = y0[0] if cls is nn.LSTMCell else y0
    b = y[0] if cls is nn.LSTMCell else y
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


# ---------------------------------------------------------------------------------- errors
def test_wrong_input_feature_size_names_both_sizes():
    with pytest.raises(RuntimeError, match="Expected 4, got 7"):
        nn.LSTM(IN, H)(mg.randn(5, B, 7))
    with pytest.raises(RuntimeError, match="inconsistent input_size: got 7 expected 4"):
        nn.GRUCell(IN, H)(mg.randn(B, 7))


def test_wrong_input_rank_is_refused():
    with pytest.raises(ValueError, match="Expected input to be 2D or 3D, got 4D"):
        nn.RNN(IN, H)(mg.randn(2, 3, 4, IN))
    with pytest.raises(ValueError, match="Expected input to be 1D or 2D, got 3D"):
        nn.LSTMCell(IN, H)(mg.randn(2, 3, IN))


def test_wrong_initial_state_shape_names_the_expected_shape():
    m = nn.LSTM(IN, H, num_layers=2)
    x = mg.randn(5, B, IN)
    with pytest.raises(
        RuntimeError, match=r"Expected hidden\[0\] size \(2, 3, 5\), got \[1, 3, 5\]"
    ):
        m(x, (mg.zeros(1, B, H), mg.zeros(2, B, H)))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(2, 3, 5\)"):
        m(x, (mg.zeros(2, B, H), mg.zeros(2, 4, H)))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        nn.GRU(IN, H)(x, mg.zeros(1, B, H + 1))
    with pytest.raises(RuntimeError, match="unbatched 2-D input, hx should also be 2-D"):
        nn.RNN(IN, H)(mg.randn(5, IN), mg.zeros(1, 1, H))
    with pytest.raises(TypeError, match="tuple"):
        m(x, mg.zeros(2, B, H))
    with pytest.raises(RuntimeError, match="batch size 3 doesn't match hidden batch size 2"):
        nn.RNNCell(IN, H)(mg.randn(B, IN), mg.zeros(2, H))
    with pytest.raises(RuntimeError, match=r"hidden\[1\] has inconsistent hidden_size: got 6"):
        nn.LSTMCell(IN, H)(mg.randn(B, IN), (mg.zeros(B, H), mg.zeros(B, 6)))


def test_input_dtype_must_match_the_weights():
    with pytest.raises(ValueError, match="input must have the type"):
        nn.GRU(IN, H)(mg.randn(5, B, IN, dtype=mg.float64))


def test_bad_constructor_arguments_are_refused():
    with pytest.raises(ValueError, match="Unknown nonlinearity 'sigmoid'"):
        nn.RNN(IN, H, nonlinearity="sigmoid")
    with pytest.raises(ValueError, match="only supported for LSTM"):
        nn.GRU(IN, H, proj_size=2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(IN, H, proj_size=H)
    with pytest.raises(ValueError, match=r"dropout should be a number in range \[0, 1\]"):
        nn.LSTM(IN, H, num_layers=2, dropout=1.5)
    with pytest.raises(ValueError, match="hidden_size must be an integer greater than zero"):
        nn.LSTM(IN, 0)
    with pytest.raises(ValueError, match="num_layers must be an integer greater than zero"):
        nn.GRU(IN, H, num_layers=0)


def test_repr_lists_the_options_as_pytorch():
    assert repr(nn.LSTM(10, 20, num_layers=2, batch_first=True)) == (
        "LSTM(10, 20, num_layers=2, batch_first=True)"
    )
    assert repr(nn.RNN(3, 4, nonlinearity="relu")) == "RNN(3, 4)"  # (PyTorch omits it)
    assert repr(nn.GRUCell(3, 4, bias=False)) == "GRUCell(3, 4, bias=False)"


# ------------------------------------------------------------------------ packed sequences
@pytest.mark.parametrize("cls", [nn.RNN, nn.LSTM, nn.GRU])
def test_packed_batch_gives_each_sequence_what_it_gets_alone(cls):
    """Packing must make each sequence's outputs and final state those of running it by itself,
    in both directions (the reverse pass starts at each sequence's own last step)."""
    from minigenesis.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    m = _layer(cls, num_layers=2, bidirectional=True)
    lengths = [2, 5, 3]
    x = _t((5, 3, IN), 11, grad=False)
    out, state = m(pack_padded_sequence(x, lengths, enforce_sorted=False))
    padded, got_lengths = pad_packed_sequence(out)
    assert got_lengths.tolist() == lengths
    h_n = state[0] if cls is nn.LSTM else state
    for b, n in enumerate(lengths):
        alone, alone_state = m(x[:n, b])  # unbatched: this sequence only
        alone_h = alone_state[0] if cls is nn.LSTM else alone_state
        np.testing.assert_allclose(
            padded[:n, b].detach().numpy(), alone.detach().numpy(), rtol=1e-12
        )
        assert np.all(padded[n:, b].detach().numpy() == 0)  # padding after the end
        np.testing.assert_allclose(h_n[:, b].detach().numpy(), alone_h.detach().numpy(), rtol=1e-12)


def test_packing_refuses_bad_lengths():
    from minigenesis.nn.utils.rnn import pack_padded_sequence

    x = mg.randn(4, 3, 2)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="greater than 0"):
        pack_padded_sequence(x, [4, 0, 1])
    with pytest.raises(ValueError, match="equal to batch_size, but got 2"):
        pack_padded_sequence(x, [4, 1])
    with pytest.raises(RuntimeError, match="larger than the input's 4 time steps"):
        pack_padded_sequence(x, [5, 2, 1])
