"""The machinery of compiled CPU kernels (kernels/cpu_jit.py): optional, switchable, exact."""

import subprocess
import sys

import numpy as np
import pytest

from minigenesis.kernels import cpu_jit


def _scaled_sum(x, out):  # a loop for Numba: out[i] = x[i] * 0.5 + 1
    for i in range(x.size):
        out[i] = x[i] * np.float32(0.5) + np.float32(1.0)


def test_a_compiled_kernel_rounds_as_numpy_does():
    pytest.importorskip("numba")
    kernel = cpu_jit.cpu_kernel()(_scaled_sum)
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    out = np.empty_like(x)
    kernel(x, out)
    np.testing.assert_array_equal(out, x * np.float32(0.5) + np.float32(1.0))  # no FMA


@pytest.mark.parametrize("off", ["0", "false", "OFF", "no", " 0 "])
def test_the_environment_switches_compiled_kernels_off(monkeypatch, off):
    monkeypatch.setenv("MINIGENESIS_NUMBA", off)
    assert not cpu_jit.available()


def test_fastmath_and_threads_are_refused():
    with pytest.raises(ValueError, match="fastmath and parallel"):
        cpu_jit.cpu_kernel(fastmath=True)
    with pytest.raises(ValueError, match="fastmath and parallel"):
        cpu_jit.cpu_kernel(parallel=True)


def test_importing_the_package_does_not_import_numba():
    code = "import sys, minigenesis; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_kernel_numba_cannot_cache_on_disk_still_compiles_and_runs():
    # Numba caches beside the source file or in the user's cache directory; where it finds
    # neither (a read-only install for a user without a writable home, or here a loop whose
    # source is no file at all) cache=True raises "no locator available": the kernel must
    # compile for this process instead.
    pytest.importorskip("numba")
    namespace = {"np": np}
    exec(compile(_SCALED_SUM_SOURCE, "<no file>", "exec"), namespace)
    kernel = cpu_jit.cpu_kernel()(namespace["scaled_sum"])
    x = np.arange(8, dtype=np.float32)
    out = np.empty_like(x)
    kernel(x, out)
    np.testing.assert_array_equal(out, x * np.float32(0.5) + np.float32(1.0))


_SCALED_SUM_SOURCE = """
def scaled_sum(x, out):
    for i in range(x.size):
        out[i] = x[i] * np.float32(0.5) + np.float32(1.0)
"""
