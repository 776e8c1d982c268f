"""Sigmoid and tanh against PyTorch to the bit: their gradients, the overflow region of sigmoid
(silent, exactly 0 below -88.7), the special values; the bfloat16 arithmetic route and ``out=``
of the one-tensor functions."""

import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.ops.activation import SigmoidGrad, TanhGrad

torch = pytest.importorskip("torch")


def _bits_equal(a, b) -> bool:
    """The same float bit patterns (NaN compared as NaN, whatever its payload)."""
    a, b = np.asarray(a), np.asarray(b)
    nan = np.isnan(a) & np.isnan(b)
    return bool(
        np.all(
            (
                a.view(np.uint8).reshape(a.shape + (-1,))
                == b.view(np.uint8).reshape(b.shape + (-1,))
            ).all(-1)
            | nan
        )
    )


def _ulps(a, b) -> np.ndarray:
    """Distance in float32 units in the last place (both finite, of one sign)."""
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


def test_sigmoid_is_silent_and_exactly_zero_where_exp_overflows():
    x = np.array([-88.72, -88.73, -89.0, -100.0, -104.0, -1e30, -np.inf], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's overflow warning would fail the test
        got = mg.tensor(x).sigmoid().numpy()
    np.testing.assert_array_equal(got, torch.sigmoid(torch.from_numpy(x)).numpy())
    assert (got[1:] == 0).all()


def test_sigmoid_of_special_values_matches_torch_bit_for_bit():
    tiny = np.finfo(np.float32).smallest_subnormal
    x = np.array([0.0, -0.0, tiny, -tiny, 1e-38, -1e-38, np.inf, -np.inf, np.nan, 88.7, 1e30],
                 np.float32)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mg.tensor(x).sigmoid().numpy()
    assert _bits_equal(got, torch.sigmoid(torch.from_numpy(x)).numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_within_a_few_ulps_of_torch_over_the_whole_range(dtype):
    # NumPy's exp and the one PyTorch's sigmoid kernel uses round differently (13% of float32
    # values in [-110, 110]), so no NumPy formula is bit-exact everywhere: at most 4 ulps apart
    # (1 for nearly all; 2-4 where e^-x is near float32's limits), the same as the formula in
    # float64 rounded once would be.
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([x[np.isfinite(x)], np.linspace(-110, 110, 20_001, dtype=np.float32)])
    x = x.astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mg.tensor(x).sigmoid().numpy().astype(np.float32)
    want = torch.sigmoid(torch.from_numpy(x)).numpy().astype(np.float32)
    assert _ulps(got, want).max() <= 4


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_gradient_matches_torch_bit_for_bit(dtype):
    rng = np.random.default_rng(1)
    y = rng.random(4096).astype(dtype)  # a sigmoid's output, in (0, 1)
    gy = rng.standard_normal(4096).astype(dtype)
    got = SigmoidGrad.apply(mg.tensor(gy), mg.tensor(y)).numpy()
    want = torch.ops.aten.sigmoid_backward(torch.from_numpy(gy), torch.from_numpy(y)).numpy()
    assert _bits_equal(got, want)


@pytest.mark.parametrize("name", ["sigmoid", "tanh", "exp"])
def test_one_tensor_functions_take_input_and_out_keywords(name):
    x = mg.tensor([-1.0, 0.5, 2.0])
    want = getattr(x, name)().numpy()  # the method, which the functions are another name for
    fn = getattr(mg, name)
    np.testing.assert_array_equal(fn(input=x).numpy(), want)
    out = mg.empty(3)
    assert fn(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), want)
    with pytest.raises(TypeError, match="out"):
        fn(x, out=np.zeros(3))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_bfloat16_arithmetic_matches_torch_bit_for_bit(op):
    rng = np.random.default_rng(2)
    a, b = (torch.from_numpy(rng.standard_normal(257).astype(np.float32)).bfloat16() for _ in "ab")
    want = getattr(torch, op)(a, b).float().numpy()
    ma, mb = (mg.tensor(t.float().numpy()).to(mg.bfloat16) for t in (a, b))
    got = getattr(mg, op)(ma, mb)
    assert got.dtype == mg.bfloat16
    np.testing.assert_array_equal(got.float().numpy(), want)


def test_tanh_gradient_matches_torch_to_rounding():
    # PyTorch's kernel rounds 1 - y^2 once (a fused multiply-add), NumPy rounds y^2 first: near
    # |y| = 1 that differs by many ulps of the small result, but never by more than a rounding of
    # 1 - y^2, i.e. about eps * |gy|.
    rng = np.random.default_rng(3)
    y, gy = rng.uniform(-1, 1, 4096), rng.standard_normal(4096)
    for dtype in (np.float64, np.float32):
        yd, gd = y.astype(dtype), gy.astype(dtype)
        got = TanhGrad.apply(mg.tensor(gd), mg.tensor(yd)).numpy()
        want = torch.ops.aten.tanh_backward(torch.from_numpy(gd), torch.from_numpy(yd)).numpy()
        assert np.all(np.abs(got - want) <= 2 * np.finfo(dtype).eps * np.abs(gd))


def test_arithmetic_with_an_array_names_both_shapes_when_they_do_not_broadcast():
    with pytest.raises(
        RuntimeError, match=r"size of tensor a \(3\) must match the size of tensor b \(2\)"
    ):
        mg.ones(3) * np.array([1.0, 2.0])
    with pytest.raises(TypeError):  # a list is no operand (PyTorch 2.13: Python's TypeError)
        mg.ones(3) * [1.0, 2.0]
