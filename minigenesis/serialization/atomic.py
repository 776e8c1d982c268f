"""Atomic file replacement: a reader sees the old checkpoint or the new one, never half of one.

``atomic_write(path)`` yields a file in the same directory under a temporary name; when the body
finishes it flushes, ``fsync``s (the bytes are on disk before the name points at them), then
``os.replace``s the temporary file onto ``path`` (one atomic rename on POSIX and Windows) and
fsyncs the directory (the rename itself is durable). Any exception, KeyboardInterrupt included,
removes the temporary file and leaves ``path`` as it was.

A process killed with SIGKILL cannot clean up after itself, so a temporary file can survive it.
Temporary names carry the writer's host and process id
(``.<name>.<host hash>.<pid>.<random>.mgtmp``); every save first removes the leftovers of dead
writers on this host for the same target, so they never pile up, and never touches the file of a
writer that is still running.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
import stat
import zlib
from collections.abc import Iterator
from typing import BinaryIO

SUFFIX = ".mgtmp"
_HOST = f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _temp_pattern(base: str) -> re.Pattern:
    return re.compile(re.escape(f".{base}.{_HOST}.") + r"(\d+)\.[0-9a-f]{8}" + re.escape(SUFFIX))


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: existence check only (POSIX)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: it exists, it is someone else's
        return True
    return True


def sweep_stale_temps(path: str) -> list[str]:
    """Remove temporary files that dead writers on this host left for ``path``; return them."""
    if os.name != "posix":  # os.kill(pid, 0) would terminate the process on Windows
        return []
    directory, base = os.path.split(path)
    pattern = _temp_pattern(base)
    removed = []
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            match = pattern.fullmatch(entry.name)
            if match and not _alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(entry.path)
    return removed


def _fsync_directory(directory: str) -> None:
    with contextlib.suppress(OSError):  # not possible on Windows or some filesystems
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """Yield a binary file whose contents replace ``path`` atomically when the block succeeds."""
    # Resolve symlinks: replacing a link would leave its target stale and the link gone.
    path = os.path.realpath(os.fspath(path))
    directory, base = os.path.split(path)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"cannot save to {path}: directory {directory} does not exist")
    if os.path.isdir(path):
        raise IsADirectoryError(f"cannot save to {path}: it is a directory")
    sweep_stale_temps(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    temp = None
    try:
        while temp is None:
            candidate = os.path.join(
                directory, f".{base}.{_HOST}.{os.getpid()}.{secrets.token_hex(4)}{SUFFIX}"
            )
            with contextlib.suppress(FileExistsError):
                fd = os.open(candidate, flags, 0o666)  # 0o666 & ~umask, as open() would give
                temp = candidate
        with os.fdopen(fd, "wb") as f:
            if os.path.exists(path):  # keep an existing checkpoint's permissions
                os.chmod(temp, stat.S_IMODE(os.stat(path).st_mode))
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        if temp is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise
    _fsync_directory(directory)
