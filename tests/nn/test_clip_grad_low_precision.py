"""``clip_grad_norm_`` on float16 and bfloat16 gradients, as mixed-precision training calls it.

PyTorch returns the total norm in the gradients' dtype (accumulated in float32, rounded once per
tensor and once for the total) and computes the scale ``max_norm / (norm + 1e-6)`` as
``reciprocal(norm + 1e-6) * max_norm``, each step rounded to that dtype. Oracle: the same steps
written out in NumPy float32 with explicit rounding (ml_dtypes supplies bfloat16).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(3)
GRADS = [RNG.standard_normal((3, 4)), RNG.standard_normal(5), RNG.standard_normal(())]
LOW = {"float16": np.float16, "bfloat16": ml_dtypes.bfloat16}


def _params(grads: list, dtype: str) -> list:
    params = []
    for g in grads:
        p = mg.zeros(g.shape, dtype=getattr(mg, dtype), requires_grad=True)
        p.grad = mg.tensor(g, dtype=getattr(mg, dtype))
        params.append(p)
    return params


@np.errstate(over="ignore", invalid="ignore")
def _oracle(grads: list, dtype: str, max_norm: float) -> tuple:
    """(total norm, clipped gradients) by PyTorch's steps, rounding to ``dtype`` after each."""
    low = LOW[dtype]
    rounded = [g.astype(low) for g in grads]
    per = [np.float32(np.linalg.norm(g.astype(np.float32).ravel())).astype(low) for g in rounded]
    total = np.float32(np.linalg.norm(np.array(per, dtype=np.float32))).astype(low)
    denom = (np.float32(total) + np.float32(1e-6)).astype(low)
    coef = (np.float32(1) / np.float32(denom)).astype(low)
    coef = (np.float32(coef) * np.float32(max_norm)).astype(low)
    coef = min(np.float32(coef), np.float32(1.0))
    return total, [(g.astype(np.float32) * coef).astype(low) for g in rounded]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("max_norm", [1e-3, 1.0, 1e6])
def test_clip_grad_norm_of_low_precision_grads_keeps_their_dtype_and_bits(dtype, max_norm):
    params = _params(GRADS, dtype)
    total = mg.nn.utils.clip_grad_norm_(params, max_norm)
    want_total, want_grads = _oracle(GRADS, dtype, max_norm)
    assert total.dtype == getattr(mg, dtype)
    assert float(total) == float(want_total)
    for p, want in zip(params, want_grads):
        assert p.grad.dtype == getattr(mg, dtype)
        np.testing.assert_array_equal(p.grad.float().numpy(), want.astype(np.float32))


def test_all_zero_float16_grads_with_max_norm_zero_become_nan():
    # reciprocal(0 + 1e-6) overflows float16 (max 65504) to inf, and inf * 0 is NaN
    params = _params([np.zeros(3)], "float16")
    total = mg.nn.utils.clip_grad_norm_(params, 0.0)
    assert float(total) == 0.0
    assert np.isnan(params[0].grad.float().numpy()).all()


@pytest.mark.parametrize("norm_type", [1.0, 3.0, float("inf")])
def test_total_norm_of_bfloat16_tensors_is_bfloat16(norm_type):
    got = mg.nn.utils.get_total_norm([mg.tensor(g, dtype=mg.bfloat16) for g in GRADS], norm_type)
    flat = np.concatenate([g.astype(ml_dtypes.bfloat16).astype(np.float32).ravel() for g in GRADS])
    want = np.linalg.norm(flat, ord=norm_type)
    assert got.dtype == mg.bfloat16
    np.testing.assert_allclose(float(got), want, rtol=2**-7)
