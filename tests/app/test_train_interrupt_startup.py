"""Ctrl-C to ``train --nproc 2`` while the job is still starting: every process ends promptly.

A Ctrl-C that reaches a rank before its training loop has taken SIGINT over used to end that rank
alone, while the other one waited for it in a collective (or inside MPI_Init, which does not
return until every rank has called it) until ``--dist-timeout``. Now the interrupted rank ends the
whole job at once; no step has been trained, so nothing is saved. The press lands at chosen
moments: before the ranks exist, while they import, while rank 1 is held before it joins the
group (rank 0 waits in MPI_Init), and while rank 1 is held before its loop (rank 0 waits in the
first step). Rank 1 is held by a ``sitecustomize`` module on its PYTHONPATH, which wraps one
function of the package and sleeps there, after writing a file that says it is held.

Every wait is bounded: --dist-timeout 60 would show as a wait of a minute, each test waits at
most 90 s for the launcher and kills whatever is left of the job (found by a marker in the
processes' environment) at the end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from tests.distributed.launch import ROOT, kill_every, mpiexec, processes_with, rank_env

pytest.importorskip("mpi4py")
pytestmark = [
    pytest.mark.distributed,
    pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc (Linux)"),
]
if mpiexec() is None:
    pytest.skip("no mpiexec (pip install mpich)", allow_module_level=True)

TRAIN = [sys.executable, "-m", "minigenesis", "train", "--samples", "240", "--hidden", "16",
         "--batch-size", "16", "--no-amp", "--epochs", "100000", "--quiet", "--nproc", "2",
         "--dist-timeout", "60"]  # fmt: skip

# Rank 1 sleeps in the named function, after writing the file $HOLD_FILE.
HOLD = textwrap.dedent("""
    import importlib.abc, importlib.util, os, sys, time

    TARGETS = {"before_join": ("minigenesis.distributed", None, "init_process_group"),
               "before_loop": ("minigenesis.app.trainer", "Trainer", "_install_sigint_handler")}
    module_name, class_name, function = TARGETS[os.environ["HOLD_AT"]]

    def hold(owner):
        original = getattr(owner, function)
        def held(*args, **kwargs):
            open(os.environ["HOLD_FILE"], "w").close()
            time.sleep(120)
            return original(*args, **kwargs)
        setattr(owner, function, held)

    class Finder(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name != module_name:
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(name)
            load = spec.loader.exec_module
            def exec_module(module):
                load(module)
                hold(getattr(module, class_name) if class_name else module)
            spec.loader.exec_module = exec_module
            return spec

    if os.environ.get("PMI_RANK") == "1":
        sys.meta_path.insert(0, Finder())
""")


def _as_a_foreground_job() -> None:
    """In the launcher before it runs: Ctrl-C at its default, as in a terminal's foreground job.
    A test runner started in the background (``cmd &`` in a script) ignores SIGINT, and its
    children inherit that: the press would then be ignored until the launcher's own handlers
    are in place, which is not what a user at a terminal sees."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def _wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert condition(), "the job did not get there"


@pytest.mark.parametrize("moment", ["before_spawn", "imports", "before_join", "before_loop"])
def test_ctrl_c_while_the_job_starts_ends_every_process_promptly(moment, tmp_path):
    marker = uuid.uuid4().hex
    held = tmp_path / "held"
    env = rank_env({"MINIGENESIS_TEST_JOB": marker, "HOLD_AT": moment, "HOLD_FILE": str(held)})
    if moment.startswith(("before_join", "before_loop")):
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "sitecustomize.py").write_text(HOLD)
        env["PYTHONPATH"] = f"{tmp_path / 'site'}{os.pathsep}{env['PYTHONPATH']}"
    run = tmp_path / "run"
    launcher = subprocess.Popen([*TRAIN, "--out", str(run)], env=env, cwd=ROOT, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True,
                                preexec_fn=_as_a_foreground_job)  # fmt: skip
    try:
        if moment == "imports":  # launcher, mpiexec, its proxy and the ranks, importing
            _wait_for(lambda: len(processes_with(marker)) >= 4)
        elif moment != "before_spawn":
            _wait_for(held.exists)
            time.sleep(0.5)  # rank 0 goes on to wait for rank 1
        os.killpg(launcher.pid, signal.SIGINT)  # as a terminal does: the foreground group
        pressed = time.monotonic()
        _, err = launcher.communicate(timeout=90)
        waited = time.monotonic() - pressed
        deadline = time.monotonic() + 10  # mpiexec's processes end after the launcher
        while processes_with(marker) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = processes_with(marker)
    finally:
        if launcher.poll() is None:
            launcher.kill()
        kill_every(marker)  # clean up after a failure, by process id
    if moment == "before_spawn":  # maybe before minigenesis loaded: Python's own Ctrl-C exit
        # (1 when it lands while Python itself starts up, in its site module's import)
        assert launcher.returncode in (130, -signal.SIGINT) or (
            launcher.returncode == 1 and "KeyboardInterrupt" in err
        ), err
    else:
        assert launcher.returncode == 130, err
    assert waited < 30, err  # not the 60 s --dist-timeout
    assert left == [], "processes outlived the launcher"
    assert not (run / "checkpoints" / "last.pth").exists()  # no step ran: nothing to save
    if moment in ("before_join", "before_loop"):
        assert "interrupted while rank 1 was starting" in err, err
        assert "Traceback" not in err, err
