"""Compiled CPU kernels degrade, never break: a numba that fails to import leaves the plain
NumPy code running."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from minigenesis.kernels import cpu_jit

# One training step through every compiled loop (BatchNorm2d/1d, LayerNorm, RMSNorm, GELU),
# printing its loss and input gradient; the float64 oracle is the same step with the loops off.
_STEP = """
import numpy as np, minigenesis as mg
rng = np.random.default_rng(0)
x = mg.from_numpy(rng.standard_normal((4, 3, 8, 8))).requires_grad_(True)
w = mg.from_numpy(rng.standard_normal(8))
y = (mg.nn.BatchNorm2d(3).double()(x) * 0.5).sum() + (mg.nn.LayerNorm(8).double()(x) * w).sum()
y = y + (mg.nn.RMSNorm(8).double()(x) * w).sum() + (mg.nn.functional.gelu(x.float()) * 2).sum()
y = y + (mg.nn.BatchNorm1d(3).double()(x[:, :, 0, 1]) * w[:3]).sum()
y.backward()
print(repr(float(y)), repr(float((x.grad * mg.from_numpy(rng.standard_normal(x.shape))).sum())))
"""


def _run(env: dict, extra_path: str = "") -> list[float]:
    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (extra_path, root) if p)
    full = {**os.environ, **env, "PYTHONPATH": path}
    out = subprocess.run(
        [sys.executable, "-c", _STEP], capture_output=True, text=True, env=full, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return [float(v) for v in out.stdout.split()]


def test_a_numba_that_fails_to_import_leaves_the_plain_code(tmp_path):
    fake = tmp_path / "numba"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('a broken numba')\n")
    broken = _run({"MINIGENESIS_NUMBA": "1"}, extra_path=str(tmp_path))
    plain = _run({"MINIGENESIS_NUMBA": "0"})
    assert broken == plain


def test_numba_with_its_jit_disabled_leaves_the_plain_code(monkeypatch):
    numba = pytest.importorskip("numba")
    monkeypatch.delenv("MINIGENESIS_NUMBA", raising=False)
    monkeypatch.setattr(numba.config, "DISABLE_JIT", True)
    assert not cpu_jit.available()  # the loops would run interpreted, ~100x slower
    monkeypatch.setattr(numba.config, "DISABLE_JIT", False)
    assert cpu_jit.available()
