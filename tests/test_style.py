"""The code stays ruff-clean (lint and format), as pyproject.toml configures it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("ruff")
    cmd = [exe] if exe else [sys.executable, "-m", "ruff"]
    try:
        return subprocess.run(
            cmd + list(args), cwd=ROOT, capture_output=True, text=True, timeout=120
        )
    except FileNotFoundError:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")


@pytest.mark.parametrize(
    "args", [("check", "."), ("format", "--check", ".")], ids=["lint", "format"]
)
def test_ruff(args: tuple) -> None:
    result = _ruff(*args)
    if "No module named ruff" in result.stderr:
        pytest.skip("ruff is not installed (pip install -e '.[dev]')")
    assert result.returncode == 0, result.stdout + result.stderr
