"""float32 <-> bfloat16 / float16 conversions compiled by Numba (kernels/casts.py): bit for bit
the conversions of ``astype`` (ml_dtypes' for bfloat16, NumPy's for float16), and the autocast
ops that hand their casts to them give the plain path's bits."""

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
from minigenesis.kernels import casts, cpu_jit

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(not cpu_jit.available(), reason="MINIGENESIS_NUMBA=0")

BF16 = ml_dtypes.bfloat16
LOW = [BF16, np.float16]


def _float32_patterns() -> np.ndarray:
    """float32 bit patterns: every one of the 65,536 top halves (every sign, exponent, and the
    fraction's top 7 bits: zeros, subnormals, inf, NaNs) with low halves that make every tie of
    bfloat16 and of float16, normal and subnormal (a 1 followed by zeros at each position), one
    below and one above each, and random ones."""
    high = np.arange(65536, dtype=np.uint32) << 16
    lows = [0, 0xFFFF]
    for k in range(16):
        lows += [1 << k, (1 << k) - 1, (1 << k) + 1, (3 << k) & 0xFFFF]
    lows = np.unique(np.array(lows, dtype=np.uint32))
    rng = np.random.default_rng(0)
    random = rng.integers(0, 1 << 16, (65536, 8), dtype=np.uint32)
    bits = np.concatenate([(high[:, None] | lows).ravel(), (high[:, None] | random).ravel()])
    return bits.view(np.float32)


@pytest.mark.parametrize("low", LOW)
def test_rounding_float32_gives_astypes_bits_for_every_tie_subnormal_and_nan(low):
    x = _float32_patterns()
    with np.errstate(all="ignore"):
        expected = x.astype(low)
    got = casts.astype(x, low)
    np.testing.assert_array_equal(got.view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize("low", LOW)
def test_widening_gives_astypes_bits_for_all_65536_values(low):
    h = np.arange(65536, dtype=np.uint16).view(low)
    got = casts.astype(h, np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), h.astype(np.float32).view(np.uint32))


def test_nan_payloads_rounded_to_bfloat16_become_the_quiet_nan_of_their_sign():
    bits = np.array([0x7F800001, 0x7FC12345, 0xFF800001, 0xFFFFFFFF], dtype=np.uint32)
    out = casts.astype(bits.view(np.float32), BF16).view(np.uint16)
    np.testing.assert_array_equal(out, [0x7FC0, 0x7FC0, 0xFFC0, 0xFFC0])


def test_rounding_overflows_to_inf_and_ties_go_to_even():
    # bfloat16's largest finite number 0x7f7f plus half a unit ties to even: infinity; just below
    # the tie it stays the largest finite number
    bits = np.array([0x7F7F8000, 0xFF7F8000, 0x7F7F7FFF], dtype=np.uint32)
    np.testing.assert_array_equal(
        casts.astype(bits.view(np.float32), BF16).view(np.uint16), [0x7F80, 0xFF80, 0x7F7F]
    )
    x = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 65520.0, 65519.0], np.float32)
    np.testing.assert_array_equal(casts.astype(x[:2], BF16).astype(np.float64), [1, 1 + 2.0**-6])
    np.testing.assert_array_equal(
        casts.astype(x[2:], np.float16).astype(np.float64), [np.inf, 65504]
    )


@pytest.mark.parametrize("shape", [(0,), (1,), (3, 0, 2), (5, 7), (2, 3, 4, 5)])
@pytest.mark.parametrize("low", LOW)
def test_any_shape_round_trips_and_keeps_its_shape(shape, low):
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    r = casts.astype(x, low)
    assert r.shape == shape and r.dtype == low
    np.testing.assert_array_equal(r.view(np.uint16), x.astype(low).view(np.uint16))
    np.testing.assert_array_equal(casts.astype(r, np.float32), r.astype(np.float32))


def test_a_transposed_block_is_converted_in_its_own_layout_as_astype_keeps_it():
    x = np.random.default_rng(2).standard_normal((4, 6, 3, 5)).astype(np.float32)
    t = x.transpose(0, 2, 1, 3)  # as attention's heads
    r = casts.astype(t, BF16)
    assert r.strides == t.astype(BF16).strides
    np.testing.assert_array_equal(r.view(np.uint16), t.astype(BF16).view(np.uint16))


def test_arrays_it_does_not_serve_are_left_to_astype(monkeypatch):
    x = np.ones((8, 8), np.float32)
    assert casts.astype(x[:, ::2], BF16) is None  # not one dense block
    assert casts.astype(x, np.float64) is None  # another pair of dtypes
    assert (
        casts.astype(x.astype(np.float64), BF16) is None
    )  # float64 rounds through float32 elsewhere
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    assert casts.astype(x, BF16) is None


def _autocast_mlp_grads():
    """One autocast(bfloat16) forward and backward of a Linear-ReLU-Linear on inputs big enough
    for the compiled casts; the output, dL/dx and the weights' gradients as arrays (the biases'
    are sums the compiled pass takes in float64: tested on their own below)."""
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(96, 128), mg.nn.ReLU(), mg.nn.Linear(128, 80))
    x = mg.randn(128, 96, requires_grad=True)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = model(x)
    (y.float() ** 2).sum().backward()
    weights = [model[0].weight, model[2].weight]
    return [y.float().detach().numpy(), x.grad.numpy()] + [w.grad.numpy() for w in weights]


def _autocast_attention_grads():
    """bfloat16 attention on heads that are transposed views of (B, T, H, E) leaves, as a GPT's
    are: the output and the three gradients as arrays."""
    mg.manual_seed(0)
    q, k, v = (mg.randn(4, 64, 4, 32).bfloat16().requires_grad_() for _ in range(3))
    heads = [t.transpose(1, 2) for t in (q, k, v)]
    o = mg.nn.functional.scaled_dot_product_attention(*heads, is_causal=True)
    (o.float() ** 2).sum().backward()
    return [o.float().detach().numpy()] + [t.grad.float().numpy() for t in (q, k, v)]


@pytest.mark.parametrize("run", [_autocast_mlp_grads, _autocast_attention_grads])
def test_autocast_steps_give_the_same_bits_with_and_without_compiled_casts(run, monkeypatch):
    fast = run()
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain = run()
    for a, b in zip(fast, plain):
        np.testing.assert_array_equal(a, b)


def test_the_cast_op_hands_large_conversions_over_and_its_gradient_too(monkeypatch):
    x = mg.randn(64, 128, requires_grad=True)
    calls = []
    original = casts.astype
    monkeypatch.setattr(casts, "astype", lambda a, d: calls.append(d) or original(a, d))
    y = x.bfloat16()
    (y.float() * 3).sum().backward()
    assert len(calls) >= 2  # rounded forward, widened forward, and the gradient cast back
    np.testing.assert_array_equal(
        y.float().detach().numpy(), x.detach().numpy().astype(BF16).astype(np.float32)
    )
    np.testing.assert_array_equal(x.grad.numpy(), np.full((64, 128), 3, np.float32))


@pytest.mark.parametrize("shape", [(256, 128, 384), (128, 784, 512), (300, 512, 130), (1, 64, 5)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_rounded_adds_the_bias_in_its_rounding_pass_as_close_as_the_plain_path(shape, bias):
    m, k, n = shape
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((m, k), np.float32), rng.standard_normal((n, k), np.float32)
    b = rng.standard_normal(n, np.float32) if bias else None
    got = casts.linear_rounded(x, w, b, BF16).astype(np.float64)
    plain = (x @ w.T + (0 if b is None else b)).astype(BF16).astype(np.float64)
    exact = x.astype(np.float64) @ w.T.astype(np.float64) + (0 if b is None else b)
    # the same float32 terms, summed in another order where gemm splits K: rarely one unit apart
    ulp = np.spacing(np.abs(plain).astype(BF16)).astype(np.float64)
    assert np.all(np.abs(got - plain) <= ulp)
    assert np.mean(got != plain) < 1e-3
    assert np.abs(got - exact).mean() <= np.abs(plain - exact).mean() * 1.01


def test_linear_rounded_leaves_float16_to_the_plain_path():
    x = np.ones((4, 4), np.float32)
    assert casts.linear_rounded(x, x, None, np.float16) is None


def test_linear_rounded_declines_a_bias_that_is_not_one_value_per_output():
    """The loop reads b[j] for every output column j without bounds checks: a (1,) or (N, 1)
    bias is left to the plain path (which broadcasts or refuses it) instead of read past."""
    x, w = np.ones((4, 8), np.float32), np.ones((6, 8), np.float32)
    for b in (np.ones(1, np.float32), np.ones((6, 1), np.float32), np.ones(7, np.float32)):
        assert casts.linear_rounded(x, w, b, BF16) is None
    y = casts.linear_rounded(x, w, np.full(6, 0.5, np.float32), BF16)
    np.testing.assert_array_equal(y.astype(np.float32), np.full((4, 6), 8.5, np.float32))


def _large_autocast_linear():
    mg.manual_seed(0)
    layer = mg.nn.Linear(784, 512)
    x = mg.randn(128, 784)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = layer(x)
    r = lambda a: a.astype(BF16).astype(np.float64)  # noqa: E731
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    return y.float().detach().numpy().astype(np.float64), r(x.numpy()) @ r(w).T + r(b)


def test_a_large_autocast_linear_is_as_close_to_float64_as_the_plain_path(monkeypatch):
    calls, original = [], casts.linear_rounded
    monkeypatch.setattr(casts, "linear_rounded", lambda *a: calls.append(1) or original(*a))
    fast, exact = _large_autocast_linear()
    assert calls  # the layer's output came from the fused pass
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain, _ = _large_autocast_linear()
    ulp = np.spacing(np.abs(plain).astype(BF16)).astype(np.float64)
    assert np.all(np.abs(fast - plain) <= ulp) and np.mean(fast != plain) < 1e-3
    assert np.abs(fast - exact).mean() <= np.abs(plain - exact).mean() * 1.01


@pytest.mark.parametrize("shape", [(1024, 512), (300, 7), (1, 9000), (0, 16)])
def test_widening_with_column_sums_widens_exactly_and_sums_closer_than_float32(shape):
    g = np.random.default_rng(4).standard_normal(shape).astype(BF16)
    wide, sums = casts.widen_with_column_sums(g)
    np.testing.assert_array_equal(wide, g.astype(np.float32))
    exact = g.astype(np.float64).sum(axis=0)
    assert sums.dtype == np.float32 and sums.shape == (shape[1],)
    np.testing.assert_array_equal(sums, exact.astype(np.float32))  # float64 sums rounded once


def test_widening_with_column_sums_leaves_other_arrays_to_the_plain_path():
    g = np.ones((8, 8), BF16)
    assert casts.widen_with_column_sums(g.astype(np.float16)) is None
    assert casts.widen_with_column_sums(g[:, ::2]) is None
    assert casts.widen_with_column_sums(g.reshape(4, 4, 4)) is None


def _large_autocast_linear_bias_grad():
    mg.manual_seed(0)
    layer = mg.nn.Linear(256, 512)
    x = mg.randn(1024, 256)
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = layer(x)
    g = mg.randn(1024, 512).bfloat16()
    y.backward(g)
    return layer.bias.grad.numpy().astype(np.float64), g.float().numpy().astype(np.float64).sum(0)


def test_a_large_autocast_linear_bias_gradient_is_at_least_as_close_as_the_plain_path(monkeypatch):
    calls, original = [], casts.widen_with_column_sums
    monkeypatch.setattr(casts, "widen_with_column_sums", lambda g: calls.append(1) or original(g))
    fast, exact = _large_autocast_linear_bias_grad()
    assert calls
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain, _ = _large_autocast_linear_bias_grad()
    np.testing.assert_array_equal(fast, exact.astype(np.float32))
    assert np.abs(fast - exact).max() <= np.abs(plain - exact).max()
