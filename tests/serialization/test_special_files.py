"""Checkpoints and paths that are not plain files: FIFOs, devices, names at the length limit.

Saving replaces a regular file atomically, but renaming a temporary file onto a device or a pipe
would replace the device itself; loading seeks to the footer, which a pipe cannot do, and opening
a FIFO waits for a writer. Each case must write through, or fail at once with an error that
names the path.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import stat
import sys

import pytest

import minigenesis as mg
from minigenesis.serialization import CheckpointError
from minigenesis.serialization.atomic import SUFFIX

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs POSIX FIFOs")


@contextlib.contextmanager
def deadline(seconds: float):
    """Fail (instead of hanging the suite) if the block blocks for longer than ``seconds``."""

    def expired(*_):
        raise TimeoutError(f"blocked for more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_saving_into_a_fifo_with_a_reader_writes_through_it_and_keeps_the_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader exists: writers may open
    try:
        with deadline(10):
            mg.save({"step": 3, "w": mg.arange(4.0)}, fifo)  # small: fits the pipe's buffer
        data = b""
        while chunk := os.read(reader, 1 << 16):
            data += chunk
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the pipe, not a file renamed onto it
    loaded = mg.load(io.BytesIO(data))
    assert loaded["step"] == 3 and loaded["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert not [n for n in os.listdir(tmp_path) if n.endswith(SUFFIX)]


def test_saving_into_a_fifo_nobody_reads_fails_at_once_and_keeps_the_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(OSError, match="pipe.*no process is reading"):
        mg.save({"step": 1}, fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_saving_to_a_character_device_writes_into_it(tmp_path):
    """What ``mg.save(obj, os.devnull)`` does, on a null device of our own: the device stays a
    device (a rename onto it would replace it with a plain file)."""
    null = tmp_path / "null"
    try:
        os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        with open(null, "wb") as probe:
            probe.write(b"x")
    except OSError:
        pytest.skip("cannot make or open a device node here (not root, or a nodev mount)")
    mg.save({"w": mg.ones(3)}, null)
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert os.listdir(tmp_path) == ["null"]


def test_loading_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with deadline(10), pytest.raises(CheckpointError, match="pipe: not a regular file but a FIFO"):
        mg.load(fifo)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /dev/zero")
def test_loading_a_character_device_names_it():
    with deadline(10), pytest.raises(CheckpointError, match="/dev/zero: .*character device"):
        mg.load("/dev/zero")


class NoSeekToEnd(io.RawIOBase):
    """A readable file that cannot seek to its end, as the "regular" files of /proc are."""

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return 0

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_END:
            raise OSError(22, "Invalid argument")
        return offset


def test_a_file_that_cannot_seek_to_its_end_is_a_checkpoint_error_naming_it():
    f = NoSeekToEnd()
    f.name = "status"
    with pytest.raises(CheckpointError, match=r"status: cannot read a checkpoint .*Invalid arg"):
        mg.load(f)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux's /proc")
def test_loading_a_proc_file_is_a_checkpoint_error_naming_it():
    with deadline(10), pytest.raises(CheckpointError, match="/proc/self/status: cannot read"):
        mg.load("/proc/self/status")


def test_loading_a_directory_is_still_is_a_directory_error(tmp_path):
    with pytest.raises(IsADirectoryError):
        mg.load(tmp_path)


@pytest.mark.parametrize("name", ["c" * 255, "é" * 127, "ckpt-" + "9" * 245 + ".pth"])
def test_a_target_name_at_the_length_limit_is_still_saved_atomically(tmp_path, name):
    """The temporary file's name adds ~30 bytes to the target's; it is cut to fit the limit."""
    path = tmp_path / name
    mg.save({"step": 1}, path)
    mg.save({"step": 2}, path)  # replaces it
    assert mg.load(path) == {"step": 2}
    assert os.listdir(tmp_path) == [name]
