"""Standard output for the commands: a failure to write it is told apart from the run's files.

``python -m minigenesis train > log.txt`` on a full disk fails in ``print``, with the same
``OSError`` (ENOSPC) that a full disk gives when a checkpoint is written. While a command runs,
``guarded_stdout`` puts a thin wrapper in ``sys.stdout`` whose failed write or flush raises
``OutputError`` instead, so the command line can say in one line that the output failed (and
not that the run's files did, nor print a traceback). A reader that left (``| head``) stays
``BrokenPipeError``, which ends the command quietly.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, TextIO


class OutputError(OSError):
    """Standard output could not be written (the run's files are not concerned)."""


class _GuardedOutput:
    """``sys.stdout`` while a command runs: everything passes through to ``stream``."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        try:
            return self.stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as err:
            raise OutputError(err.errno, err.strerror) from err

    def flush(self) -> None:
        try:
            self.stream.flush()
        except BrokenPipeError:
            raise
        except OSError as err:
            raise OutputError(err.errno, err.strerror) from err

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding ...
        return getattr(self.stream, name)


@contextlib.contextmanager
def guarded_stdout() -> Iterator[None]:
    """Run the block with ``sys.stdout`` wrapped (see the module docstring); put back after."""
    guarded = _GuardedOutput(sys.stdout)
    sys.stdout = guarded
    try:
        yield
    finally:
        if sys.stdout is guarded:
            sys.stdout = guarded.stream
