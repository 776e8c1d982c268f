"""CPU autocast's policy for the vector and batched products PyTorch lists (or leaves off its
lists): dot, vdot, inner of vectors and mv are on no CPU list, so they run in their inputs'
dtype; addbmm is on the lower-precision list (one unit with its added input, as addmm);
bilinear is on no list. Values: the products of the rounded inputs, by NumPy."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(7)
A, V = RNG.standard_normal((4, 6)), RNG.standard_normal(6)


def _t(a):
    return mg.tensor(a, dtype=mg.float32)


@pytest.mark.parametrize(
    "name, fn",
    [
        ("dot", lambda: mg.dot(_t(V), _t(V))),
        ("vdot", lambda: mg.vdot(_t(V), _t(V))),
        ("inner", lambda: mg.inner(_t(V), _t(V))),
        ("mv", lambda: mg.mv(_t(A), _t(V))),
        ("Tensor.mv", lambda: _t(A).mv(_t(V))),
    ],
)
def test_vector_products_off_the_cpu_lists_stay_float32(name, fn):
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = fn()
    assert out.dtype == mg.float32, name
    want = A.astype(np.float32) @ V.astype(np.float32) if "mv" in name else np.float32(V) @ V
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


def test_addbmm_runs_in_bfloat16_with_its_input_cast_too():
    b1, b2, x = RNG.standard_normal((3, 4, 6)), RNG.standard_normal((3, 6, 5)), np.ones((4, 5))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = mg.addbmm(_t(x), _t(b1), _t(b2))
    assert out.dtype == mg.bfloat16
    bf = [a.astype(ml_dtypes.bfloat16).astype(np.float64) for a in (x, b1, b2)]
    want = bf[0] + (bf[1] @ bf[2]).sum(0)
    np.testing.assert_allclose(out.float().numpy(), want, rtol=2**-6, atol=2**-6)


def test_bilinear_is_on_no_autocast_list():
    w = RNG.standard_normal((3, 6, 6))
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = mg.nn.functional.bilinear(_t(A), _t(A), _t(w))
    assert out.dtype == mg.float32
    want = np.einsum("bi,oij,bj->bo", A, w, A)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-5)


def test_linalg_vecdot_is_on_the_lower_precision_list():
    with mg.autocast("cpu", dtype=mg.bfloat16):
        out = mg.linalg.vecdot(_t(A), _t(A))
    assert out.dtype == mg.bfloat16
    bf = A.astype(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_allclose(out.float().numpy(), (bf * bf).sum(-1), rtol=2**-6)
    assert mg.linalg.vecdot(_t(A), _t(A)).dtype == mg.float32  # outside autocast: as it comes
