"""Checkpoints: saving replaces the file atomically; failures and kills never leave half a file."""

from __future__ import annotations

import errno
import os
import pickle
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.serialization.atomic import _HOST, SUFFIX, sweep_stale_temps

REPO = Path(__file__).resolve().parents[2]


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


def _temp_name(target: str, pid: int, host: str = _HOST) -> str:
    return f".{target}.{host}.{pid}.0123abcd{SUFFIX}"


# A writer in another process: it opens a save to ``path`` and waits inside it until told to
# finish, so its temporary file is live and locked meanwhile.
_LIVE_WRITER = """
import sys
import minigenesis as mg
from pathlib import Path
from minigenesis.serialization.atomic import atomic_write

with atomic_write(sys.argv[1]) as f:
    f.write(b"partial")
    print("writing", flush=True)
    sys.stdin.readline()
print("done", flush=True)
"""


def test_sweep_removes_every_unlocked_temp_of_the_folder(tmp_path):
    own_pid = os.getpid()  # the pid says nothing: only the lock tells a live writer
    stale = [
        _temp_name("model.ckpt", own_pid),
        _temp_name("checkpoint_epoch_010.pth", 4242),  # another target of the folder
    ]
    kept = [
        _temp_name(
            "model.ckpt", own_pid, host="deadbeef"
        ),  # another host: its lock may not reach us
        "model.ckpt.bak",
        "model.ckpt",
    ]
    for n in [*stale, *kept]:
        (tmp_path / n).write_bytes(b"x")
    removed = sweep_stale_temps(tmp_path)
    assert sorted(os.path.basename(r) for r in removed) == sorted(stale)
    assert sorted(os.listdir(tmp_path)) == sorted(kept)


@pytest.mark.skipif(os.name != "posix", reason="the sweep needs flock")
def test_sweep_and_saves_leave_a_live_writers_temp_alone(tmp_path):
    path = tmp_path / "ckpt.pth"
    writer = subprocess.Popen(
        [sys.executable, "-c", _LIVE_WRITER, str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    try:
        assert writer.stdout.readline() == "writing\n"
        [live] = temps(tmp_path)
        # Seen from another PID namespace its pid could be anyone's: give it a dead one.
        dead = subprocess.Popen([sys.executable, "-c", "pass"])
        dead.wait()
        renamed = _temp_name("ckpt.pth", dead.pid)
        os.rename(tmp_path / live, tmp_path / renamed)  # the lock belongs to the file, not the name
        assert sweep_stale_temps(tmp_path) == []
        mg.save("other", tmp_path / "other.pth")  # a save sweeps the folder too
        assert temps(tmp_path) == [renamed]
        os.rename(tmp_path / renamed, tmp_path / live)
        writer.stdin.write("\n")
        writer.stdin.flush()
        assert writer.stdout.readline() == "done\n"
    finally:
        writer.kill()
        writer.wait()
    assert path.read_bytes() == b"partial" and temps(tmp_path) == []


def test_crash_during_a_periodic_save_is_cleaned_by_the_next_save(tmp_path):
    """A temp left by a killed writer of one file is removed by a save of any file there."""
    orphan = tmp_path / _temp_name("checkpoint_epoch_010.pth", 12345)
    orphan.write_bytes(b"half a checkpoint")  # nobody holds its lock: its writer is gone
    mg.save(1, tmp_path / "last.pth")
    assert temps(tmp_path) == [] and sorted(os.listdir(tmp_path)) == ["last.pth"]


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
    with pytest.raises(FileNotFoundError, match="the path is empty") as empty:
        mg.save(1, "")
    assert os.getcwd() not in str(empty.value)
    assert temps(tmp_path) == []


def test_a_path_ending_in_a_separator_is_refused_not_saved_under_the_name_before_it(tmp_path):
    with pytest.raises(IsADirectoryError, match="ending in a separator names a directory"):
        mg.save(1, str(tmp_path / "new") + os.sep)
    assert os.listdir(tmp_path) == []  # no file "new" (open() refuses such a name too)


def test_a_file_in_the_place_of_the_directory_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(NotADirectoryError, match="notes.txt is a file, not a directory"):
        mg.save(1, tmp_path / "notes.txt" / "model.pth")
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_saving_over_a_read_only_file_is_refused(tmp_path):
    path = tmp_path / "frozen.pth"
    mg.save("kept", path)
    os.chmod(path, 0o444)  # no write bit for anyone: refused even for root
    try:
        with pytest.raises(PermissionError, match="frozen.pth.*read-only"):
            mg.save("new", path)
    finally:
        os.chmod(path, 0o644)
    assert mg.load(path) == "kept" and temps(tmp_path) == []


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


def test_the_disk_write_starts_every_32_mib_while_saving(tmp_path, monkeypatch):
    import minigenesis.serialization.atomic as atomic

    calls = []

    def record(fd, offset, nbytes, flags):
        assert os.fstat(fd).st_size >= offset + nbytes  # only pages already in the file
        calls.append((offset, nbytes, flags))
        return 0

    monkeypatch.setattr(atomic, "_sync_file_range", record)
    w = mg.from_numpy(np.arange(20 * 2**20, dtype=np.float32))  # 80 MiB
    mg.save({"w": w}, tmp_path / "big.mgck")
    assert len(calls) == 2  # after 32 and 64 MiB; the tail is left to the final fsync
    assert [c[0] for c in calls] == [0, calls[0][1]] and all(c[2] == 2 for c in calls)
    assert all(c[1] >= 32 << 20 for c in calls)
    assert np.array_equal(mg.load(tmp_path / "big.mgck")["w"].numpy(), w.numpy())


def test_saving_works_where_the_kernel_offers_no_early_writeback(tmp_path, monkeypatch):
    import minigenesis.serialization.atomic as atomic

    monkeypatch.setattr(atomic, "_sync_file_range", None)
    w = mg.from_numpy(np.arange(9 * 2**20, dtype=np.float32))
    mg.save({"w": w}, tmp_path / "c.mgck")
    assert np.array_equal(mg.load(tmp_path / "c.mgck")["w"].numpy(), w.numpy())


def test_a_bytes_path_saves_as_its_str_does(tmp_path):
    """open() and mg.load take a path as bytes too; save did not (a regex's TypeError)."""
    mg.save({"w": mg.arange(3)}, os.fsencode(tmp_path / "b.pth"))
    assert mg.load(tmp_path / "b.pth")["w"].tolist() == [0, 1, 2]
    assert temps(tmp_path) == []


def test_a_full_disk_names_the_checkpoint_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    path = tmp_path / "model.pth"

    def full_disk(fd):  # the kernel reports ENOSPC of delayed writes at fsync
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError, match=r"No space left on device: '.*model\.pth'") as info:
        mg.save({"w": mg.zeros(10)}, path)
    assert info.value.errno == errno.ENOSPC
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_device_that_is_full_is_named_in_the_error():
    with pytest.raises(OSError, match="No space left on device: '/dev/full'"):
        mg.save({"w": mg.zeros(10_000)}, "/dev/full")
