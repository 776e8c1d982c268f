"""GELU's backward for 2-byte floats (kernels/gelu.py's times_slope): dL/dx = dL/dy * slope in
float32, rounded once, as one ufunc call: the bits of the op's own widen-multiply-round, and
within half a unit of the float64 truth's rounding, contiguous or strided."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import gelu as G


def _grad(x, g, approximate="none"):
    t = mg.tensor(x, requires_grad=True)
    F.gelu(t, approximate=approximate).backward(g)
    return t.grad


@pytest.mark.parametrize("dtype", [mg.bfloat16, mg.float16])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_one_pass_gradient_has_the_bits_of_the_ops_own_code(dtype, approximate, monkeypatch):
    rng = np.random.default_rng(0)
    x = mg.tensor(rng.standard_normal((40, 1000)) * 3).to(dtype)
    g = mg.tensor(rng.standard_normal((40, 1000))).to(dtype)
    fast = _grad(x, g, approximate)
    monkeypatch.setattr(G, "times_slope", lambda gy, slope: None)
    plain = _grad(x, g, approximate)
    assert fast.dtype == plain.dtype == dtype
    bits = np.uint16
    assert np.array_equal(fast._data.view(bits), plain._data.view(bits))


def test_bfloat16_gradient_is_the_float64_truth_within_one_rounding():
    rng = np.random.default_rng(1)
    base = mg.tensor(rng.standard_normal((64, 2 * 300)) * 2).to(mg.bfloat16).requires_grad_()
    x = base[:, ::2]  # strided
    g = mg.tensor(rng.standard_normal((64, 300))).to(mg.bfloat16)
    F.gelu(x).backward(g)
    gx = base.grad[:, ::2].float().numpy().astype(np.float64)
    assert not base.grad[:, 1::2].float().numpy().any()
    x64 = x.detach().float().numpy().astype(np.float64)
    g64 = g.float().numpy().astype(np.float64)
    phi = 0.5 * np.vectorize(math.erfc)(-x64 / math.sqrt(2))
    truth = g64 * (phi + x64 * np.exp(-x64 * x64 / 2) / math.sqrt(2 * math.pi))
    # one bfloat16 rounding of the float32 product: within 2^-8 of |truth| (plus float32's slack)
    np.testing.assert_array_less(np.abs(gx - truth), np.abs(truth) * 2.0**-8 * 1.01 + 1e-30)


@pytest.mark.parametrize("shape", [(3, G._GELU_BLOCK + 5), (0, 4), ()])
def test_two_byte_lookups_by_blocks_give_each_inputs_table_entries(shape):
    # y and the slope of 2-byte x are the tables' entries at x's bits, over several lookup
    # blocks, a strided view, an empty and a 0-d array
    rng = np.random.default_rng(2)
    base = (rng.standard_normal(shape + (2,)) * 4).astype(mg.bfloat16.numpy_dtype)
    base.reshape(-1)[:3] = np.array([np.inf, -np.inf, np.nan])[: base.size]
    x = base[..., 0]  # strided
    y_table, slope_table = G._gelu_tables(x.dtype, "none", None)
    y, slope = G.gelu(x, "none", True, None)
    bits = x.view(np.uint16).astype(np.intp)
    assert y.shape == slope.shape == x.shape
    assert np.array_equal(y.view(np.uint16), y_table[bits].view(np.uint16))
    assert np.array_equal(slope.view(np.uint32), slope_table[bits].view(np.uint32))
