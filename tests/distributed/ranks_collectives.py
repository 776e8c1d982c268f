"""Rank script: every case of cases.py on this rank; reports {case name: result arrays}.

Run by test_collectives.py under ``mpiexec -n N``; tensors are handed over as the cases say
(transposed views for the strided ones) and read back as NumPy arrays."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
import minigenesis.distributed as dist
from tests.distributed.cases import CASES, Case, rank_input
from tests.distributed.launch import report


def tensor_for(case: Case, values: np.ndarray) -> mg.Tensor:
    """A tensor holding ``values``: contiguous, or a transposed view of a contiguous buffer."""
    if case.strided and values.ndim == 2:
        return mg.tensor(np.ascontiguousarray(values.T)).t()
    return mg.tensor(values)


def empty_like(case: Case, shape: tuple) -> mg.Tensor:
    t = mg.tensor(np.zeros(shape[::-1] if case.strided else shape, dtype=rank_input(case, 0).dtype))
    return t.t() if case.strided and len(shape) == 2 else t


def run(case: Case, rank: int, n: int) -> object:
    op = getattr(dist.ReduceOp, case.op)
    kind = case.kind
    asynchronous = kind.endswith("_async")
    kind = kind.removesuffix("_async")
    if kind == "all_reduce":
        t = tensor_for(case, rank_input(case, rank))
        work = dist.all_reduce(t, op=op, async_op=asynchronous)
        if asynchronous:
            work.wait()
            assert work.is_completed()
        return t.numpy().copy()
    if kind == "broadcast":
        t = tensor_for(case, rank_input(case, rank))
        work = dist.broadcast(t, src=n - 1, async_op=asynchronous)
        if asynchronous:
            while not work.is_completed():
                pass
        return t.numpy().copy()
    if kind == "all_gather":
        outs = [empty_like(case, case.shape) for _ in range(n)]
        work = dist.all_gather(outs, tensor_for(case, rank_input(case, rank)),
                               async_op=asynchronous)  # fmt: skip
        if asynchronous:
            work.wait()
        return [o.numpy().copy() for o in outs]
    if kind.startswith("all_gather_into_tensor"):
        shape = (n, *case.shape) if kind.endswith("stack") else (n * case.shape[0], *case.shape[1:])
        out = mg.tensor(np.zeros(shape, dtype=rank_input(case, 0).dtype))
        dist.all_gather_into_tensor(out, tensor_for(case, rank_input(case, rank)))
        return out.numpy().copy()
    if kind == "reduce_scatter":
        out = empty_like(case, case.shape)
        blocks = [tensor_for(case, rank_input(case, rank, block=b)) for b in range(n)]
        dist.reduce_scatter(out, blocks, op=op)
        return out.numpy().copy()
    if kind == "reduce_scatter_tensor":
        out = empty_like(case, case.shape)
        whole = mg.tensor(np.concatenate([rank_input(case, rank, block=b) for b in range(n)]))
        work = dist.reduce_scatter_tensor(out, whole, op=op, async_op=asynchronous)
        if asynchronous:
            work.wait()
        return out.numpy().copy()
    raise ValueError(kind)


def main() -> None:
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    results = {case.name: run(case, rank, n) for case in CASES}
    # Python objects and a barrier
    objs = [None] * n
    dist.all_gather_object(objs, {"rank": rank})
    sent = [f"from {rank}", rank] if rank == 0 else [None, None]
    dist.broadcast_object_list(sent, src=0)
    dist.barrier()
    work = dist.barrier(async_op=True)
    work.wait()
    # Arguments that are wrong on every rank fail before any communication
    errors = []
    for bad in (
        lambda: dist.all_gather([mg.zeros(2)] * (n + 1), mg.zeros(2)),
        lambda: dist.all_gather_into_tensor(mg.zeros(3 * n + 1), mg.zeros(3)),
        lambda: dist.broadcast(mg.zeros(2), src=n),
        lambda: dist.all_reduce(mg.zeros(2), op="sum"),
        lambda: dist.all_reduce(mg.zeros(2), op=dist.ReduceOp.BAND),
        lambda: dist.all_reduce(mg.zeros(3).expand(2, 3)),
    ):
        try:
            bad()
            errors.append(None)
        except (ValueError, TypeError, RuntimeError) as err:
            errors.append(f"{type(err).__name__}: {err}")
    info = {"rank": rank, "world": n, "backend": dist.get_backend(),
            "initialized": dist.is_initialized()}  # fmt: skip
    dist.destroy_process_group()
    info["after_destroy"] = dist.is_initialized()
    report({"results": results, "objects": objs, "sent": sent, "errors": errors, "info": info})


if __name__ == "__main__":
    main()
