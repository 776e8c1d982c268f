"""One battery of checks over every entry of the op database (tests/ops/database.py).

A test is one (entry, check) pair and runs the check over all the entry's samples, listing every
sample that fails. The checks are in ``checks.py``; known bugs are strict xfails, listed in
``known_failures.py``; the checks that compare with PyTorch skip without it. Marked ``gpu``, each
entry also runs on "cuda" against the CPU (``checks_device.py``).
"""

from __future__ import annotations

import pytest

import minigenesis as mg

from .checks import CHECKS, TORCH_CHECKS, applies, torch
from .checks_device import check_device
from .database import ENTRIES
from .known_failures import known_failure


def _cases() -> list:
    cases = []
    for entry in ENTRIES:
        for check in CHECKS:
            if not applies(entry, check):
                continue
            marks = []
            known = known_failure(entry.id, check)
            if known:
                marks.append(pytest.mark.xfail(strict=True, reason=known))
            cases.append(pytest.param(entry, check, marks=marks, id=f"{entry.id}-{check}"))
    return cases


@pytest.mark.parametrize(("entry", "check"), _cases())
def test_battery(entry, check: str) -> None:
    if check in TORCH_CHECKS and torch is None:
        pytest.skip("compares with PyTorch, which is not installed")
    samples = list(entry.samples())
    assert samples, f"{entry.id} has no samples"
    fails = CHECKS[check](entry, samples)
    shown = "\n".join(fails[:12]) + (f"\n... and {len(fails) - 12} more" if len(fails) > 12 else "")
    assert not fails, f"{entry.id}: {check} fails on {len(fails)} sample(s):\n{shown}"


@pytest.mark.gpu
@pytest.mark.parametrize("entry", ENTRIES, ids=[e.id for e in ENTRIES])
def test_battery_on_device(entry) -> None:
    """Every entry's samples on "cuda" against the CPU (``checks_device.py``): run on every test
    run by the CuPy stand-in (tests/core/test_cuda_standin.py), on a real GPU where there is one."""
    if not mg.cuda.is_available():
        pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)")
    fails = check_device(entry, list(entry.samples()))
    shown = "\n".join(fails[:12]) + (f"\n... and {len(fails) - 12} more" if len(fails) > 12 else "")
    assert not fails, f"{entry.id}: device check fails on {len(fails)} sample(s):\n{shown}"
