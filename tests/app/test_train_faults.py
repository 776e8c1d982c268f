"""``train`` in several processes when something is off: the job ends, with one clear line.

Processes started with different options end with an error on every rank instead of a hang
(different ``--seed``s are the exception: every rank takes rank 0's); killing the ``--nproc``
launcher takes mpiexec and every rank down with it; a WORLD_SIZE that cannot be honoured is an
option error. Every wait here is bounded (``run_command`` kills the job after its timeout).
"""

from __future__ import annotations

import csv
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pytest

from minigenesis.app import state
from minigenesis.app.cli import main
from tests.distributed.launch import (
    ROOT,
    kill_every,
    mpiexec,
    processes_with,
    rank_env,
    run_command,
)

pytest.importorskip("mpi4py")
pytestmark = pytest.mark.distributed
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)

TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--no-amp", "--epochs", "2",
        "--quiet"]  # fmt: skip
TRAIN = [sys.executable, "-m", "minigenesis", "train"]


def _two_ranks(first: list[str], second: list[str], out: Path) -> subprocess.CompletedProcess:
    """mpiexec with one ``train`` per rank, each with its own options (MPMD)."""
    cmd = [mpiexec(), "-n", "1", *TRAIN, *first, "--out", str(out), ":",
           "-n", "1", *TRAIN, *second, "--out", str(out)]  # fmt: skip
    return run_command(cmd, rank_env({"MINIGENESIS_DISTRIBUTED_TIMEOUT": "10"}), timeout=90)


def _rows(run: Path) -> list[dict]:
    with open(run / "metrics.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("option, a, b", [("--hidden", "16", "32"), ("--batch-size", "16", "32")])
def test_ranks_started_with_different_options_end_with_an_error_on_every_rank(
    option, a, b, tmp_path
):
    i = TINY.index(option)
    base = TINY[:i] + TINY[i + 2 :]
    started = time.monotonic()
    done = _two_ranks([*base, option, a], [*base, option, b], tmp_path / "run")
    assert done.returncode != 0
    line = (f"error: the processes were started with different settings: {option} is {a} on "
            f"rank 0 but {b} on rank 1")  # fmt: skip
    assert done.stderr.count(line) == 2, done.stderr  # one line from each rank
    assert "Traceback" not in done.stderr
    assert time.monotonic() - started < 30  # no collective waited: the settings were compared


def test_a_different_seed_per_rank_trains_rank_0s_run(tmp_path):
    single = tmp_path / "single"
    assert main(["train", *TINY, "--seed", "1", "--out", str(single)]) == 0
    done = _two_ranks([*TINY, "--seed", "1"], [*TINY, "--seed", "7"], tmp_path / "two")
    assert done.returncode == 0, done.stderr
    assert "rank 1 was given --seed 7; every process uses rank 0's --seed 1" in done.stderr
    got, want = _rows(tmp_path / "two"), _rows(single)
    assert len(got) == len(want)
    for r, w in zip(got, want):  # the single-process run with seed 1, to float32 rounding
        np.testing.assert_allclose([float(r[k]) for k in ("train_loss", "val_loss")],
                                   [float(w[k]) for k in ("train_loss", "val_loss")],
                                   rtol=1e-4)  # fmt: skip


def _wait_for_training(run: Path, epochs: int = 0) -> None:
    """Until the run writes metrics.csv (rank 0 is in its loop) and, given ``epochs``, that many
    epochs' rows (every rank has passed the epochs' collectives, so is in its loop too), at
    most 60 s."""
    deadline, metrics = time.monotonic() + 60, run / "metrics.csv"

    def rows() -> int:
        return len(metrics.read_text().splitlines()) - 1 if metrics.exists() else -1

    while rows() < epochs and time.monotonic() < deadline:
        time.sleep(0.1)
    assert rows() >= epochs, "the job did not start"


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_killing_the_launcher_stops_mpiexec_and_every_rank(sig, tmp_path):
    marker = f"MINIGENESIS_TEST_JOB={uuid.uuid4().hex}"
    env = rank_env({marker.split("=")[0]: marker.split("=")[1]})
    cmd = [*TRAIN, *TINY, "--epochs", "100000", "--nproc", "2", "--out", str(tmp_path / "r")]
    launcher = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + 60  # launcher, mpiexec, its proxy and two ranks
        while len(processes_with(marker)) < 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(processes_with(marker)) >= 5, "the job did not start"
        launcher.send_signal(sig)
        launcher.wait(timeout=30)
        deadline = time.monotonic() + 10
        while processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert processes_with(marker) == [], "processes outlived the launcher"
    finally:
        kill_every(marker)  # clean up after a failure, by process id


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
def test_ctrl_c_to_the_launcher_saves_and_ends_every_rank_at_once(tmp_path):
    """Ctrl-C reaches the launcher, which passes it to mpiexec, which passes it to every rank.
    Rank 1 had no handler of its own: it left at once on KeyboardInterrupt, and rank 0 waited
    for it in the next all-reduce until --dist-timeout. Now every rank stops at the step they
    agree on, rank 0 saves, and the job ends with 130 well before the timeout."""
    marker = f"MINIGENESIS_TEST_JOB={uuid.uuid4().hex}"
    env = rank_env({marker.split("=")[0]: marker.split("=")[1]})
    run = tmp_path / "r"
    cmd = [*TRAIN, *TINY, "--epochs", "100000", "--nproc", "2", "--dist-timeout", "60",
           "--out", str(run)]  # fmt: skip
    launcher = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        _wait_for_training(run, epochs=1)  # rank 1's handler is in place (not mid start-up)
        launcher.send_signal(signal.SIGINT)
        pressed = time.monotonic()
        out, err = launcher.communicate(timeout=90)
        waited = time.monotonic() - pressed
    finally:
        kill_every(marker)
    assert launcher.returncode == 130, err
    assert "timed out" not in err and waited < 30, err  # not the 60 s --dist-timeout
    assert "interrupted at step" in err + out
    assert state.load_training_checkpoint(run / "checkpoints" / "last.pth")["step"] >= 1
    assert processes_with(marker) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)")
def test_a_stopped_rank_ends_the_job_within_the_timeout(tmp_path):
    marker = f"MINIGENESIS_TEST_JOB={uuid.uuid4().hex}"
    env = rank_env({marker.split("=")[0]: marker.split("=")[1]})
    cmd = [*TRAIN, *TINY, "--epochs", "100000", "--nproc", "2", "--dist-timeout", "2",
           "--out", str(tmp_path / "r")]  # fmt: skip
    launcher = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    try:
        _wait_for_training(tmp_path / "r")
        rank1 = [pid for pid in processes_with(marker)
                 if b"\0PMI_RANK=1\0" in Path(f"/proc/{pid}/environ").read_bytes()]  # fmt: skip
        assert len(rank1) == 1, "no rank 1 found"
        os.kill(rank1[0], signal.SIGSTOP)
        stopped = time.monotonic()
        _, err = launcher.communicate(timeout=60)
        waited = time.monotonic() - stopped
    finally:
        kill_every(marker)
    assert launcher.returncode != 0
    assert "timed out after 2 s" in err and "rank 1 did not arrive" in err, err
    assert waited < 2 + 6  # the timeout, the roll call, the abort, on a busy machine
    assert processes_with(marker) == []


@pytest.mark.parametrize("value, message", [
    ("abc", "WORLD_SIZE='abc' is not an integer"),
    ("0", "WORLD_SIZE=0 must be at least 1"),
    ("2", "WORLD_SIZE=2 but this process was not started by an MPI launcher (PMI_RANK and "
          "PMI_SIZE are not set): run python -m minigenesis train --nproc 2"),
])  # fmt: skip
def test_a_world_size_without_a_launcher_is_a_one_line_error(value, message, monkeypatch,
                                                             tmp_path, capsys):  # fmt: skip
    for var in ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("WORLD_SIZE", value)
    assert main(["train", *TINY, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: {err[7:]}" and err.count("\n") == 1 and message in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("value", ["0", "-1", "inf", "nan"])
def test_dist_timeout_must_be_positive(value, tmp_path, capsys):
    assert main(["train", *TINY, "--dist-timeout", value, "--out", str(tmp_path / "r")]) == 2
    assert "--dist-timeout must be a positive number of seconds" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["1e300", "31536001"])
def test_a_dist_timeout_beyond_a_year_is_an_option_error_not_an_overflow(value, tmp_path, capsys):
    assert main(["train", *TINY, "--dist-timeout", value, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --dist-timeout must be at most 3.1536e+07 seconds (a year)")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_an_nproc_beyond_the_machine_is_an_option_error_that_starts_nothing(tmp_path, capsys):
    # the batch divides evenly, so only the process count can refuse it (before any fork)
    argv = ["train", *TINY, "--batch-size", "131072", "--nproc", "131072"]
    assert main([*argv, "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --nproc 131072 is more processes than this machine can run")
    assert not (tmp_path / "r").exists()


_FULL_DISK_ON_RANK_0 = """
import errno, os, sys
from pathlib import Path
from minigenesis.app import state
from minigenesis.app.cli import main

real_save = state.save_training_checkpoint

def save(ckpt, path):  # rank 0 is the one that writes; its disk fills at the first last.pth
    if Path(path).name == state.LAST:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    real_save(ckpt, path)

state.save_training_checkpoint = save
sys.exit(main(["train", *sys.argv[1:]]))
"""


def test_a_full_disk_on_rank_0_ends_the_job_at_once_not_at_the_timeout(tmp_path):
    """Rank 0 reported the full disk and returned, but rank 1 waited in its next collective for
    the whole --dist-timeout (300 s by default) before the job ended."""
    cmd = [mpiexec(), "-n", "2", sys.executable, "-c", _FULL_DISK_ON_RANK_0, *TINY,
           "--dist-timeout", "60", "--out", str(tmp_path / "r")]  # fmt: skip
    start = time.monotonic()
    done = run_command(cmd, rank_env(), timeout=90)
    assert done.returncode != 0
    assert "error: cannot write the run's files: [Errno 28] No space left on device" in done.stderr
    assert "timed out" not in done.stderr
    assert time.monotonic() - start < 45  # start-up on a busy machine, not the 60 s timeout


def test_a_run_folder_in_use_ends_the_job_at_once_not_at_the_timeout(tmp_path):
    """Only rank 0 takes the run folder's lock: its 'is in use' error left rank 1 waiting in a
    collective for the whole --dist-timeout."""
    from minigenesis.app.run_lock import hold_run_dir

    out = tmp_path / "r"
    start = time.monotonic()
    with hold_run_dir(out):  # another run is writing into it
        cmd = [mpiexec(), "-n", "2", *TRAIN, *TINY, "--dist-timeout", "60", "--out", str(out)]
        done = run_command(cmd, rank_env(), timeout=90)
    assert done.returncode != 0
    assert f"error: --out {out} is in use: another training run is writing into it" in done.stderr
    assert "timed out" not in done.stderr
    assert time.monotonic() - start < 45  # start-up on a busy machine, not the 60 s timeout
