"""``train --nproc 2``: two data-parallel processes train the same run as one process.

Each process takes half of every batch (DistributedSampler over the same shuffled order) and
DistributedDataParallel averages the gradients, so without autocast the metrics match a
single-process run to float32 rounding; rank 0 alone writes the files, and a run stopped
mid-epoch resumes in two processes to the same end.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.app.cli import main
from tests.distributed.launch import mpiexec

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.distributed
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)

TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--no-amp", "--epochs", "2", "--quiet"]  # fmt: skip
NUMBERS = ["train_loss", "train_acc", "val_loss", "val_acc", "lr", "grad_norm"]


def _rows(run: Path) -> list[dict]:
    with open(run / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


def _files(run: Path) -> set[str]:
    return {str(p.relative_to(run)) for p in run.rglob("*") if p.is_file()
            and "tensorboard" not in p.parts}  # fmt: skip


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    run = tmp_path_factory.mktemp("single") / "run"
    assert main(["train", *TINY, "--out", str(run)]) == 0
    return run


def _same_run(got: Path, want: Path) -> None:
    rows, ref = _rows(got), _rows(want)
    assert [r["step"] for r in rows] == [r["step"] for r in ref]
    for r, w in zip(rows, ref):
        got_, want_ = [float(r[k]) for k in NUMBERS], [float(w[k]) for k in NUMBERS]
        np.testing.assert_allclose(got_, want_, rtol=1e-4, atol=1e-6)
    a = mg.load(got / "checkpoints" / "last.pth")["model_state_dict"]
    b = mg.load(want / "checkpoints" / "last.pth")["model_state_dict"]
    assert a.keys() == b.keys()  # the inner model's names: no "module." prefix
    for key in a:
        np.testing.assert_allclose(a[key].numpy(), b[key].numpy(), rtol=1e-4, atol=1e-6)


def test_two_processes_train_the_single_process_run(single, tmp_path):
    run = tmp_path / "two"
    assert main(["train", *TINY, "--nproc", "2", "--out", str(run)]) == 0
    _same_run(run, single)
    assert _files(run) == _files(single)


def test_a_run_stopped_mid_epoch_resumes_in_two_processes(single, tmp_path):
    run = tmp_path / "stopped"
    # 6 optimizer steps per epoch: stop after step 3, in the middle of epoch 1
    assert main(["train", *TINY, "--nproc", "2", "--out", str(run),
                 "--interrupt-at-step", "3"]) == 130  # fmt: skip
    assert mg.load(run / "checkpoints" / "last.pth")["step"] == 3
    assert main(["train", "--nproc", "2", "--resume", str(run), "--quiet"]) == 0
    _same_run(run, single)


@pytest.mark.parametrize("extra, message", [
    (["--nproc", "0"], "--nproc must be a positive integer"),
    (["--nproc", "3"], "--batch-size 16 must be divisible by the number of processes (3)"),
])  # fmt: skip
def test_bad_process_counts_are_option_errors(extra, message, tmp_path, capsys):
    assert main(["train", *TINY, *extra, "--out", str(tmp_path / "r")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
