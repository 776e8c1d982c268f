"""``mg.distributed``: data-parallel training across processes, with PyTorch's API.

    import minigenesis.distributed as dist
    dist.init_process_group("mpi")              # "nccl" for CUDA tensors
    rank, world = dist.get_rank(), dist.get_world_size()
    dist.all_reduce(t, op=dist.ReduceOp.SUM)    # every rank now holds the sum

Start the processes with ``python -m minigenesis.distributed.run --nproc-per-node 2 train.py``
(torchrun's conventions) or ``mpiexec -n 2 python train.py``. The communication library is MPI
(mpi4py) for CPU tensors and NCCL (``cupy.cuda.nccl``) for GPU tensors; both are optional:
``import minigenesis`` works without them, and using this package without mpi4py says how to
install it (``pip install -e ".[distributed]"``).

Files: ``process_group.py`` (init, rank, world size), ``collectives.py`` (all_reduce ...),
``_mpi.py`` / ``_nccl.py`` (the two backends), ``run.py`` (the launcher).
``timeouts.py`` (the process group's timeout, which bounds every collective: a rank that does
not arrive makes the others raise ``DistBackendError``, never wait for ever).
``nn.parallel.DistributedDataParallel`` and ``utils.data.distributed.DistributedSampler`` build
on this package.
"""

from .collectives import (
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    barrier,
    broadcast,
    broadcast_object_list,
    reduce_scatter,
    reduce_scatter_tensor,
)
from .timeouts import DEFAULT_TIMEOUT, DistBackendError, DistError
from .process_group import (
    destroy_process_group,
    get_backend,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "DistBackendError",
    "DistError",
    "ReduceOp",
    "Work",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "destroy_process_group",
    "get_backend",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "is_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
]
