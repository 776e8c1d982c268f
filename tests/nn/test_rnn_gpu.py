"""Recurrent layers on CuPy arrays: RNN, LSTM (with a projection) and GRU, bidirectional and
stacked, on "cuda" against the same layers on the CPU, outputs and every gradient (skipped without
CuPy and a CUDA device; run on the strict CuPy stand-in by tests/core/test_cuda_standin.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)


@pytest.mark.parametrize(
    "cls,options",
    [
        (nn.RNN, {"nonlinearity": "relu", "num_layers": 2}),
        (nn.LSTM, {"num_layers": 2, "bidirectional": True, "proj_size": 3}),
        (nn.GRU, {"bidirectional": True, "batch_first": True}),
    ],
)
def test_recurrent_layer_on_cuda_matches_the_cpu(cls, options):
    mg.manual_seed(0)
    cpu = cls(4, 6, **options)
    gpu = cls(4, 6, **options)
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x = mg.randn(5, 3, 4)
    xc, xg = x.clone().requires_grad_(), x.cuda().requires_grad_()
    out_c, _ = cpu(xc)
    out_g, _ = gpu(xg)
    assert out_g.device.type == "cuda"
    np.testing.assert_allclose(out_g.cpu().detach().numpy(), out_c.detach().numpy(), atol=1e-5)
    (out_c**2).sum().backward()
    (out_g**2).sum().backward()
    np.testing.assert_allclose(xg.grad.cpu().numpy(), xc.grad.numpy(), atol=1e-4)
    for pc, pg in zip(cpu.parameters(), gpu.parameters()):
        np.testing.assert_allclose(pg.grad.cpu().numpy(), pc.grad.numpy(), atol=1e-4)


@pytest.mark.parametrize("cls", [nn.RNNCell, nn.LSTMCell, nn.GRUCell])
def test_cell_on_cuda_matches_the_cpu(cls):
    mg.manual_seed(1)
    cpu = cls(4, 6)
    gpu = cls(4, 6)
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x = mg.randn(3, 4)
    yc, yg = cpu(x), gpu(x.cuda())
    yc = yc[0] if isinstance(yc, tuple) else yc
    yg = yg[0] if isinstance(yg, tuple) else yg
    np.testing.assert_allclose(yg.cpu().detach().numpy(), yc.detach().numpy(), atol=1e-5)


def test_packed_sequence_on_cuda_matches_the_cpu():
    from minigenesis.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    mg.manual_seed(2)
    cpu = nn.LSTM(4, 6, bidirectional=True)
    gpu = nn.LSTM(4, 6, bidirectional=True)
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x, lengths = mg.randn(5, 3, 4), [2, 5, 3]
    out_c, _ = pad_packed_sequence(cpu(pack_padded_sequence(x, lengths, enforce_sorted=False))[0])
    packed = pack_padded_sequence(x.cuda(), lengths, enforce_sorted=False)
    out_g, _ = pad_packed_sequence(gpu(packed)[0])
    assert out_g.device.type == "cuda"
    np.testing.assert_allclose(out_g.cpu().detach().numpy(), out_c.detach().numpy(), atol=1e-5)
