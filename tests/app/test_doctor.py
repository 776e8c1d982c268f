"""``python -m minigenesis doctor``: the report on the CPU, on "cuda" (the CuPy stand-in or a real
GPU), and a failing check turned into exit status 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.app import doctor
from minigenesis.app.cli import main


def test_doctor_on_the_cpu_reports_versions_and_passes(capsys, monkeypatch):
    monkeypatch.setattr(mg.cuda, "is_available", lambda: False)
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert f"NumPy      {np.__version__}" in out
    assert "cpu only" in out and "on cuda" not in out
    for dtype in ("float32", "float16", "bfloat16"):
        assert f"ok   matmul {dtype:<8} on cpu" in out
    assert "all checks passed" in out


def test_without_cupy_the_doctor_names_the_install_command_the_readme_shows(monkeypatch):
    # minigenesis is installed from its repository (`pip install -e .`), not from a package index
    monkeypatch.setattr(doctor, "cupy_module", lambda: None)
    (cupy_row,) = [value for name, value in doctor.versions() if name == "CuPy"]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[gpu]"' in cupy_row and '`pip install -e ".[gpu]"`' in readme


def test_a_disagreement_fails_the_doctor(capsys, monkeypatch):
    monkeypatch.setattr(mg.cuda, "is_available", lambda: False)
    monkeypatch.setattr(doctor, "matmul_error", lambda dtype, device: 0.5)
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    assert "FAIL matmul float32" in out and "check(s) failed" in out


@pytest.mark.gpu
def test_doctor_on_cuda_checks_both_devices_and_their_agreement(capsys):
    if not mg.cuda.is_available():
        pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "device     cuda:0" in out
    for dtype in ("float32", "float16", "bfloat16"):
        assert f"ok   matmul {dtype:<8} on cuda" in out
    assert "ok   training step cuda vs cpu" in out
