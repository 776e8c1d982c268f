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
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from ._mpi import INSTALL_HINT

WORKER = "minigenesis.distributed._worker"


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


def build_command(opts: argparse.Namespace) -> tuple[list[str], dict[str, str]]:
    """The mpiexec command line and the environment it starts with."""
    if opts.nproc < 1:
        raise ValueError(f"--nproc-per-node must be at least 1, got {opts.nproc}")
    if opts.nnodes < 1:
        raise ValueError(f"--nnodes must be at least 1, got {opts.nnodes}")
    hosts = [h for h in (opts.hosts or "").split(",") if h]
    if opts.nnodes > 1 and len(hosts) != opts.nnodes:
        raise ValueError(f"--nnodes {opts.nnodes} needs --hosts with {opts.nnodes} host names")
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


def main(argv: list[str] | None = None) -> int:
    opts = _parser().parse_args(argv)
    try:
        cmd, env = build_command(opts)
    except (ValueError, FileNotFoundError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:  # mpiexec forwards Ctrl-C to the processes and reports them
        return 130


if __name__ == "__main__":
    sys.exit(main())
