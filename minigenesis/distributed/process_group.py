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

import os
from typing import Any

from ._mpi import INSTALL_HINT, MPIBackend, import_mpi, launched_world

NOT_INITIALIZED = (
    "Default process group has not been initialized, please make sure to call init_process_group."
)

BACKENDS = ("mpi", "nccl", "gloo")  # gloo: PyTorch's CPU backend name, served here by MPI


class _World:
    """The state of the default process group (one per process)."""

    backend: Any = None  # MPIBackend or NCCLBackend while initialized
    local_rank = 0


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
    """Join the default process group. ``backend``: "mpi" (CPU tensors; "gloo", PyTorch's CPU
    backend, is accepted and served by MPI) or "nccl" (CUDA tensors, one GPU per process, picked
    by LOCAL_RANK). Rank and world size come from MPI; ``rank``/``world_size`` or RANK /
    WORLD_SIZE, when given, must agree with it."""
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
    launched = launched_world()
    if launched is None and (_env_int("WORLD_SIZE") or 1) > 1:  # before MPI starts alone
        raise RuntimeError(
            f"WORLD_SIZE={os.environ['WORLD_SIZE']} but this process was not started by an MPI "
            f"launcher: {_launch_hint(_env_int('WORLD_SIZE') or 2)}"
        )
    MPI = import_mpi()
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
        _world.backend = MPIBackend()
    _world.local_rank = local_rank


def destroy_process_group(group: Any = None) -> None:
    """Leave the default process group (collectives in flight are finished first)."""
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
