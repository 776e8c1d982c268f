"""GELU and fused attention on 2-byte floats: computed in float32 inside the op and rounded once at
its end, forward and backward, so each result is the float64 value rounded to bfloat16 (up to the
rare element whose float32 error straddles a rounding boundary); and the dtypes under autocast are
PyTorch's."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

BF16 = ml_dtypes.bfloat16


def _bf16_data(shape, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(BF16)


def _assert_rounded_once(actual, exact):
    """``actual`` (bfloat16) is ``exact`` (float64) rounded to bfloat16: everywhere within one
    bfloat16 unit, and equal to the rounded value on all but a few elements (float32's own error,
    largest in the tanh GELU's cancelling 1 + tanh for negative x, straddles a boundary there). A
    result rounded twice (an intermediate in bfloat16) misses on a quarter of the elements or
    more."""
    actual = actual.astype(np.float64)
    rounded = exact.astype(np.float32).astype(BF16).astype(np.float64)
    unit = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(exact), 1e-30))) - 7)  # bf16: 8 bits
    assert np.all(np.abs(actual - exact) <= unit + 1e-6 * np.abs(exact).max())
    assert np.mean(actual != rounded) < 0.05


def _gelu64(x):
    phi = np.vectorize(lambda t: 0.5 * (1.0 + math.erf(t / math.sqrt(2.0))))(x)
    slope = phi + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    return x * phi, slope


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_bfloat16_gelu_and_its_gradient_are_rounded_once(approximate):
    x_low, g_low = _bf16_data((64, 96), 0, 2.0), _bf16_data((64, 96), 1)
    x = mg.tensor(x_low, requires_grad=True)
    y = F.gelu(x, approximate=approximate)
    y.backward(mg.tensor(g_low))
    assert y.dtype == mg.bfloat16 and x.grad.dtype == mg.bfloat16
    x64 = x_low.astype(np.float64)
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        t = np.tanh(k * (x64 + 0.044715 * x64**3))
        y64 = 0.5 * x64 * (1.0 + t)
        slope64 = 0.5 * (1.0 + t) + 0.5 * x64 * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * x64**2)
    else:
        y64, slope64 = _gelu64(x64)
    _assert_rounded_once(y.detach().numpy(), y64)
    _assert_rounded_once(x.grad.numpy(), g_low.astype(np.float64) * slope64)


@pytest.mark.parametrize("dtype", [mg.bfloat16, mg.float16])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_of_every_two_byte_value_is_the_float32_kernel_rounded_once(dtype, approximate):
    """On the CPU a 2-byte GELU is looked up in a table of all 65,536 inputs: its output and its
    gradient carry the same bits as the float32 computation rounded once, specials included."""
    every = mg.tensor(np.arange(2**16, dtype=np.uint16).view(dtype.numpy_dtype))
    g = mg.tensor(_bf16_data((2**16,), 5)).to(dtype)
    x = every.clone().requires_grad_()
    y = F.gelu(x, approximate=approximate)
    y.backward(g)
    wide = every.float().requires_grad_()
    with np.errstate(all="ignore"):
        y32 = F.gelu(wide, approximate=approximate)
        y32.backward(g.float())
    for ours, ref in ((y.detach(), y32.detach()), (x.grad, wide.grad)):
        assert ours.dtype == dtype
        a, b = ours.float().numpy(), ref.numpy().astype(dtype.numpy_dtype).astype(np.float32)
        assert np.array_equal(a, b, equal_nan=True)


def _sdpa64(q, k, v, g, causal):
    """Attention's output and gradients in float64, from the closed forms."""
    scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    dp = g @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return p @ v, ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, np.swapaxes(p, -1, -2) @ g


@pytest.mark.parametrize("causal", [False, True])
def test_bfloat16_attention_and_its_gradients_are_rounded_once(causal):
    q, k, v, g = (_bf16_data((2, 3, 16, 8), seed) for seed in range(4))
    ts = [mg.tensor(a, requires_grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*ts, is_causal=causal)
    out.backward(mg.tensor(g))
    assert out.dtype == mg.bfloat16 and all(t.grad.dtype == mg.bfloat16 for t in ts)
    exact = _sdpa64(*(a.astype(np.float64) for a in (q, k, v, g)), causal)
    for ours, ref in zip([out.detach()] + [t.grad for t in ts], exact):
        _assert_rounded_once(ours.numpy(), ref)


def test_bfloat16_attention_with_dropout_matches_float64_with_the_same_draw():
    q, k, v, g = (_bf16_data((2, 2, 8, 4), seed) for seed in range(4, 8))
    results = []
    for dtype in (mg.bfloat16, mg.float64):
        ts = [mg.tensor(a.astype(np.float64)).to(dtype).requires_grad_() for a in (q, k, v)]
        mg.manual_seed(3)  # the same keep mask on both sides
        out = F.scaled_dot_product_attention(*ts, dropout_p=0.4)
        out.backward(mg.tensor(g.astype(np.float64)).to(dtype))
        results.append([out.detach().double().numpy()] + [t.grad.double().numpy() for t in ts])
    for low, ref in zip(*results):
        np.testing.assert_allclose(low, ref, rtol=2**-8, atol=1e-6 * np.abs(ref).max())


def test_gelu_and_attention_dtypes_under_autocast_are_pytorchs():
    torch = pytest.importorskip("torch")
    x = _bf16_data((4, 6, 8), 9).astype(np.float32)
    ours = {d: mg.tensor(x).to(d).requires_grad_() for d in (mg.float32, mg.bfloat16)}
    theirs = {d: torch.tensor(x).to(d).requires_grad_() for d in (torch.float32, torch.bfloat16)}
    with mg.autocast("cpu", dtype=mg.bfloat16):
        a = {d: (F.gelu(t), F.scaled_dot_product_attention(t, t, t)) for d, t in ours.items()}
    tf = torch.nn.functional
    with torch.autocast("cpu", dtype=torch.bfloat16):
        b = {d: (tf.gelu(t), tf.scaled_dot_product_attention(t, t, t)) for d, t in theirs.items()}
    for (od, ot), (td, tt) in zip(ours.items(), theirs.items()):
        assert [str(r.dtype).split(".")[-1] for r in a[od]] == [
            str(r.dtype).split(".")[-1] for r in b[td]
        ]
        sum(r.float().sum() for r in a[od]).backward()
        sum(r.float().sum() for r in b[td]).backward()
        assert str(ot.grad.dtype).split(".")[-1] == str(tt.grad.dtype).split(".")[-1]
        for r, s in zip(a[od], b[td]):
            np.testing.assert_allclose(
                r.detach().float().numpy(), s.detach().float().numpy(), atol=2e-2, rtol=1e-2
            )
        np.testing.assert_allclose(
            ot.grad.float().numpy(), tt.grad.float().numpy(), atol=5e-2, rtol=2e-2
        )
