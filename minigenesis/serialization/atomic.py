"""Atomic file replacement: a reader sees the old checkpoint or the new one, never half of one.

``atomic_write(path)`` yields a file in the same directory under a temporary name; when the body
finishes it flushes, ``fsync``s (the bytes are on disk before the name points at them), then
``os.replace``s the temporary file onto ``path`` (one atomic rename on POSIX and Windows) and
fsyncs the directory (the rename itself is durable). Any exception, KeyboardInterrupt included,
removes the temporary file and leaves ``path`` as it was.

Durability need not cost time. Left alone, the kernel keeps written pages in memory and starts
putting them on disk only later, so a final fsync would wait for the whole file's disk write
(~0.2 s for 200 MB here, as long again as writing it). ``_EarlyWriteback`` asks the kernel, after
every 32 MiB, to start writing those pages now (Linux's ``sync_file_range``, the way databases
pace their checkpoints): the disk works while the rest of the file is being produced, and the
fsync at the end finds almost nothing left to wait for. It is only a hint; the fsync still makes
the guarantee, and where the call does not exist nothing changes but the timing.

A process killed with SIGKILL cannot clean up after itself, so a temporary file can survive it.
Temporary names look like ``.<name>.<host hash>.<pid>.<random>.mgtmp``. The writer holds an
exclusive ``flock`` on its temporary file from creation until the rename; the lock dies with the
process, however it dies. So every save first sweeps the folder: a temporary file of this host
whose lock can be taken belongs to nobody and is removed, one whose lock is held belongs to a
live writer (in this process, another one, or another PID namespace) and is left alone. Without
``fcntl`` (Windows) nothing is swept: a leftover wastes space but never hurts a live writer.

Only a regular file is replaced. A path that names a device or a pipe (``os.devnull``, a FIFO a
process reads from) has no old contents to keep, and renaming a file onto it would replace the
device itself (``/dev/null`` becoming a plain file, for root): it is written into, as ``open``
would. A pipe is opened without waiting, so one that no process reads is an error, not a hang.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import re
import secrets
import socket
import stat
import sys
import zlib
from collections.abc import Iterator
from typing import Any, BinaryIO

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

SUFFIX = ".mgtmp"
_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"
# Any target's temporary file written on this host (another host's lock may not reach us).
_TEMP = re.compile(r"\..+" + re.escape(f".{_HOST}.") + r"\d+\.[0-9a-f]{8}" + re.escape(SUFFIX))


def _remove_if_unlocked(path: str) -> bool:
    """Delete the temporary file ``path`` if no writer holds its lock; True if it was deleted."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # gone already (renamed into place), or unreadable: not ours to judge
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its writer is alive
            return False
        # Still the file we locked? (Its writer may have renamed it into place meanwhile.)
        if not os.path.samestat(os.fstat(fd), os.stat(path)):
            return False
        os.unlink(path)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # releases the lock


def sweep_stale_temps(directory: str | os.PathLike) -> list[str]:
    """Remove the temporary files in ``directory`` that no live writer holds; return them."""
    if fcntl is None:
        return []
    removed = []
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if _TEMP.fullmatch(entry.name) and _remove_if_unlocked(entry.path):
                removed.append(entry.path)
    return removed


def _find_sync_file_range() -> Any:
    """libc's ``sync_file_range(fd, offset, nbytes, flags)`` on Linux, else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_uint]
    return fn


_sync_file_range = _find_sync_file_range()
_SYNC_FILE_RANGE_WRITE = 2  # start writing back the dirty pages of the range; do not wait
_WRITEBACK_EVERY = 32 << 20


class _EarlyWriteback:
    """A file being written front to back that starts the disk write of each 32 MiB as soon as it
    is written (see the module docstring); everything else is the wrapped file's."""

    def __init__(self, f: BinaryIO) -> None:
        self._f = f
        self._written = 0  # a fresh file written in order: the count is the position
        self._started = 0  # bytes already handed to the kernel's writeback

    def write(self, data: Any) -> int:
        n = self._f.write(data)
        self._written += n
        if _sync_file_range is not None and self._written - self._started >= _WRITEBACK_EVERY:
            self._f.flush()  # Python's buffer into the kernel's pages first
            _sync_file_range(
                self._f.fileno(), self._started, self._written - self._started,
                _SYNC_FILE_RANGE_WRITE,
            )  # fmt: skip
            self._started = self._written
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)


def _fsync_directory(directory: str) -> None:
    with contextlib.suppress(OSError):  # not possible on Windows or some filesystems
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _check_destination(path: str | os.PathLike) -> str:
    """The real path to write, or an error naming what is wrong with ``path``."""
    if os.fspath(path) in ("", b""):
        raise FileNotFoundError("cannot save: the path is empty")
    given = os.fsdecode(path)  # (a bytes path as open() takes it)
    if given.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        # realpath drops the slash: "runs/new/" would become a file named "new", where open()
        # refuses a name that ends in a separator, as it names a directory
        raise IsADirectoryError(f"cannot save to {given}: a path ending in a separator names a "
                                "directory; name the file to write")  # fmt: skip
    # Resolve symlinks: replacing a link would leave its target stale and the link gone.
    path = os.path.realpath(given)
    directory = os.path.dirname(path)
    if os.path.exists(directory) and not os.path.isdir(directory):
        raise NotADirectoryError(f"cannot save to {path}: {directory} is a file, not a directory")
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"cannot save to {path}: directory {directory} does not exist")
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot save to {path}: it is a directory")
    if os.path.exists(path):
        # A file without any write bit was made read-only on purpose; the mode bits, not
        # os.access alone, because os.access says yes to root whatever the mode.
        if not os.stat(path).st_mode & 0o222 or not os.access(path, os.W_OK):
            raise PermissionError(f"cannot save to {path}: the file is read-only")
    return path


_NAME_MAX = 255  # bytes in one file name (Linux, macOS, Windows)


def _temp_base(base: str, tail: str) -> str:
    """``base`` cut short enough that ``.<base><tail>`` fits in one file name: a target whose
    own name is near the limit still gets a temporary file (the sweep's pattern matches any
    non-empty base)."""
    room = _NAME_MAX - 1 - len(os.fsencode(tail))
    while len(os.fsencode(base)) > room:
        base = base[: -max(1, (len(os.fsencode(base)) - room) // 4)]
    return base


def _create_temp(directory: str, base: str) -> tuple[int, str]:
    """Create and lock a fresh temporary file next to the target; return (descriptor, path)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tail = f".{_HOST}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"
        name = f".{_temp_base(base, tail)}{tail}"
        temp = os.path.join(directory, name)
        try:
            fd = os.open(temp, flags, 0o666)  # 0o666 & ~umask, as open() would give
        except FileExistsError:
            continue
        if fcntl is None:
            return fd, temp
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A sweep may have found it unlocked in the instant before the lock: then it is gone.
        if os.fstat(fd).st_nlink > 0:
            return fd, temp
        os.close(fd)


def _is_special(path: str) -> bool:
    """True if ``path`` exists and is a device, a pipe or a socket rather than a regular file."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # not there yet: a new regular file
        return False


def _open_special(path: str) -> BinaryIO:
    """Open a device or a pipe for writing into it. O_NONBLOCK makes opening a FIFO that no
    process reads fail at once (ENXIO) instead of waiting for a reader; the writes block as
    usual."""
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        if err.errno != errno.ENXIO:
            raise
        raise OSError(
            err.errno, f"cannot save to {path}: it is a FIFO or socket that no process is reading"
        ) from None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "wb")


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Yield a binary file whose contents replace ``path`` atomically when the block succeeds
    (or, for a device or a pipe, the device itself: see the module docstring)."""
    path = _check_destination(path)
    if _is_special(path):
        try:
            with _open_special(path) as f:
                yield f
        except OSError as err:
            _name_the_file(err, path)
            raise
        return
    directory, base = os.path.split(path)
    sweep_stale_temps(directory)
    fd, temp = _create_temp(directory, base)
    try:
        with os.fdopen(fd, "wb") as f:
            if os.path.exists(path):  # keep an existing checkpoint's permissions
                os.chmod(temp, stat.S_IMODE(os.stat(path).st_mode))
            yield _EarlyWriteback(f)
            f.flush()
            os.fsync(f.fileno())
            if fcntl is not None:  # rename while still holding the lock (a sweep waits for it)
                os.replace(temp, path)
        if fcntl is None:  # Windows cannot rename a file that is still open
            os.replace(temp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):  # (already gone if the rename happened)
            os.unlink(temp)
        if isinstance(err, OSError):
            _name_the_file(err, path)
        raise
    _fsync_directory(directory)


def _name_the_file(err: OSError, path: str) -> None:
    """Add the checkpoint's path to an error of a write that does not name its file (a full
    disk's ENOSPC comes from a descriptor): "[Errno 28] No space left on device: 'x.pth'"."""
    if err.filename is None and err.errno is not None and path not in (err.strerror or ""):
        err.filename = path
