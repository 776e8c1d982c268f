"""Backend "nccl" on real GPUs (one per process): needs CuPy with NCCL and a CUDA device, so it
is marked ``gpu`` and skipped elsewhere. On one GPU it runs a world of one process; with more,
one process per GPU (up to 2)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.distributed.launch import mpiexec, run_on_ranks

pytestmark = [pytest.mark.gpu, pytest.mark.distributed]
pytest.importorskip("mpi4py")
cupy = pytest.importorskip("cupy")
pytest.importorskip("cupy.cuda.nccl")
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)
try:
    GPUS = cupy.cuda.runtime.getDeviceCount()
except Exception:  # noqa: BLE001  (no driver, no device)
    GPUS = 0
if GPUS == 0:
    pytest.skip("needs a CUDA device", allow_module_level=True)


def test_nccl_collectives_and_ddp_on_gpus():
    n = min(GPUS, 2)
    ranks = run_on_ranks("ranks_nccl.py", n)
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    for r, out in enumerate(ranks):
        np.testing.assert_array_equal(out["sum"], (n * base + sum(range(n))).T)
        np.testing.assert_array_equal(out["max_f16"], np.full(4, float(n)))
        np.testing.assert_array_equal(out["bcast_bf16"], np.full(3, float(n - 1)))
        np.testing.assert_array_equal(out["gather"], np.ravel([[k, 10.0 * k] for k in range(n)]))
        np.testing.assert_array_equal(out["scatter"], np.arange(2 * n)[2 * r : 2 * r + 2] * n)
        assert out["ddp_vs_ref"] < 1e-6
