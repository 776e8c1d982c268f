"""Rank script: one rank misbehaves, the others must end with a clear error within the timeout.

    python ranks_faults.py SCENARIO TIMEOUT_S [LATE_S]

Scenarios: ``late`` (rank 1 reaches the all-reduce LATE_S seconds late), ``stop`` (rank 1 stops
itself with SIGSTOP before the all-reduce), ``sizes`` (rank 1's tensor has another size; run
with MINIGENESIS_DISTRIBUTED_DEBUG=DETAIL), ``order`` (rank 1 calls broadcast where rank 0
calls all_reduce), ``init`` (rank 1 starts LATE_S seconds late), ``model`` (rank 1 wraps a
wider model in DistributedDataParallel), ``layers`` (rank 1's model has one layer more),
``raise`` (rank 1 ends on an uncaught exception before the all-reduce), ``dtypes`` (rank 1's
tensor is float64), ``barrier`` (rank 1 calls barrier where rank 0 calls all_reduce),
``uneven`` (rank 0 takes one DistributedDataParallel step more than rank 1).
A rank whose collective was refused before any data moved (not a DistBackendError) then runs
one more all-reduce and reports its sum as ``after``: the group must still work.
Each rank reports the sum it got and how long the all-reduce took, or the error it raised; a
rank that raised exits with status 3 (after report, so the test reads its message).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from datetime import timedelta

import minigenesis as mg
import minigenesis.distributed as dist
from tests.distributed.launch import report

scenario, timeout = sys.argv[1], float(sys.argv[2])
late = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
rank_from_launcher = int(os.environ.get("PMI_RANK", "0"))
if scenario == "init" and rank_from_launcher == 1:
    time.sleep(late)
dist.init_process_group(os.environ.get("FAULTS_BACKEND", "mpi"), timeout=timedelta(seconds=timeout))
rank = dist.get_rank()
dist.barrier()  # everyone is in: what follows times only the scenario
t = mg.ones(4 if scenario == "sizes" and rank == 1 else 3,
            dtype=mg.float64 if scenario == "dtypes" and rank == 1 else mg.float32)  # fmt: skip
if rank == 1 and scenario == "late":
    time.sleep(late)
if rank == 1 and scenario == "stop":
    os.kill(os.getpid(), signal.SIGSTOP)
if rank == 1 and scenario == "raise":
    raise ValueError("rank 1 failed outside any collective")
start = time.monotonic()
try:
    if scenario in ("model", "layers"):
        width = 5 if scenario == "model" and rank == 1 else 4
        layers = [mg.nn.Linear(3, width), mg.nn.Linear(width, 2)]
        if scenario == "layers" and rank == 1:
            layers.append(mg.nn.Linear(2, 2))
        mg.nn.parallel.DistributedDataParallel(mg.nn.Sequential(*layers))
    elif scenario == "order" and rank == 1:
        dist.broadcast(t, 0)
    elif scenario == "barrier" and rank == 1:
        dist.barrier()
    elif scenario == "uneven":  # rank 0 takes one DDP step more (uneven data), then all_reduce
        ddp = mg.nn.parallel.DistributedDataParallel(mg.nn.Linear(4, 3))
        for _ in range(3 if rank == 0 else 2):
            ddp(mg.ones(2, 4)).sum().backward()
        dist.all_reduce(t)
    elif scenario == "objects":  # rank 0 broadcasts tensors, rank 1 an object
        if rank == 0:
            dist.broadcast(mg.tensor([5]), 0)
            dist.broadcast(mg.tensor([1, 2, 3, 4, 5], dtype=mg.uint8), 0)
        else:
            dist.broadcast_object_list([None], src=0)
    else:
        dist.all_reduce(t)
except RuntimeError as err:
    waited = time.monotonic() - start
    after = None
    if not isinstance(err, dist.DistBackendError):  # refused before any data moved: try again
        again = mg.ones(2)
        dist.all_reduce(again)
        after = again.tolist()
    report({"error": type(err).__name__, "message": str(err), "waited": waited,
            "after": after})  # fmt: skip
    sys.exit(3)  # an uncaught error would do the same: the job is aborted at exit
report({"sum": t.tolist(), "waited": time.monotonic() - start})
dist.destroy_process_group()
