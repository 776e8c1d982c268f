"""Progress bars for long work (epochs, batches): ``tqdm.auto`` when someone is watching.

A bar is shown when stderr is a terminal or the code runs in a Jupyter kernel, and hidden when the
output goes to a file or a pipe (CI logs stay clean) or when ``quiet=True`` (the CLI's
``--quiet``). Without tqdm installed the iterable is returned unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

__all__ = ["progress", "is_interactive"]


def is_interactive() -> bool:
    """True in a terminal or a Jupyter kernel: where a live bar is readable."""
    if "ipykernel" in sys.modules:
        try:
            from IPython import get_ipython  # optional: present only inside Jupyter

            if get_ipython() is not None and hasattr(get_ipython(), "kernel"):
                return True
        except ImportError:
            pass
    stream = sys.stderr
    return bool(stream is not None and hasattr(stream, "isatty") and stream.isatty())


class _NoBar:
    """Stands in for a tqdm bar when none is shown: iterates, and ignores bar updates."""

    def __init__(self, iterable: Iterable | None) -> None:
        self.iterable = iterable

    def __iter__(self):
        return iter(self.iterable if self.iterable is not None else ())

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        pass

    def set_postfix(self, *args: Any, **kwargs: Any) -> None:
        pass

    def set_description(self, *args: Any, **kwargs: Any) -> None:
        pass

    def write(self, text: str) -> None:
        print(text)

    def close(self) -> None:
        pass


def progress(
    iterable: Iterable | None = None,
    total: int | None = None,
    desc: str | None = None,
    quiet: bool = False,
    leave: bool = True,
    **kwargs: Any,
) -> Any:
    """A tqdm bar over ``iterable`` (or a manual one with ``total``), or a silent stand-in."""
    if quiet or not is_interactive():
        return _NoBar(iterable)
    try:
        from tqdm.auto import tqdm  # start-up time: tqdm loads only for a live bar
    except ImportError:
        return _NoBar(iterable)
    return tqdm(iterable, total=total, desc=desc, leave=leave, dynamic_ncols=True, **kwargs)
