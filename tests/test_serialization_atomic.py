"""Checkpoints: saving replaces the file atomically; failures and kills never leave half a file."""

from __future__ import annotations

import os
import pickle
import random
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.serialization.atomic import _HOST, SUFFIX, sweep_stale_temps


def temps(directory) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.endswith(SUFFIX))


class Boom:
    """Pickling this raises (after whatever was pickled before it is already on disk)."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __reduce__(self):
        raise self.exc


@pytest.mark.parametrize(
    "bad, error",
    [
        (Boom(KeyboardInterrupt()), KeyboardInterrupt),
        (Boom(MemoryError("simulated")), MemoryError),
        (lambda: 0, (pickle.PicklingError, AttributeError)),
    ],
    ids=["KeyboardInterrupt", "MemoryError", "unpicklable lambda"],
)
def test_a_failed_save_keeps_the_old_file_and_leaves_no_temp(tmp_path, bad, error):
    path = tmp_path / "ckpt.pth"
    mg.save({"step": 1, "w": mg.ones(4)}, path)
    before = path.read_bytes()
    big = mg.zeros(256 * 1024)  # 1 MB already streamed into the temp file when `bad` fails
    with pytest.raises(error):
        mg.save({"w": big, "bad": bad}, path)
    assert path.read_bytes() == before
    assert mg.load(path)["step"] == 1
    assert temps(tmp_path) == []


def test_sweep_removes_only_dead_writers_temps(tmp_path):
    path = str(tmp_path / "model.ckpt")
    dead_pid = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_pid.wait()

    def name(pid, target="model.ckpt", host=_HOST):
        return f".{target}.{host}.{pid}.0123abcd{SUFFIX}"

    stale = name(dead_pid.pid)
    kept = [
        name(os.getpid()),  # this process: a save may be running in another thread
        name(os.getppid()),  # alive
        name(dead_pid.pid, target="other.ckpt"),  # another target's business
        name(dead_pid.pid, host="deadbeef"),  # another host (shared filesystem): cannot tell
        "model.ckpt.bak",
    ]
    for n in [stale, *kept]:
        (tmp_path / n).write_bytes(b"x")
    removed = sweep_stale_temps(path)
    assert [os.path.basename(r) for r in removed] == [stale]
    assert sorted(os.listdir(tmp_path)) == sorted(kept)


def test_new_file_gets_default_permissions_and_replacing_keeps_them(tmp_path):
    path = tmp_path / "a.ckpt"
    umask = os.umask(0o022)
    os.umask(umask)
    mg.save(1, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0o600
    os.chmod(path, 0o640)
    mg.save(2, path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and mg.load(path) == 2


def test_saving_through_a_symlink_updates_its_target(tmp_path):
    target = tmp_path / "real.ckpt"
    link = tmp_path / "latest.ckpt"
    mg.save("old", target)
    link.symlink_to(target)
    mg.save("new", link)
    assert link.is_symlink() and mg.load(target) == "new"


def test_bad_destinations(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        mg.save(1, tmp_path / "no" / "such" / "dir.ckpt")
    with pytest.raises(IsADirectoryError):
        mg.save(1, tmp_path)
    assert temps(tmp_path) == []


def _save_forever(path, first_step: int) -> tuple[int, int]:
    """Fork a child that saves step after step to ``path``, writing each finished step number to
    a pipe; return (pid, read end). Forked, not spawned: no interpreter start-up per round."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: save until killed
        try:
            os.close(read_fd)
            step = first_step
            while True:
                # 1 MB per save: the process spends its time inside save(), where the kill lands.
                w = mg.from_numpy(np.full((512, 512), step, dtype=np.float32))
                mg.save({"step": step, "w": w, "rng": mg.get_rng_state()}, path)
                os.write(write_fd, f"{step}\n".encode())
                step += 1
        finally:
            os._exit(1)
    os.close(write_fd)
    return pid, read_fd


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_sigkill_during_saves_always_leaves_the_last_good_checkpoint(tmp_path):
    path = tmp_path / "ckpt.pth"
    rng = random.Random(0)
    last_good = -1
    previous_pid = None
    for _round in range(5):
        pid, read_fd = _save_forever(path, last_good + 1)
        with os.fdopen(read_fd) as progress:
            printed = [int(progress.readline()) for _ in range(3)]  # a few saves done
            if previous_pid is not None:  # its first save swept the previous child's temp
                assert not any(f".{previous_pid}." in n for n in temps(tmp_path))
            time.sleep(rng.uniform(0, 0.02))  # then kill it at a random moment of the loop
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            printed += [int(line) for line in progress.read().split()]
        ckpt = mg.load(path)  # never half a file, never a CheckpointError
        # The last save it reported, or the one after if that finished just before the kill.
        assert ckpt["step"] in (printed[-1], printed[-1] + 1)
        assert np.all(ckpt["w"].numpy() == ckpt["step"])  # contents belong to that step
        last_good = ckpt["step"]
        # A SIGKILLed process cannot clean up: at most its one temp file remains, which the next
        # save sweeps (checked above, next round).
        left = temps(tmp_path)
        assert len(left) <= 1 and all(f".{pid}." in n for n in left), left
        assert sorted(set(os.listdir(tmp_path)) - set(left)) == ["ckpt.pth"]
        previous_pid = pid
    mg.save(mg.load(path), path)  # any later save clears the leftovers of the dead
    assert os.listdir(tmp_path) == ["ckpt.pth"]
