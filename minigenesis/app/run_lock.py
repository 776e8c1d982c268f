"""One training run per run directory at a time.

Two ``train`` processes given the same ``--out`` both pass the "already holds a run" check when
they start together (neither has written anything yet), then both write metrics.csv, the
TensorBoard events and the checkpoints, and the folder ends up a mix of two runs that no one
can resume from or read. So the process that writes a run holds an exclusive lock on its folder
while it trains; a second one is refused at once, naming the folder.

The lock is ``flock`` on the directory itself (no lock file to leave behind): the kernel
releases it when the process ends in any way, SIGKILL included, so a crashed run never leaves
a stale lock. Where ``flock`` does not exist (Windows) runs are not locked.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["RunDirInUse", "hold_run_dir"]


class RunDirInUse(RuntimeError):
    """Another process is training into this run directory."""


@contextlib.contextmanager
def hold_run_dir(out: Path) -> Iterator[None]:
    """Create ``out`` if needed and hold an exclusive lock on it for the block; RunDirInUse at
    once (no waiting) if another process holds it."""
    out.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    fd = os.open(out, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise  # a file system without locks would say ENOLCK/EOPNOTSUPP: not "in use"
            raise RunDirInUse(
                f"--out {out} is in use: another training run is writing into it; wait for it "
                "to finish, or choose another --out"
            ) from None
        yield
    finally:
        os.close(fd)  # (releases the lock)
