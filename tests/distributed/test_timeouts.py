"""The process group's timeout: no collective waits for ever.

A rank that comes late within the timeout is waited for; one that comes later, stops (SIGSTOP),
or calls a different collective makes the others raise DistBackendError within the timeout
(plus a short roll call), naming the collective and the rank, and the whole job ends non-zero.
Ranks whose models or tensors differ get a RuntimeError on every rank instead of a hang. The
rank scripts run under mpiexec with timeouts of 2-3 s; every wait of the test itself is bounded.
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import pytest

from minigenesis.distributed import timeouts
from minigenesis.distributed._mpi import _INIT_WATCHDOG, _Op, roll_call_message
from tests.distributed.launch import HERE, RESULTS_ENV, mpiexec, rank_env, run_command

pytestmark = pytest.mark.distributed

MARGIN = 1.5  # the roll call (at most 1 s) and a busy machine's scheduling


def _run_faults(*args: str, env: dict[str, str] | None = None) -> tuple[int, dict, str, float]:
    """Run ranks_faults.py on 2 ranks; (exit status, {rank: report}, output, wall seconds)."""
    pytest.importorskip("mpi4py")
    if mpiexec() is None:
        pytest.skip("no mpiexec (pip install mpich)")
    with tempfile.TemporaryDirectory() as results:
        cmd = [mpiexec(), "-n", "2", sys.executable, str(HERE / "ranks_faults.py"), *args]
        start = time.monotonic()
        done = run_command(cmd, rank_env({RESULTS_ENV: results, **(env or {})}), timeout=90)
        wall = time.monotonic() - start
        reports = {int(p.stem[4:]): pickle.loads(p.read_bytes())
                   for p in Path(results).glob("rank*.pkl")}  # fmt: skip
        assert _gone(results, within=5.0), "a rank outlived the job"
    return done.returncode, reports, done.stdout + done.stderr, wall


def _gone(marker: str, within: float) -> bool:
    """True once no process holds ``marker`` in its environment (polled for ``within`` s: the
    launcher's kills take a moment to land)."""
    end = time.monotonic() + within
    while _processes_with(marker):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


def _processes_with(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else []:
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:  # gone, or another user's
            continue
    return [pid for pid in found if pid != os.getpid()]


# ------------------------------------------------------------------ in this process
def test_timeout_must_be_a_positive_timedelta(monkeypatch):
    monkeypatch.delenv(timeouts.TIMEOUT_ENV, raising=False)
    assert timeouts.resolve_timeout(None) == 300.0  # the documented default: 5 minutes
    assert timeouts.resolve_timeout(timedelta(milliseconds=1500)) == 1.5
    with pytest.raises(TypeError, match="datetime.timedelta"):
        timeouts.resolve_timeout(3)
    for bad in (timedelta(0), timedelta(seconds=-1)):
        with pytest.raises(ValueError, match="positive"):
            timeouts.resolve_timeout(bad)


def test_the_environment_sets_the_default_timeout(monkeypatch):
    monkeypatch.setenv(timeouts.TIMEOUT_ENV, "2.5")
    assert timeouts.resolve_timeout(None) == 2.5
    assert timeouts.resolve_timeout(timedelta(seconds=7)) == 7.0  # the argument wins
    for bad in ("abc", "nan", "-3", "inf"):
        monkeypatch.setenv(timeouts.TIMEOUT_ENV, bad)
        with pytest.raises(ValueError, match=timeouts.TIMEOUT_ENV):
            timeouts.resolve_timeout(None)


def test_debug_level_is_checked(monkeypatch):
    monkeypatch.setenv(timeouts.DEBUG_ENV, "detail")
    assert timeouts.debug_level() == "DETAIL"
    monkeypatch.setenv(timeouts.DEBUG_ENV, "loud")
    with pytest.raises(ValueError, match="OFF, INFO, DETAIL"):
        timeouts.debug_level()


def test_poll_until_returns_at_the_deadline_and_sleeps_between_polls():
    polls: list[float] = []
    start = time.monotonic()
    assert not timeouts.poll_until(lambda: polls.append(time.monotonic()) and False, start + 0.2)
    waited = time.monotonic() - start
    assert 0.2 <= waited < 0.3
    # past the first millisecond it sleeps (backing off to MAX_SLEEP): about 0.2 s / 2 ms polls
    late = [t for t in polls if t > start + 2 * timeouts.SPIN_SECONDS]
    assert 0.2 / timeouts.MAX_SLEEP / 2 < len(late) < 2 * 0.2 / timeouts.MAX_SLEEP
    calls = iter([False, False, True])
    assert timeouts.poll_until(lambda: next(calls), time.monotonic() + 5)


def test_roll_call_names_the_missing_rank_and_the_one_elsewhere():
    op = _Op(7, "all_reduce", "3 float32 elements, op sum")
    answers = {2: (7, "broadcast", "3 float32 elements, from rank 0"), 3: op.summary()}
    text = roll_call_message(0, op, 3.0, [1, 2, 3], answers, 0.3)
    assert text.startswith("[rank 0] all_reduce #7 (3 float32 elements, op sum) timed out "
                           "after 3 s")  # fmt: skip
    assert "rank 1 did not arrive" in text
    assert "rank 2 is in broadcast #7" in text and "different collectives" in text
    assert "rank 3 reached it too" in text


# ------------------------------------------------------------------ ranks under mpiexec
def test_a_rank_late_within_the_timeout_is_waited_for():
    # backend "gloo", as PyTorch CPU programs write it: served by MPI, and rank 0 says so once
    rc, reports, output, _ = _run_faults("late", "3", "1", env={"FAULTS_BACKEND": "gloo"})
    assert rc == 0, output
    assert output.count("backend 'gloo' is served by MPI here") == 1
    assert [reports[r]["sum"] for r in (0, 1)] == [[2.0] * 3] * 2
    assert 0.9 < reports[0]["waited"] < 3


@pytest.mark.parametrize("scenario", ["late", "stop"])
def test_a_rank_that_does_not_come_ends_the_job_within_the_timeout(scenario):
    # rank 1 comes 20 s late (or never: stopped); rank 0 gives up after 2 s, names it, and the
    # job ends (the stopped rank is killed) long before rank 1 would have come
    rc, reports, output, wall = _run_faults(scenario, "2", "20")
    assert rc != 0
    got = reports[0]
    assert got["error"] == "DistBackendError", output
    assert 2.0 <= got["waited"] < 2.0 + MARGIN
    assert got["message"].startswith("[rank 0] all_reduce #2 (3 float32 elements, op sum) "
                                     "timed out after 2 s")  # fmt: skip
    assert "rank 1 did not arrive" in got["message"]
    assert wall < 15, output  # start-up on a busy machine + 2 s, not the 20 s rank 1 sleeps


@pytest.mark.parametrize("scenario, rank_0_runs, rank_1_runs", [
    ("sizes", "all_reduce #2 (3 float32 elements, op sum)",
     "all_reduce #2 (4 float32 elements, op sum)"),
    ("dtypes", "all_reduce #2 (3 float32 elements, op sum)",
     "all_reduce #2 (3 float64 elements, op sum)"),
    ("order", "all_reduce #2 (3 float32 elements, op sum)",
     "broadcast #2 (3 float32 elements, from rank 0)"),
    ("barrier", "all_reduce #2 (3 float32 elements, op sum)", "barrier #2"),
    ("objects", "broadcast #2 (1 int64 elements, from rank 0)",
     "broadcast_object_list #2 (from rank 0)"),
])  # fmt: skip
def test_different_collectives_or_tensors_on_the_ranks_fail_on_every_rank_at_once(
    scenario, rank_0_runs, rank_1_runs
):
    """Without DETAIL, MPI reduced 3 floats against 4 without a word, aborted the job inside
    MPICH (an assertion and a C backtrace) on float32 against float64, and paired a tensor
    broadcast with an object broadcast as bytes that are no pickle. Each collective now begins
    with a 16-byte agreement: every rank raises at once, naming what the other runs, and the
    group goes on working."""
    rc, reports, output, _ = _run_faults(scenario, "10")
    assert rc != 0 and set(reports) == {0, 1}, output
    runs = {0: rank_0_runs, 1: rank_1_runs}
    for r in (0, 1):
        got = reports[r]
        assert got["error"] == "DistError", output
        assert got["message"].startswith(f"[rank {r}] {runs[r]}: the ranks called different "
                                         "collectives or passed different tensors: "
                                         f"rank {1 - r} is in {runs[1 - r]} (")  # fmt: skip
        assert got["waited"] < 5  # at once, not at the 10 s timeout
        assert got["after"] == [2.0, 2.0]


def test_a_ddp_step_against_another_collective_ends_the_job_at_once_naming_both():
    """Uneven data: rank 0's gradient all-reduce (DDP's buckets skip the agreement) meets rank
    1's next collective. Rank 1's agreement sees it, asks where rank 0 is, and the job ends
    within seconds (it waited for the whole timeout, then named no cause)."""
    rc, reports, output, wall = _run_faults("uneven", "20")
    assert rc != 0
    got = reports[1]
    assert got["error"] == "DistBackendError", output
    assert re.match(r"\[rank 1\] all_reduce #\d+ \(3 float32 elements, op sum\): the ranks "
                    "called different collectives", got["message"]), got["message"]  # fmt: skip
    assert "rank 0 is in " in got["message"] and "process group is unusable" in got["message"]
    assert got["waited"] < 5 and wall < 20, output


def test_detail_mode_checks_each_collectives_shapes_on_every_rank():
    rc, reports, output, _ = _run_faults("sizes", "3",
                                         env={timeouts.DEBUG_ENV: "DETAIL"})  # fmt: skip
    assert rc != 0 and set(reports) == {0, 1}, output
    for r in (0, 1):
        assert reports[r]["error"] == "RuntimeError"
        assert "Rank 0 is running all_reduce(tensors: [3] float32" in reports[r]["message"]
        assert "rank 1 is running all_reduce(tensors: [4] float32" in reports[r]["message"]


@pytest.mark.parametrize("scenario, message", [
    ("model", "parameter #0 is 0.weight [4, 3] float32 on rank 0 and parameter 0.weight "
              "[5, 3] float32 on rank 1"),
    ("layers", "rank 1 has 6 parameters and 0 buffers, while rank 0 has 4 parameters"),
])  # fmt: skip
def test_ddp_refuses_different_models_on_every_rank(scenario, message):
    rc, reports, output, _ = _run_faults(scenario, "3")
    assert rc != 0 and set(reports) == {0, 1}, output
    for r in (0, 1):
        assert reports[r]["error"] == "RuntimeError"
        assert message in reports[r]["message"]


def test_a_rank_that_never_starts_ends_the_job_at_init():
    rc, _, output, wall = _run_faults("init", "2", "20")
    assert rc != 0
    assert "[rank 0] init_process_group timed out after 2 s" in output
    assert wall < 15, output


def test_a_rank_that_ends_on_an_uncaught_exception_stops_the_job_at_once():
    # as torchrun stops every worker when one fails: rank 0, waiting in its all-reduce with a
    # 60 s timeout, is stopped when rank 1 exits on its error, not 60 s later
    rc, reports, output, wall = _run_faults("raise", "60")
    assert rc != 0 and reports == {}, output
    assert "ValueError: rank 1 failed outside any collective" in output
    assert wall < 30, output  # start-up on a busy machine, not the 60 s timeout


def test_the_init_watchdog_takes_a_timeout_beyond_what_select_can_wait():
    """A timeout of 1e300 s (allowed: positive and finite) crashed the watchdog of MPI's start
    (OverflowError from select), which then watched nothing; it waits and leaves quietly."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        watchdog = subprocess.Popen(
            [sys.executable, "-S", "-c", _INIT_WATCHDOG, str(sleeper.pid), "1e300", "late"],
            stdin=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        time.sleep(0.5)
        assert watchdog.poll() is None  # still waiting
        watchdog.stdin.close()  # MPI has started: the watchdog leaves
        assert watchdog.wait(timeout=30) == 0
        assert watchdog.stderr.read() == b"" and sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


_STUCK_IN_INIT = """
import signal, sys, time
from minigenesis.distributed._mpi import start_watchdog
start_watchdog(float(sys.argv[1]), "watchdog: too late")
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])  # as in MPI_Init: a Ctrl-C waits
print("waiting", flush=True)
time.sleep(60)
"""


def test_a_ctrl_c_to_a_rank_stuck_in_mpi_init_leaves_its_watchdog_working():
    """A rank waits in MPI_Init (holding the GIL) for a rank that will never come, e.g. one that
    left on a Ctrl-C before calling it. The Ctrl-C that reaches the waiting rank's process group
    killed its watchdog too (KeyboardInterrupt), and then nothing bounded the wait: the rank hung
    for good. The watchdog now lives in a session of its own, so it still ends the rank."""
    rank = subprocess.Popen([sys.executable, "-c", _STUCK_IN_INIT, "3"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            cwd=Path(__file__).resolve().parents[2])  # fmt: skip
    try:
        assert rank.stdout.readline() == "waiting\n"  # the watchdog is started
        time.sleep(0.5)  # (and past its own start-up)
        os.killpg(rank.pid, signal.SIGINT)  # as the terminal or mpiexec sends it
        _, err = rank.communicate(timeout=30)
    finally:
        if rank.poll() is None:
            os.killpg(rank.pid, signal.SIGKILL)
            rank.wait()
    assert rank.returncode == -signal.SIGKILL, err
    assert "watchdog: too late" in err
