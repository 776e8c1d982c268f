"""Two training runs into one ``--out``: the second is refused at once, naming the folder, and
writes nothing (both used to pass the "already holds a run" check when they started together,
and the folder became a mix of two runs); the lock ends with the run that held it, even one
killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from minigenesis.app.cli import main
from minigenesis.app.run_lock import RunDirInUse, hold_run_dir

pytest.importorskip("fcntl")  # (Windows runs are not locked)

REPO = Path(__file__).resolve().parents[2]
TINY = ["--samples", "60", "--hidden", "4", "--batch-size", "16", "--epochs", "1", "--quiet"]


def test_a_run_into_a_folder_another_run_holds_is_refused_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    with hold_run_dir(out):
        assert main(["train", "--out", str(out), *TINY]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: --out {out} is in use: another training run is writing into " \
        "it; wait for it to finish, or choose another --out"  # fmt: skip
    assert not (out / "metrics.csv").exists() and not any((out / "checkpoints").iterdir())
    assert main(["train", "--out", str(out), *TINY]) == 0  # released with the block


def test_resuming_a_run_another_process_is_writing_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *TINY]) == 0
    before = (out / "checkpoints" / "last.pth").read_bytes()
    with hold_run_dir(out):
        assert main(["train", "--resume", str(out), *TINY[:-3], "--epochs", "2", "--quiet"]) == 2
    assert "is in use" in capsys.readouterr().err
    assert (out / "checkpoints" / "last.pth").read_bytes() == before


def test_the_lock_ends_with_a_killed_process(tmp_path):
    out = tmp_path / "run"
    code = ("import sys, time\nfrom pathlib import Path\n"
            "from minigenesis.app.run_lock import hold_run_dir\n"
            "with hold_run_dir(Path(sys.argv[1])):\n    print('held', flush=True)\n"
            "    time.sleep(60)\n")  # fmt: skip
    child = subprocess.Popen([sys.executable, "-c", code, str(out)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    try:
        assert child.stdout.readline() == "held\n"
        with pytest.raises(RunDirInUse), hold_run_dir(out):
            pass
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    with hold_run_dir(out):  # no stale lock left behind
        pass
