"""On "cuda": an op given tensors on two devices raises PyTorch's error, and a deep copy keeps
views of one device buffer sharing it (as on the CPU). Run on the CuPy stand-in in every test run
(tests/core/test_cuda_standin.py)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

pytestmark = pytest.mark.gpu

MIXED = {
    "matmul": lambda c, h: c.view(1, 3) @ h.view(3, 1),
    "cat": lambda c, h: mg.cat([c, h]),
    "stack": lambda c, h: mg.stack([h, c]),
    "where": lambda c, h: mg.where(c > 0, h, c),
    "conv1d": lambda c, h: F.conv1d(c.view(1, 1, 3), h.view(1, 1, 3)),
    "einsum": lambda c, h: mg.einsum("i,i->", c, h),
    "bmm": lambda c, h: mg.bmm(c.view(1, 1, 3), h.view(1, 3, 1)),
    "linear": lambda c, h: F.linear(c.view(1, 3), h.view(1, 3)),
    "cross_entropy": lambda c, h: F.cross_entropy(c.view(1, 3), mg.tensor([1])),
    "add": lambda c, h: c + h,
}


@pytest.fixture(autouse=True)
def _needs_cuda() -> None:
    if not mg.cuda.is_available():
        pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)")


@pytest.mark.parametrize("name", sorted(MIXED))
def test_an_op_on_cuda_and_cpu_tensors_raises_pytorchs_error_naming_both(name: str) -> None:
    on_cuda, on_cpu = mg.randn(3, device="cuda"), mg.randn(3)
    with pytest.raises(RuntimeError, match="same device.*(cuda:0 and cpu|cpu and cuda:0)"):
        MIXED[name](on_cuda, on_cpu)


def test_a_0d_cpu_tensor_still_joins_a_cuda_op_as_a_scalar() -> None:
    out = mg.ones(3, device="cuda") * mg.tensor(2.0)
    assert out.device.type == "cuda"
    np.testing.assert_array_equal(out.cpu().numpy(), [2.0, 2.0, 2.0])


def test_deepcopy_keeps_views_of_one_cuda_buffer_sharing_it() -> None:
    base = mg.arange(6.0, device="cuda").view(2, 3)
    col, tr = base[:, 1:], base.t()
    b2, col2, tr2 = copy.deepcopy([base, col, tr])
    b2[1, 2] = 100.0  # written through the copied base: both copied views see it
    assert float(col2[1, 1]) == 100.0 and float(tr2[2, 1]) == 100.0
    assert float(base[1, 2]) == 5.0  # the original is untouched
    assert (col2.stride(), tr2.stride()) == (col.stride(), tr.stride())
    assert all(t.device.type == "cuda" for t in (b2, col2, tr2))
