"""The launcher's Ctrl-C before mpiexec exists: passed on to mpiexec once it starts.

``minigenesis.distributed.run.run_mpiexec`` starts mpiexec in its own session (so that only the
launcher decides what reaches the job) and forwards SIGINT/SIGTERM/SIGHUP to it. A signal that
arrives while mpiexec is being started must not end the launcher alone: mpiexec and the ranks
would run on with nobody to stop them. Here the signal is raised just before the process is
created, and the child (a stand-in for mpiexec that would sleep for a minute) must get it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from minigenesis.distributed import run as launcher

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix",
                                reason="POSIX signals")  # fmt: skip


class _LostToTheLauncher(Exception):
    """Raised by the test's own handler: the signal reached no handler of run_mpiexec."""


def test_a_ctrl_c_while_mpiexec_starts_is_passed_on_once_it_exists(monkeypatch):
    real_popen = subprocess.Popen

    def popen_after_a_ctrl_c(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # the press lands while the process is made
        return real_popen(*args, **kwargs)

    def lost(signum, frame):
        raise _LostToTheLauncher

    monkeypatch.setattr(launcher.subprocess, "Popen", popen_after_a_ctrl_c)
    before = signal.signal(signal.SIGINT, lost)
    try:
        start = time.monotonic()
        code = launcher.run_mpiexec([sys.executable, "-c", "import time; time.sleep(60)"],
                                    dict(os.environ))  # fmt: skip
        waited = time.monotonic() - start
    finally:
        signal.signal(signal.SIGINT, before)
    assert code == 128 + signal.SIGINT  # the child was stopped by the forwarded Ctrl-C
    assert waited < 30
