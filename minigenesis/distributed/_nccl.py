"""The GPU backend: collectives on CuPy arrays through NCCL (``cupy.cuda.nccl``).

NCCL needs every rank to hold the same unique id before the communicator exists; rank 0 draws it
and MPI broadcasts it (the processes were started by mpiexec, so MPI is there anyway). After that
MPI carries no tensor data: NCCL moves the device memory itself, over NVLink, PCIe or the network.

NCCL's collectives are kernels queued on a CUDA stream. They run on a stream of their own, after
an event that orders them behind the work already queued on the current stream (the producer of
the data). Finishing a collective (``wait``) queues the reverse: the current stream waits for an
event recorded after it, so later kernels see the result, and the host never blocks, as in
PyTorch, where ``Work.wait()`` on a NCCL collective synchronises streams, not the host.
"""

from __future__ import annotations

from typing import Any

from ._mpi import import_mpi


def _import_nccl() -> tuple[Any, Any]:
    try:
        import cupy  # optional dependency: the GPU extra
        from cupy.cuda import nccl
    except ImportError as err:
        raise ImportError(
            f"backend='nccl' needs CuPy built with NCCL ({err}); install the GPU extra with "
            f'pip install -e ".[gpu,distributed]", or use backend="mpi" for CPU tensors'
        ) from None
    return cupy, nccl


class _Pending:
    """A collective queued on the communication stream: its completion event."""

    def __init__(self, event: Any) -> None:
        self.event = event


class NCCLBackend:
    name = "nccl"

    def __init__(self, local_rank: int) -> None:
        MPI = import_mpi()
        cupy, nccl = _import_nccl()
        self.cupy, self.nccl = cupy, nccl
        world = MPI.COMM_WORLD
        self.rank, self.size = world.Get_rank(), world.Get_size()
        cupy.cuda.Device(local_rank).use()  # NCCL binds the communicator to the current device
        uid = nccl.get_unique_id() if self.rank == 0 else None
        uid = world.bcast(uid, root=0)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        self.stream = cupy.cuda.Stream(non_blocking=True)
        # ncclAvg and bfloat16 came with NCCL 2.10 / CuPy 11: used when this build has them
        self.ops = {"sum": nccl.NCCL_SUM, "product": nccl.NCCL_PROD, "max": nccl.NCCL_MAX,
                    "min": nccl.NCCL_MIN}  # fmt: skip
        self.types = {
            "float16": nccl.NCCL_FLOAT16, "float32": nccl.NCCL_FLOAT32,
            "float64": nccl.NCCL_FLOAT64, "int8": nccl.NCCL_INT8, "uint8": nccl.NCCL_UINT8,
            "int32": nccl.NCCL_INT32, "int64": nccl.NCCL_INT64,
        }  # fmt: skip
        if hasattr(nccl, "NCCL_BFLOAT16"):
            self.types["bfloat16"] = nccl.NCCL_BFLOAT16
        self.mpi = world  # for barrier and Python objects (small, host-side)

    def supports(self, dtype_name: str) -> bool:
        return dtype_name in self.types

    # ------------------------------------------------------------------ queueing
    def _begin(self) -> Any:
        """Order the communication stream after what the current stream has queued so far."""
        ready = self.cupy.cuda.Event(disable_timing=True)
        ready.record(self.cupy.cuda.get_current_stream())
        self.stream.wait_event(ready)
        return self.stream.ptr

    def _end(self, async_op: bool) -> Any:
        done = self.cupy.cuda.Event(disable_timing=True)
        done.record(self.stream)
        pending = _Pending(done)
        if async_op:
            return pending
        self.wait(pending)
        return None

    def _type(self, buf: Any) -> int:
        return self.types[str(buf.dtype) if buf.dtype.kind != "V" else "bfloat16"]

    # ------------------------------------------------------------------ collectives
    def all_reduce(self, buf: Any, op: str, async_op: bool, check: bool = True) -> Any:
        """(``check``: the MPI backend's agreement step; NCCL has none.)"""
        stream = self._begin()
        self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, self._type(buf), self.ops[op],
                            stream)  # fmt: skip
        return self._end(async_op)

    def broadcast(self, buf: Any, src: int, async_op: bool) -> Any:
        stream = self._begin()
        self.comm.bcast(buf.data.ptr, buf.size, self._type(buf), src, stream)
        return self._end(async_op)

    def all_gather(self, send: Any, recv: Any, async_op: bool) -> Any:
        stream = self._begin()
        self.comm.allGather(send.data.ptr, recv.data.ptr, send.size, self._type(send), stream)
        return self._end(async_op)

    def reduce_scatter(self, send: Any, recv: Any, op: str, async_op: bool) -> Any:
        stream = self._begin()
        self.comm.reduceScatter(send.data.ptr, recv.data.ptr, recv.size, self._type(send),
                                self.ops[op], stream)  # fmt: skip
        return self._end(async_op)

    def barrier(self, async_op: bool) -> Any:
        self.cupy.cuda.get_current_stream().synchronize()
        self.mpi.Barrier()
        return None

    def bcast_object(self, obj: Any, src: int, name: str = "") -> Any:
        return self.mpi.bcast(obj, root=src)

    def allgather_object(self, obj: Any, name: str = "", count: bool = True) -> list:
        return self.mpi.allgather(obj)

    # ------------------------------------------------------------------ requests
    def wait(self, pending: _Pending) -> None:
        """The current stream waits for the collective (the host does not)."""
        self.cupy.cuda.get_current_stream().wait_event(pending.event)

    def test(self, pending: _Pending) -> bool:
        return bool(pending.event.done)

    def poke(self) -> None:
        """NCCL runs on the device by itself: nothing to drive from the host."""

    def close(self) -> None:
        self.stream.synchronize()
        self.comm.destroy()
