"""``python -m minigenesis.distributed.run``: start N processes of a training script (torchrun's
conventions, on top of mpiexec).

    python -m minigenesis.distributed.run --nproc-per-node 2 train.py --epochs 3
    python -m minigenesis.distributed.run --nproc-per-node 2 -m my_package.train

Each process finds in its environment what torchrun would give it: RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT. The processes are started by mpiexec (the
one the ``mpich`` wheel installs next to Python), which is also how they find each other:
``dist.init_process_group()`` in the script needs nothing else. ``mpiexec -n 2 python train.py``
works as well (without the torchrun variables).

Several machines: ``--nnodes M --hosts a,b`` runs ``--nproc-per-node`` processes on each host
(mpiexec reaches them over ssh, like any MPI job).

Like torchrun, OMP_NUM_THREADS is set to 1 unless given (N processes that each start one BLAS
thread per core would oversubscribe the machine). With more processes than cores, MPICH's waiting
processes yield their core while they poll (``MPIR_CVAR_ENABLE_HEAVY_YIELD=1``): a waiting rank
would otherwise hold the core the rank it waits for needs.

The launcher takes its processes down with it. mpiexec runs in its own session, so a Ctrl-C
reaches it once, through the launcher (MPICH's mpiexec treats a second Ctrl-C as "abort now"):
SIGINT, SIGTERM and SIGHUP sent to the launcher are passed on to mpiexec, which passes them to
every process (a SIGINT lets training save a checkpoint; after a SIGTERM or SIGHUP, mpiexec is
killed if it has not finished within ``KILL_AFTER`` seconds). If the launcher itself is killed
(SIGKILL), Linux sends mpiexec SIGKILL (``PR_SET_PDEATHSIG``), and MPICH's process manager then
kills every process of the job.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from ._mpi import INSTALL_HINT

WORKER = "minigenesis.distributed._worker"
FORWARDED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                  if hasattr(signal, name))  # fmt: skip
KILL_AFTER = 10.0  # seconds mpiexec gets to stop its processes after a SIGTERM or SIGHUP
PR_SET_PDEATHSIG = 1  # prctl option (linux/prctl.h): a signal for this process when its parent dies


def find_mpiexec() -> str:
    """The mpiexec beside this Python (the mpich wheel puts it there), else the one on PATH."""
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError(f"mpiexec was not found; install MPI with: {INSTALL_HINT}")
    return found


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m minigenesis.distributed.run",
        description="Start N processes of a training script (torchrun's options and "
        "environment variables, on top of mpiexec).",
    )
    a = p.add_argument
    a("--nproc-per-node", "--nproc_per_node", dest="nproc", type=int, default=1,
      help="processes per machine (default 1)")  # fmt: skip
    a("--nnodes", type=int, default=1, help="machines (default 1; more need --hosts)")
    a("--hosts", help="comma-separated host names for --nnodes > 1 (passed to mpiexec)")
    a("--master-addr", "--master_addr", dest="master_addr", default="127.0.0.1",
      help="exported as MASTER_ADDR (default 127.0.0.1)")  # fmt: skip
    a("--master-port", "--master_port", dest="master_port", type=int, default=29500,
      help="exported as MASTER_PORT (default 29500)")  # fmt: skip
    a("--standalone", action="store_true", help="accepted for torchrun compatibility")
    a("-m", "--module", action="store_true", help="run the script argument as a module")
    a("--no-python", "--no_python", dest="no_python", action="store_true",
      help="run the script argument as a program, not with Python")  # fmt: skip
    a("script", help="the training script (or module with -m)")
    a("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def max_processes() -> int:
    """The most processes one machine may start: 4 per core, at least 64. Each is a whole Python
    interpreter (tens of MB before any work), so a typo such as 100000 would fork until the
    machine stops answering, and a launcher killed meanwhile leaves MPI's process manager
    still forking."""
    return max(64, 4 * (os.cpu_count() or 1))


def build_command(opts: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The mpiexec command line and the environment it starts with."""
    if opts.nproc < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {opts.nproc}")
    if opts.nproc > max_processes():
        raise ValueError(
            f"--nproc-per-node {opts.nproc} is more processes than this machine can run: at "
            f"most {max_processes()} (4 per CPU core, at least 64)"
        )
    if opts.nnodes < 1:
        raise ValueError(f"--nnodes must be at least 1, got {opts.nnodes}")
    if not 0 <= opts.master_port <= 65535:
        raise ValueError(f"--master-port must lie in [0, 65535], got {opts.master_port}")
    hosts = [h for h in (opts.hosts or "").split(",") if h]
    if opts.nnodes > 1 and len(hosts) != opts.nnodes:
        raise ValueError(f"--nnodes {opts.nnodes} needs --hosts with {opts.nnodes} host names")
    if not hosts:  # (on other machines the script is theirs to find)
        _check_target(opts)
    world = opts.nproc * opts.nnodes
    env = dict(os.environ)
    env.update({
        "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(opts.nproc),
        "MASTER_ADDR": opts.master_addr, "MASTER_PORT": str(opts.master_port),
    })  # fmt: skip
    if world > 1:
        env.setdefault("OMP_NUM_THREADS", "1")
    if opts.nproc > (os.cpu_count() or 1):
        env.setdefault("MPIR_CVAR_ENABLE_HEAVY_YIELD", "1")
    cmd = [find_mpiexec(), "-n", str(world)]
    if hosts:
        cmd += ["-hosts", ",".join(hosts), "-ppn", str(opts.nproc)]
    if opts.no_python:
        target = [opts.script]
    else:  # each process starts in the worker, which sets RANK etc. and then runs the script
        target = [sys.executable, "-m", WORKER, "--nproc-per-node", str(opts.nproc)]
        target += ["-m", opts.script] if opts.module else [opts.script]
    return cmd + target + list(opts.args), env


def _check_target(opts: argparse.Namespace) -> None:
    """FileNotFoundError for a script or program that is not on this machine, before any process
    starts (every rank would otherwise print the same traceback). A module (-m) is looked up by each
    process itself, where its package path is the script's (``_worker.py``)."""
    script = opts.script
    if opts.module:
        return
    if opts.no_python:
        if shutil.which(script) is None:
            raise FileNotFoundError(f"--no-python: no program {script!r} (not a path to an "
                                    "executable file, nor found on PATH)")  # fmt: skip
        return
    if os.path.isdir(script):
        if not os.path.isfile(os.path.join(script, "__main__.py")):
            raise FileNotFoundError(f"the script {script} is a directory without a __main__.py")
    elif not os.path.isfile(script):
        raise FileNotFoundError(f"the script {script} does not exist (or is not a file)")


def _die_with_parent() -> Any:
    """A function for the child between fork and exec (Linux): SIGKILL it when this launcher
    dies, however it dies. None where prctl is not available."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # loaded here, not in the child
    except (OSError, AttributeError):
        return None
    parent = os.getpid()

    def child() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the launcher died before prctl took effect
            os.kill(os.getpid(), signal.SIGKILL)

    return child


def run_mpiexec(cmd: list[str], env: dict[str, str]) -> int:
    """Run mpiexec until it ends, passing on the signals the launcher gets (module docstring);
    its exit status, or 128 + the signal's number when a signal stopped the run."""
    received: list[int] = []
    pending: list[int] = []  # signals that came before mpiexec existed: sent once it does
    kill_at = [float("inf")]
    started: list[subprocess.Popen] = []

    def forward(signum: int, frame: Any) -> None:
        received.append(signum)
        if not started:
            pending.append(signum)
        elif started[0].poll() is None:
            started[0].send_signal(signum)
        if signum != signal.SIGINT:  # SIGINT: the processes save a checkpoint, then stop
            kill_at[0] = min(kill_at[0], time.monotonic() + KILL_AFTER)

    # The handlers go in before mpiexec starts: a Ctrl-C in between would otherwise end this
    # launcher alone and leave mpiexec (in its own session) and the ranks running.
    main_thread = threading.current_thread() is threading.main_thread()  # (signals: main only)
    previous = {sig: signal.signal(sig, forward) for sig in FORWARDED} if main_thread else {}
    try:
        proc = subprocess.Popen(cmd, env=env, start_new_session=True, preexec_fn=_die_with_parent())
        started.append(proc)  # from here the handler sends; the earlier ones are sent now
        while pending:
            proc.send_signal(pending.pop(0))
        while True:
            try:
                code = proc.wait(timeout=max(0.05, min(1.0, kill_at[0] - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= kill_at[0]:
                    proc.kill()  # MPICH's process manager then kills every process
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if received and code != 0:
        return 128 + received[0]
    return code


def main(argv: list[str] | None = None) -> int:
    opts = _parser().parse_args(argv)
    try:
        cmd, env = build_command(opts)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return run_mpiexec(cmd, env)


if __name__ == "__main__":
    sys.exit(main())
