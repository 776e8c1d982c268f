"""Rank script: one rank hands an object collective something pickle refuses.

    python ranks_objects.py SCENARIO TIMEOUT_S

Scenarios: ``broadcast`` (rank 0, the source of broadcast_object_list, holds a lambda),
``gather`` (rank 1 passes a lambda to all_gather_object). Each rank reports the error it got
(type and message) and how long the call took, then whether the group still works (an
all_reduce after it).
"""

from __future__ import annotations

import sys
import time
from datetime import timedelta

import minigenesis as mg
import minigenesis.distributed as dist
from tests.distributed.launch import report

scenario, timeout = sys.argv[1], float(sys.argv[2])
dist.init_process_group("mpi", timeout=timedelta(seconds=timeout))
rank = dist.get_rank()
dist.barrier()
start = time.monotonic()
got: dict = {}
try:
    if scenario == "broadcast":
        objects = [(lambda: 0) if rank == 0 else None]
        dist.broadcast_object_list(objects, src=0)
    else:
        gathered = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, (lambda: 0) if rank == 1 else rank)
    got["error"] = None
except Exception as err:  # noqa: BLE001  (the test checks which)
    got.update(error=type(err).__name__, message=str(err))
got["waited"] = time.monotonic() - start
try:
    t = mg.ones(2)
    dist.all_reduce(t)
    got["after"] = t.tolist()
except RuntimeError as err:
    got["after"] = f"{type(err).__name__}: {err}"
report(got)
dist.destroy_process_group()
