"""What each process started by ``minigenesis.distributed.run`` runs first: torchrun's variables
from what mpiexec told this process, then the user's script as ``__main__``.

mpiexec (MPICH's Hydra) gives every process PMI_RANK, PMI_SIZE and MPI_LOCALRANKID; torchrun's
names are derived from them: RANK = PMI_RANK, LOCAL_RANK = MPI_LOCALRANKID (the rank among the
processes of this machine), GROUP_RANK = RANK // LOCAL_WORLD_SIZE (the machine's number).
"""

from __future__ import annotations

import importlib.util
import os
import runpy
import sys


def torchrun_env(environ: dict[str, str], nproc_per_node: int) -> dict[str, str]:
    """RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE and LOCAL_WORLD_SIZE from mpiexec's variables."""
    rank = int(environ.get("PMI_RANK", environ.get("OMPI_COMM_WORLD_RANK", 0)))
    size = int(environ.get("PMI_SIZE", environ.get("OMPI_COMM_WORLD_SIZE", 1)))
    local = environ.get("MPI_LOCALRANKID", environ.get("OMPI_COMM_WORLD_LOCAL_RANK"))
    local_rank = int(local) if local is not None else rank % nproc_per_node
    return {
        "RANK": str(rank), "WORLD_SIZE": str(size), "LOCAL_RANK": str(local_rank),
        "LOCAL_WORLD_SIZE": str(nproc_per_node), "GROUP_RANK": str(rank // nproc_per_node),
        "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": str(size),
    }  # fmt: skip


def _check_module(name: str) -> None:
    """Exit with one line (not a traceback per process) when the module to run is not found."""
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError) as err:  # a parent package that is not there, or ''
        raise SystemExit(f"error: cannot run -m {name}: {err}") from None
    if not found:
        raise SystemExit(f"error: cannot run -m {name}: no module named {name!r}")


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[0] != "--nproc-per-node":
        raise SystemExit("usage: python -m minigenesis.distributed.run ... (not run directly)")
    nproc = int(argv[1])
    os.environ.update(torchrun_env(dict(os.environ), nproc))
    rest = argv[2:]
    if rest[0] == "-m":
        sys.argv = [rest[1], *rest[2:]]
        _check_module(rest[1])
        runpy.run_module(rest[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = rest
        sys.path.insert(0, os.path.dirname(os.path.abspath(rest[0])))  # as `python script.py`
        runpy.run_path(rest[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
