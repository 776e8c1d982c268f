"""``out=`` on the functional forms of the composed products (addr, addmv, addbmm, addcmul,
addcdiv, inner, take): the result is written into ``out`` (resized from empty), which is
returned. Oracle: NumPy float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.array([[1.0, 2.0], [3.0, 4.0]])
V = np.array([1.0, 2.0])
CASES = {
    "addr": (lambda a, v, out: mg.addr(a, v, v, out=out), A + np.outer(V, V)),
    "addmv": (lambda a, v, out: mg.addmv(v, a, v, out=out), V + A @ V),
    "addbmm": (lambda a, v, out: mg.addbmm(a, a[None], a[None], out=out), A + A @ A),
    "addcmul": (lambda a, v, out: mg.addcmul(v, v, v, value=2, out=out), V + 2 * V * V),
    "addcdiv": (lambda a, v, out: mg.addcdiv(v, v, v + 1, out=out), V + V / (V + 1)),
    "inner": (lambda a, v, out: mg.inner(v, v, out=out), np.inner(V, V)),
    "take": (lambda a, v, out: mg.take(a, mg.tensor([3, 0]), out=out), A.ravel()[[3, 0]]),
}


@pytest.mark.parametrize("name", CASES)
def test_out_receives_the_result(name):
    fn, want = CASES[name]
    out = mg.zeros(0, dtype=mg.float64)
    got = fn(mg.tensor(A), mg.tensor(V), out)
    assert got is out
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-15)
