"""addmm, baddbmm, addbmm, addr and addmv of float16 and bfloat16 tensors are computed in float32
and rounded once, as PyTorch's CPU kernels do: beta * x + alpha * (product) within half an ulp
(plus float32's own rounding) of the float64 result of the same values, and so are the input
gradients. Rounding the product to the low dtype before adding x put up to 3.4 ulps into the
output."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import low_and_float64, rounded, ulp_errors

HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel
CASES = {
    "addmm": ((6, 5), (6, 7), (7, 5)),
    "baddbmm": ((3, 4, 5), (3, 4, 6), (3, 6, 5)),
    "addbmm": ((4, 5), (3, 4, 6), (3, 6, 5)),
    "addr": ((6, 5), (6,), (5,)),
    "addmv": ((6,), (6, 7), (7,)),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", list(CASES))
def test_scaled_sum_with_a_product_is_rounded_once(name, dtype):
    rng = np.random.default_rng(0)
    arrays = [rounded(rng.standard_normal(s) * 4, dtype) for s in CASES[name]]

    def fn(x, a, b):
        return getattr(mg, name)(x, a, b, beta=0.75, alpha=1.5)

    y, y64, grads, grads64 = low_and_float64(fn, arrays, 1, dtype)
    assert y.dtype == getattr(mg, dtype)
    assert ulp_errors(y, y64, dtype).max() <= HALF_ULP
    for g, g64 in zip(grads, grads64):
        assert ulp_errors(g, g64, dtype).max() <= HALF_ULP


def test_in_place_addmm_of_bfloat16_is_rounded_once():
    rng = np.random.default_rng(1)
    x0, a0, b0 = (rounded(rng.standard_normal(s) * 4, "bfloat16") for s in CASES["addmm"])
    x = mg.tensor(x0).to(mg.bfloat16)
    x.addmm_(mg.tensor(a0).to(mg.bfloat16), mg.tensor(b0).to(mg.bfloat16), beta=0.5)
    assert ulp_errors(x, 0.5 * x0 + a0 @ b0, "bfloat16").max() <= HALF_ULP
