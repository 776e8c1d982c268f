"""LSTM / GRU / RNN layers converted to float16 or bfloat16 (``.to(dtype)``, not autocast): each
step's gates, their sigmoids/tanhs and the new cell state are computed in float32 and only the
step's outputs h', c' are rounded, as PyTorch's CPU kernel keeps them in float32. Rounding every
intermediate to the 2-byte dtype took an LSTM's outputs and input gradients 2-3x further from the
float64 truth. Oracle: the same layer in float64 with the rounded weights and inputs."""

import numpy as np
import pytest

import minigenesis as mg

# the largest errors over 3 seeds of a 12-step, 16-unit LSTM: float32 inside measured
# 1.7e-4 / 9.6e-4 (outputs, float16 / bfloat16) and 5.7e-4 / 4.4e-3 (dL/dx, relative), rounding
# every gate to the 2-byte dtype measured 3.9e-4 / 2.9e-3 and 1.0e-3 / 9.2e-3
BOUNDS = {"float16": (2.5e-4, 8e-4), "bfloat16": (1.5e-3, 6.5e-3)}


def _errors(cell: str, dtype, seed: int) -> tuple:
    mg.manual_seed(seed)
    layer = getattr(mg.nn, cell)(8, 16)
    low = getattr(mg.nn, cell)(8, 16)
    low.load_state_dict(layer.state_dict())
    low = low.to(dtype)
    ref = getattr(mg.nn, cell)(8, 16).double()
    ref.load_state_dict({k: v.to(dtype).double() for k, v in layer.state_dict().items()})
    x64 = np.random.default_rng(seed).uniform(-1, 1, (12, 4, 8))
    x = mg.tensor(x64).to(dtype).requires_grad_()
    xr = x.detach().double().requires_grad_()
    y, yr = low(x)[0], ref(xr)[0]
    assert y.dtype == dtype
    ct = mg.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape))).to(dtype)
    (y * ct).sum().backward()
    (yr * ct.double()).sum().backward()
    assert x.grad.dtype == dtype
    for p in low.parameters():
        assert p.grad is not None and p.grad.dtype == dtype
    out_err = float((y.detach().double() - yr.detach()).abs().max())
    grad_err = float((x.grad.double() - xr.grad).abs().max() / xr.grad.abs().max())
    return out_err, grad_err


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_lstm_in_two_byte_floats_stays_close_to_float64_truth(dtype):
    errs = [_errors("LSTM", getattr(mg, dtype), seed) for seed in range(3)]
    out_bound, grad_bound = BOUNDS[dtype]
    assert max(e[0] for e in errs) < out_bound
    assert max(e[1] for e in errs) < grad_bound


@pytest.mark.parametrize("cell", ["GRU", "RNN"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_gru_rnn_in_two_byte_floats_keep_dtype_and_track_float64(cell, dtype):
    out_bound, grad_bound = BOUNDS[dtype]
    out_err, grad_err = _errors(cell, getattr(mg, dtype), 0)
    assert out_err < 4 * out_bound and grad_err < 4 * grad_bound
