"""smooth_l1_loss and huber_loss: float16 / bfloat16 computed in float32 and rounded once per
element (as PyTorch), and their result dtypes for mixed inputs as PyTorch's: smooth_l1 promotes
(float32 with float64 is float64), huber keeps the input's dtype. Oracle: the float64 closed
form (NumPy), rounded to the dtype, within one ulp."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def _smooth_l1(d: np.ndarray, beta: float) -> np.ndarray:
    a = np.abs(d)
    return np.where(a < beta, 0.5 * d * d / beta, a - 0.5 * beta)


def _huber(d: np.ndarray, delta: float) -> np.ndarray:
    a = np.abs(d)
    return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))


@pytest.mark.parametrize("np_dtype", [np.float16, ml_dtypes.bfloat16], ids=["f16", "bf16"])
@pytest.mark.parametrize("name", ["smooth_l1_loss", "huber_loss"])
def test_two_byte_smooth_l1_and_huber_are_within_one_ulp(name, np_dtype):
    rng = np.random.default_rng(0)
    x, y = (rng.normal(0, 2, 5000).astype(np_dtype).astype(np.float64) for _ in range(2))
    dtype = mg.float16 if np_dtype is np.float16 else mg.bfloat16
    tx, ty = (mg.tensor(v.astype(np.float32)).to(dtype) for v in (x, y))
    if name == "smooth_l1_loss":
        got, want = F.smooth_l1_loss(tx, ty, reduction="none", beta=0.7), _smooth_l1(x - y, 0.7)
    else:
        got, want = F.huber_loss(tx, ty, reduction="none", delta=0.7), _huber(x - y, 0.7)
    want = want.astype(np_dtype).astype(np.float64)
    ulp = np.abs(want) * (2.0**-10 if np_dtype is np.float16 else 2.0**-7)
    assert np.all(np.abs(got.float().numpy() - want) <= np.maximum(ulp, 2.0**-24))


def test_mixed_dtype_results_follow_pytorch():
    x = mg.tensor([1.0, 2.0, 3.0])
    y = mg.tensor([1.5, 0.0, 7.0], dtype=mg.float64)
    assert F.smooth_l1_loss(x, y, reduction="none").dtype == mg.float64
    assert F.huber_loss(x, y, reduction="none").dtype == mg.float32
    np.testing.assert_array_equal(F.huber_loss(x, y, reduction="none").numpy(), [0.125, 1.5, 3.5])


@pytest.mark.parametrize("target_dtype", [mg.float64, mg.bool, mg.int64])
def test_soft_margin_loss_computes_in_the_input_dtype(target_dtype):
    x = np.array([0.2, -0.7, 0.4], dtype=np.float32)
    y = np.array([1, 0, 1])
    got = F.soft_margin_loss(mg.tensor(x), mg.tensor(y).to(target_dtype), reduction="none")
    assert got.dtype == mg.float32
    y32 = y.astype(np.float32)
    np.testing.assert_allclose(
        got.numpy(), np.log1p(np.exp(-y32 * x.astype(np.float64))), rtol=1e-6
    )
