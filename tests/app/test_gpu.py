"""The main job on device "cuda": one epoch, its checkpoint read back on the CPU, and a resume.

Marked ``gpu``: it runs where CuPy sees a GPU and, on every test run, on the strict CuPy stand-in
(tests/core/test_cuda_standin.py).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.app.cli import main

pytestmark = pytest.mark.gpu

if not mg.cuda.is_available():
    pytest.skip("needs CuPy and a CUDA device", allow_module_level=True)

TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--quiet"]  # fmt: skip


def _rows(run: Path) -> list[dict]:
    with open(run / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_one_epoch_on_cuda_writes_a_checkpoint_the_cpu_can_load(tmp_path):
    run = tmp_path / "run"
    assert main(["train", "--out", str(run), *TINY, "--epochs", "1", "--device", "cuda"]) == 0
    rows = _rows(run)
    assert rows and all(np.isfinite(float(v)) for v in rows[-1].values() if _number(v))
    path = run / "checkpoints" / "last.pth"
    on_cpu = list(mg.load(path, map_location="cpu")["model_state_dict"].values())
    assert on_cpu and all(t.device.type == "cpu" for t in on_cpu)
    assert all(np.isfinite(t.float().numpy()).all() for t in on_cpu)
    on_gpu = list(mg.load(path)["model_state_dict"].values())  # saved on "cuda", loaded there
    assert all(t.device.type == "cuda" for t in on_gpu)
    for c, g in zip(on_cpu, on_gpu):
        np.testing.assert_array_equal(g.cpu().numpy(), c.numpy())
    # resuming on the device continues the run where it stopped
    more = tmp_path / "more"
    args = ["train", "--resume", str(run), "--epochs", "2", "--out", str(more), "--quiet"]
    assert main([*args, "--device", "cuda"]) == 0
    assert len(_rows(more)) > len(rows)


def _number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True
