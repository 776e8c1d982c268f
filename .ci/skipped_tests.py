"""A pytest plugin for `.ci/run`: the first pass records the tests that skipped, the second runs
only those (after the optional packages they need are installed).

Loaded through the environment (``PYTEST_PLUGINS=skipped_tests`` with ``.ci`` on ``PYTHONPATH``),
so the first pass runs the README's test command exactly as written. ``CI_SKIPPED_RECORD=FILE``
writes the node ids that skipped (a module skipped as a whole, e.g. by a module-level
``pytest.importorskip("torch")``, as its file's id); ``CI_SKIPPED_SELECT=FILE`` deselects every
test that is not listed there, or in a file listed there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_skipped: list[str] = []
_files: dict[str, str] = {}


def pytest_configure(config: pytest.Config) -> None:
    # read once and taken out of the environment: a test that starts pytest in a subprocess
    # (the course's progress command does) must get a plain pytest, not this plugin's selection
    for name in ("CI_SKIPPED_RECORD", "CI_SKIPPED_SELECT"):
        if name in os.environ:
            _files[name] = os.environ.pop(name)
    os.environ.pop("PYTEST_PLUGINS", None)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.skipped and "CI_SKIPPED_RECORD" in _files:
        _skipped.append(report.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and "CI_SKIPPED_RECORD" in _files:
        _skipped.append(report.nodeid)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = _files.get("CI_SKIPPED_SELECT")
    if not path:
        return
    wanted = set(Path(path).read_text(encoding="utf-8").splitlines())
    keep = [it.nodeid in wanted or it.nodeid.split("::")[0] in wanted for it in items]
    config.hook.pytest_deselected(items=[it for it, k in zip(items, keep) if not k])
    items[:] = [it for it, k in zip(items, keep) if k]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = _files.get("CI_SKIPPED_RECORD")
    if path:
        Path(path).write_text("".join(f"{n}\n" for n in dict.fromkeys(_skipped)), encoding="utf-8")
