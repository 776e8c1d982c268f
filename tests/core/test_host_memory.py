"""kernels/memory.py: freed host memory kept for the next step, only when a caller asks for it.

Each check runs in a fresh process (malloc's settings are per process and cannot be undone): a
loop allocates and frees 48 MiB of 3 MiB arrays, and the page faults of its later rounds are
counted with getrusage.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc's malloc"
)

LOOP = """
import resource, sys
import numpy as np
import minigenesis
from minigenesis.kernels.memory import keep_freed_memory
if sys.argv[1] == "keep":
    print("applied", keep_freed_memory(), keep_freed_memory())
def rounds(n):
    for _ in range(n):
        arrays = [np.ones(3 * 2**18, dtype=np.float32) for _ in range(16)]  # 48 MiB
        del arrays
rounds(2)
f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
rounds(4)
print("faults", (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0) // 4)
"""


def _faults_per_round(mode: str, **env: str) -> tuple[int, str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    environ.update(PYTHONPATH=str(ROOT), **env)
    out = subprocess.run(
        [sys.executable, "-c", LOOP, mode],
        capture_output=True,
        text=True,
        env=environ,
        cwd=ROOT,
        check=True,
    ).stdout
    return int(out.split("faults")[1]), out


def test_import_leaves_malloc_settings_alone():
    faults, _ = _faults_per_round("plain")
    assert faults > 2_000  # every round faults its 48 MiB in again (12,288 pages)


def test_keep_freed_memory_stops_refaulting_freed_arrays():
    faults, out = _faults_per_round("keep")
    assert "applied True True" in out
    assert faults < 200


def test_keep_freed_memory_defers_to_the_users_malloc_variables():
    faults, out = _faults_per_round("keep", MALLOC_TRIM_THRESHOLD_="131072")
    assert "applied False False" in out
    assert faults > 2_000
