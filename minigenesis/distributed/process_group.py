"""The default process group: which process this is (rank), how many there are (world size),
and the communication backend (MPI for CPU tensors, NCCL for GPU tensors).

Processes are started by an MPI launcher: ``mpiexec -n 2 python train.py``, or this package's
torchrun-style ``python -m minigenesis.distributed.run --nproc-per-node 2 train.py``, which runs
mpiexec and also sets torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
MASTER_ADDR, MASTER_PORT). MPI itself is the rendezvous: the processes it started know each other,
so no address or port is needed to find the others; those variables are read and checked against
what MPI says, so a wrong launch fails with a clear message instead of hanging.
"""

from __future__ import annotations

import atexit
import os
import sys
import time
import warnings
from typing import Any

from ._mpi import INSTALL_HINT, MPIBackend, import_mpi, launched_world, start_mpi
from .timeouts import debug_level, resolve_timeout

NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)

BACKENDS = ("mpi", "nccl", "gloo")  # gloo: PyTorch's CPU backend name, served here by MPI
GLOO_NOTE = (
    "backend 'gloo' is served by MPI here (minigenesis has no gloo library): the same "
    "collectives on CPU tensors, and dist.get_backend() returns 'mpi'"
)


class _World:
    """The state of the default process group (one per process)."""

    backend: Any = None  # MPIBackend or NCCLBackend while initialized
    local_rank = 0
    joined: Any = None  # the last backend, kept after destroy: was it broken by an error?
    exit_hook = False  # _abort_if_broken is registered
    uncaught = False  # this process is ending on an uncaught exception (see _note_uncaught)
    gloo_noted = False


_world = _World()


def is_available() -> bool:
    """True when mpi4py (and so an MPI library) can be imported."""
    try:
        import_mpi()
    except ImportError:
        return False
    return True


def is_initialized() -> bool:
    return _world.backend is not None


def is_mpi_available() -> bool:
    return is_available()


def is_nccl_available() -> bool:
    try:
        from cupy.cuda import nccl  # noqa: F401  (optional: the GPU extra)
    except ImportError:
        return False
    return True


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"environment variable {name}={value!r} is not an integer") from None


def _launch_hint(n: int) -> str:
    return (
        f"start every process through MPI: python -m minigenesis.distributed.run "
        f"--nproc-per-node {n} script.py (or mpiexec -n {n} python script.py)"
    )


def _check_world(rank: int, world_size: int, mpi_rank: int, mpi_size: int) -> None:
    """The rank and world size asked for (arguments, else RANK / WORLD_SIZE) must be MPI's."""
    asked_size = world_size if world_size > 0 else _env_int("WORLD_SIZE")
    asked_rank = rank if rank >= 0 else _env_int("RANK")
    if asked_size is not None and asked_size != mpi_size:
        raise RuntimeError(
            f"world size {asked_size} was asked for (world_size argument or WORLD_SIZE), but MPI "
            f"started {mpi_size} process(es): {_launch_hint(asked_size)}"
        )
    if asked_rank is not None and asked_rank != mpi_rank:
        raise RuntimeError(
            f"rank {asked_rank} was asked for (rank argument or RANK), but MPI numbers this "
            f"process {mpi_rank}: ranks come from the launcher; {_launch_hint(mpi_size)}"
        )


def init_process_group(
    backend: str | None = None,
    init_method: str | None = None,
    timeout: Any = None,
    world_size: int = -1,
    rank: int = -1,
    store: Any = None,
    group_name: str = "",
    pg_options: Any = None,
    device_id: Any = None,
) -> None:
    """Join the default process group. ``backend``: "mpi" (CPU tensors) or "nccl" (CUDA tensors,
    one GPU per process, picked by LOCAL_RANK); "gloo", PyTorch's CPU backend, is accepted so
    that PyTorch programs run unchanged, and served by MPI (rank 0 says so once). Rank and world
    size come from MPI; ``rank``/``world_size`` or RANK / WORLD_SIZE, when given, must agree.

    ``timeout`` (a ``timedelta``; default: MINIGENESIS_DISTRIBUTED_TIMEOUT seconds, else 5
    minutes) bounds the start-up and every collective of the MPI backend: a collective some rank
    has not joined within it raises ``DistBackendError`` naming the collective, its sequence
    number and the ranks that did not arrive, and the job is aborted (every rank stopped) when
    this process exits."""
    if is_initialized():
        raise RuntimeError("trying to initialize the default process group twice!")
    name = (backend or "mpi").lower()
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if init_method not in (None, "env://"):
        raise ValueError(
            f"init_method {init_method!r} is not supported: the processes find each other "
            f"through the MPI launcher (init_method=None or 'env://')"
        )
    if store is not None:
        raise ValueError("store is not supported: the MPI launcher is the rendezvous")
    seconds = resolve_timeout(timeout)
    detail = debug_level() == "DETAIL"  # a bad value is refused before MPI starts
    launched = launched_world()
    asked = _env_int("WORLD_SIZE") or 1
    if launched is None and asked > 1:  # before MPI starts alone
        raise RuntimeError(
            f"WORLD_SIZE={asked} but this process was not started by an MPI launcher (PMI_RANK "
            f"and PMI_SIZE are not set): {_launch_hint(asked)}"
        )
    MPI = start_mpi(seconds)
    world = MPI.COMM_WORLD
    _check_world(rank, world_size, world.Get_rank(), world.Get_size())
    local_rank = _env_int("LOCAL_RANK")
    if local_rank is None:  # plain mpiexec: the rank among the processes on this machine
        node = world.Split_type(MPI.COMM_TYPE_SHARED)
        local_rank = node.Get_rank()
        node.Free()
    if device_id is not None and name == "nccl":
        local_rank = int(getattr(device_id, "index", device_id) or 0)
    if name == "nccl":
        from ._nccl import NCCLBackend  # imports CuPy: only for GPU runs

        _world.backend = NCCLBackend(local_rank)
    else:
        _world.backend = MPIBackend(seconds)
        if name == "gloo" and _world.backend.rank == 0 and not _world.gloo_noted:
            _world.gloo_noted = True
            warnings.warn(GLOO_NOTE, UserWarning, stacklevel=2)
    _world.backend.detail = detail  # check each collective across the ranks first
    _world.local_rank, _world.joined = local_rank, _world.backend
    if not _world.exit_hook:
        _world.exit_hook = True
        atexit.register(_abort_if_broken)
        sys.excepthook = _note_uncaught(sys.excepthook)


def _note_uncaught(previous: Any) -> Any:
    """An excepthook that remembers that a script ends on an uncaught exception (then calls
    ``previous``, which prints the traceback): the exit then aborts the job, as torchrun stops
    every worker when one fails, instead of leaving the other ranks waiting in their next
    collective for the whole timeout. (An interactive session calls the hook for every error
    and goes on: there it notes nothing.)"""

    def hook(kind: type, value: BaseException, tb: Any) -> None:
        if not hasattr(sys, "ps1") and not sys.flags.interactive:
            _world.uncaught = True
        previous(kind, value, tb)

    return hook


def abort_job_at_exit() -> None:
    """Make this process's exit abort the whole job (MPI_Abort), as an uncaught exception does:
    for an error that only this rank met (rank 0's disk filled while it saved), after which the
    other ranks would wait in their next collective for the whole timeout."""
    _world.uncaught = True


def _abort_if_broken() -> None:
    """At exit, after a collective failed or timed out, or on an uncaught exception: abort the
    whole job (MPI_Abort), so that no rank is left waiting, a stopped one included (the launcher
    kills every process)."""
    joined = _world.joined
    if joined is None:
        return
    mpi = import_mpi()
    if mpi.Is_finalized():  # the script ended MPI itself: nothing left to abort
        return
    if getattr(joined, "broken", None) is not None or _world.uncaught:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more can be said
                pass
        # mpiexec forwards each rank's output through its own pipes; aborting at once could
        # kill them before the traceback just written reaches the terminal (seen under load)
        time.sleep(0.2)
        mpi.COMM_WORLD.Abort(1)


def destroy_process_group(group: Any = None) -> None:
    """Leave the default process group (collectives in flight are finished first, within the
    timeout; after an error there is nothing to finish)."""
    _check_group(group)
    if _world.backend is not None:
        _world.backend.close()
    _world.backend = None


def _check_group(group: Any) -> None:
    if group is not None and group is not WORLD:
        raise NotImplementedError("only the default group (group=None) is supported")


def default_backend() -> Any:
    """The backend of the default group; ValueError (PyTorch's message) if there is none."""
    if _world.backend is None:
        if not is_available():
            raise RuntimeError(
                f"minigenesis.distributed needs mpi4py and an MPI library; install them with: "
                f"{INSTALL_HINT}"
            )
        raise ValueError(NOT_INITIALIZED)
    return _world.backend


def get_rank(group: Any = None) -> int:
    _check_group(group)
    return default_backend().rank


def get_world_size(group: Any = None) -> int:
    _check_group(group)
    return default_backend().size


def get_backend(group: Any = None) -> str:
    _check_group(group)
    return default_backend().name


def get_local_rank() -> int:
    default_backend()
    return _world.local_rank


class _Group:
    """``dist.group.WORLD``: the default group (the only one here)."""

    def __repr__(self) -> str:
        return "<minigenesis.distributed.group.WORLD>"


WORLD = _Group()


class group:  # noqa: N801  (PyTorch's name: dist.group.WORLD)
    WORLD = WORLD
