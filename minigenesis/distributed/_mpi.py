"""The CPU backend: collectives on NumPy arrays through MPI (mpi4py).

Every function here takes contiguous NumPy arrays and hands them to MPI as they are: the buffer
protocol gives MPI the address, the element count and the MPI datatype (float16 included, MPICH
has it). ``collectives.py`` prepares those arrays (a contiguous copy of a strided tensor, bfloat16
widened to float32) and writes the results back.

A non-blocking collective (``MPI_Iallreduce`` ...) returns at once with a request; MPI moves the
data forward whenever the process calls into MPI (testing or waiting on any request), so
``MPIBackend.poke`` lets a caller drive that progress while it computes.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

INSTALL_HINT = 'pip install -e ".[distributed]"'


def import_mpi() -> Any:
    """mpi4py's MPI module, or an ImportError that says how to install it."""
    try:
        from mpi4py import MPI  # optional dependency: only distributed runs need it
    except ImportError as err:
        raise ImportError(
            f"minigenesis.distributed needs mpi4py and an MPI library ({err}); install them "
            f"with: {INSTALL_HINT}"
        ) from None
    return MPI


class MPIBackend:
    """One communicator (a duplicate of MPI_COMM_WORLD) and the collectives on it."""

    name = "mpi"

    def __init__(self) -> None:
        MPI = import_mpi()
        self.MPI = MPI
        # A private duplicate: our messages can never match a user's own MPI_COMM_WORLD traffic.
        self.comm = MPI.COMM_WORLD.Dup()
        self.rank, self.size = self.comm.Get_rank(), self.comm.Get_size()
        self.ops = {
            "sum": MPI.SUM, "product": MPI.PROD, "max": MPI.MAX, "min": MPI.MIN,
            "band": MPI.BAND, "bor": MPI.BOR, "bxor": MPI.BXOR,
        }  # fmt: skip
        self.pending: list = []  # requests in flight, tested by poke()

    # Every collective returns None (done) or an MPI request (in flight).
    def all_reduce(self, buf: np.ndarray, op: str, async_op: bool) -> Any:
        if async_op:
            return self._track(self.comm.Iallreduce(self.MPI.IN_PLACE, buf, op=self.ops[op]))
        self.comm.Allreduce(self.MPI.IN_PLACE, buf, op=self.ops[op])
        return None

    def broadcast(self, buf: np.ndarray, src: int, async_op: bool) -> Any:
        if async_op:
            return self._track(self.comm.Ibcast(buf, root=src))
        self.comm.Bcast(buf, root=src)
        return None

    def all_gather(self, send: np.ndarray, recv: np.ndarray, async_op: bool) -> Any:
        """recv (size * send.size elements) gets every rank's send, in rank order."""
        if async_op:
            return self._track(self.comm.Iallgather(send, recv))
        self.comm.Allgather(send, recv)
        return None

    def reduce_scatter(self, send: np.ndarray, recv: np.ndarray, op: str, async_op: bool) -> Any:
        """send holds size equal blocks; block r, reduced over the ranks, lands in rank r's recv."""
        if async_op:
            return self._track(self.comm.Ireduce_scatter_block(send, recv, op=self.ops[op]))
        self.comm.Reduce_scatter_block(send, recv, op=self.ops[op])
        return None

    def barrier(self, async_op: bool) -> Any:
        if async_op:
            return self._track(self.comm.Ibarrier())
        self.comm.Barrier()
        return None

    def bcast_object(self, obj: Any, src: int) -> Any:
        return self.comm.bcast(obj, root=src)

    def allgather_object(self, obj: Any) -> list:
        return self.comm.allgather(obj)

    # ------------------------------------------------------------------ requests
    def _track(self, request: Any) -> Any:
        self.pending.append(request)
        return request

    def wait(self, request: Any) -> None:
        request.Wait()
        self._forget(request)

    def test(self, request: Any) -> bool:
        done = request.Test()
        if done:
            self._forget(request)
        return done

    def poke(self) -> None:
        """Let MPI progress the collectives in flight (MPICH moves data only inside MPI calls)."""
        if self.pending:
            self.MPI.Request.Testall(self.pending)

    def _forget(self, request: Any) -> None:
        self.pending = [r for r in self.pending if r is not request]

    def close(self) -> None:
        for request in self.pending:
            request.Wait()
        self.pending = []
        self.comm.Free()


def launched_world() -> tuple[int, int] | None:
    """(rank, size) from the environment an MPI launcher (mpiexec) gives each process, or None.
    Read before MPI starts, so that a mismatch with RANK/WORLD_SIZE can be named clearly."""
    for rank_var, size_var in (("PMI_RANK", "PMI_SIZE"), ("OMPI_COMM_WORLD_RANK",
                                                         "OMPI_COMM_WORLD_SIZE")):  # fmt: skip
        if rank_var in os.environ and size_var in os.environ:
            return int(os.environ[rank_var]), int(os.environ[size_var])
    return None
