"""What the course's checks use to test the idea of an exercise, not only its value.

A right number can come from the wrong road: a recursive walk that raised Python's recursion limit,
a call to the library function the exercise rebuilds, a prediction "made" by running the code.
``watch_calls`` records which Python functions ran inside a block and how deeply each was nested,
so a check can say what it saw::

    with watch_calls() as seen:
        impl.topological_order(root)
    assert seen.deepest(in_file=impl.topological_order.__code__.co_filename) < 50

It uses ``sys.setprofile`` (this thread only, restored afterwards), which sees Python calls and
returns whatever the learner's code did before it ran (a raised recursion limit, a function
imported under another name).
"""

from __future__ import annotations

import inspect
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class CallLog:
    """What ran inside a ``watch_calls`` block."""

    depth: Counter = field(default_factory=Counter)  # code object -> its frames active now
    deepest_by_code: Counter = field(default_factory=Counter)  # code object -> most at once
    files: set[str] = field(default_factory=set)  # every file whose Python code ran
    c_modules: set[str] = field(default_factory=set)  # modules of the built-in functions called

    def deepest(self, in_file: str | None = None) -> int:
        """The most frames of one function active at once (1 for a function that does not call
        itself), over the functions of ``in_file`` (all functions when None)."""
        wanted = None if in_file is None else str(Path(in_file).resolve())
        best = 0
        for code, n in self.deepest_by_code.items():
            if wanted is None or str(Path(code.co_filename).resolve()) == wanted:
                best = max(best, n)
        return best

    def ran_code_under(self, folder: str | Path) -> list[str]:
        """The files under ``folder`` whose code ran (sorted; empty when none did)."""
        root = Path(folder).resolve()
        hits = []
        for name in self.files:
            path = Path(name).resolve()
            if path == root or root in path.parents:
                hits.append(str(path))
        return sorted(hits)

    def ran(self, qualname_prefix: str) -> list[str]:
        """The qualified names of the functions that ran and start with ``qualname_prefix``
        (``"RNNCell."`` for RNNCell's methods, ``"scaled_dot_product_attention"``)."""
        return sorted(
            {
                c.co_qualname
                for c in self.deepest_by_code
                if c.co_qualname.startswith(qualname_prefix)
            }
        )

    def ran_any(self, *functions) -> list[str]:
        """The qualified names of those of ``functions`` (functions or methods, decorated or
        not) whose own code ran. Empty when none did."""
        codes = {inspect.unwrap(f).__code__: f.__qualname__ for f in functions}
        return sorted(name for code, name in codes.items() if code in self.deepest_by_code)

    def used(self, module) -> list[str]:
        """What of a package (``numpy``, ``mg.optim``) ran: its Python files, and ``module.name``
        for each of its built-in (C) functions called. Empty when nothing of it ran."""
        path = Path(module.__file__)
        hits = self.ran_code_under(path.parent if path.name == "__init__.py" else path)
        prefix = module.__name__
        hits += sorted(m for m in self.c_modules if m == prefix or m.startswith(prefix + "."))
        return hits


@contextmanager
def watch_calls() -> Iterator[CallLog]:
    """Record every function called in this thread while the block runs (see CallLog)."""
    log = CallLog()
    depth, deepest, files, c_modules = log.depth, log.deepest_by_code, log.files, log.c_modules

    def profile(frame, event, arg) -> None:
        if event == "call":
            code = frame.f_code
            depth[code] += 1
            if depth[code] > deepest[code]:
                deepest[code] = depth[code]
            files.add(code.co_filename)
        elif event == "return":
            code = frame.f_code
            if depth[code] > 0:
                depth[code] -= 1
        elif event == "c_call":
            c_modules.add(str(getattr(arg, "__module__", None) or ""))

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield log
    finally:
        sys.setprofile(previous)
