"""conv2d / conv1d / conv_transpose2d of float16 and bfloat16 tensors are computed in float32 and
rounded once, at the output, as PyTorch's CPU kernels do: every output and input gradient is
within half an ulp (plus float32's own rounding) of the float64 result of the same values.
Rounding the matmul's product before the bias add put several ulps into the forward, and
rounding the column gradients before col2im summed them put tens of ulps into dL/dx."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from tests.nn.half_precision_oracle import assert_rounds_once, rounded, ulp_errors

F = mg.nn.functional
HALF_ULP = 0.6  # the one rounding, plus float32 arithmetic's share where sums cancel


def _check(fn, shapes, dtype, seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    arrays = [rounded(rng.standard_normal(s), dtype) for s in shapes]
    assert_rounds_once(fn, arrays, dtype, HALF_ULP, seed + 1, **kwargs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv2d_with_bias_rounds_output_and_gradients_once(dtype):
    _check(F.conv2d, [(2, 3, 7, 6), (4, 3, 3, 3), (4,)], dtype, padding=1)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_grouped_strided_conv2d_rounds_output_and_gradients_once(dtype):
    _check(F.conv2d, [(2, 4, 8, 7), (6, 2, 3, 2), (6,)], dtype, stride=2, groups=2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv1d_rounds_output_and_gradients_once(dtype):
    _check(F.conv1d, [(2, 3, 11), (5, 3, 4), (5,)], dtype, padding=2)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv_transpose2d_rounds_output_and_gradients_once(dtype):
    _check(F.conv_transpose2d, [(2, 3, 5, 4), (3, 4, 3, 3), (4,)], dtype, stride=2, padding=1)


def test_conv2d_under_cpu_autocast_is_bfloat16_rounded_once():
    rng = np.random.default_rng(3)
    x0, w0, b0 = (rng.standard_normal(s) for s in [(2, 3, 6, 6), (4, 3, 3, 3), (4,)])
    with mg.autocast("cpu", dtype=mg.bfloat16):
        y = F.conv2d(mg.tensor(x0, dtype=mg.float32), mg.tensor(w0, dtype=mg.float32),
                     mg.tensor(b0, dtype=mg.float32))  # fmt: skip
    assert y.dtype == mg.bfloat16
    x, w, b = (mg.tensor(rounded(a, "bfloat16")) for a in (x0, w0, b0))
    assert ulp_errors(y, F.conv2d(x, w, b).numpy(), "bfloat16").max() <= HALF_ULP


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv3d_rounds_output_and_gradients_once(dtype):
    _check(F.conv3d, [(2, 2, 4, 5, 4), (3, 2, 2, 3, 2), (3,)], dtype, padding=1)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_conv_transpose3d_rounds_output_and_gradients_once(dtype):
    _check(F.conv_transpose3d, [(1, 2, 3, 4, 3), (2, 3, 2, 2, 3), (3,)], dtype, stride=2)
