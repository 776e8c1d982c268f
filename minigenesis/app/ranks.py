"""What the processes of a data-parallel ``train --nproc N`` run must agree on.

Every process builds the run from its own options. If they differ, the processes train
different things: another ``--hidden`` gives other parameter shapes, another ``--batch-size`` or
``--epochs`` another number of steps, so the collectives stop matching and the job would hang
(or, worse, reduce tensors of different sizes without a word). So before building anything the
processes exchange their settings: any difference is an error on every process, naming the
option and the ranks. The seed is the exception: a different ``--seed`` per process is the
classic way to get different data and weights on each rank, so every process takes rank 0's
(and DistributedDataParallel broadcasts rank 0's initial weights as well).
"""

from __future__ import annotations

import dataclasses
import sys

from .. import distributed as dist
from .config import TrainConfig
from .state import TrainError

# may differ per process: each one picks its own GPU; the seed is rank 0's for all
PER_PROCESS = ("device", "seed")


def agree(config: TrainConfig, resumed_step: int) -> TrainConfig:
    """``config`` with rank 0's seed; TrainError on every rank if the settings (or the step a
    resumed run starts from) differ between the processes."""
    mine = {**config.to_dict(), "resumed at step": resumed_step}
    everyone: list = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, mine)
    first = everyone[0]
    for key, value in first.items():
        if key in PER_PROCESS:
            continue
        differ = [r for r, theirs in enumerate(everyone) if theirs.get(key) != value]
        if differ:
            what = key if key == "resumed at step" else "--" + key.replace("_", "-")
            theirs = everyone[differ[0]].get(key)
            raise TrainError(
                f"the processes were started with different settings: {what} is {value} on "
                f"rank 0 but {theirs} on rank {differ[0]} (ranks that differ from rank 0: "
                f"{', '.join(map(str, differ))}); every process of a data-parallel run needs "
                "the same options"
            )
    rank = dist.get_rank()
    if mine["seed"] != first["seed"]:
        print(f"note: rank {rank} was given --seed {mine['seed']}; every process uses rank 0's "
              f"--seed {first['seed']}", file=sys.stderr)  # fmt: skip
    return dataclasses.replace(config, seed=first["seed"])
