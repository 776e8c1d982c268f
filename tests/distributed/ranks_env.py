"""Rank script: report torchrun's variables and what the process group says (test_launcher.py)."""

from __future__ import annotations

import os
import sys

import minigenesis.distributed as dist
from tests.distributed.launch import report

NAMES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "MASTER_ADDR",
         "MASTER_PORT", "OMP_NUM_THREADS"]  # fmt: skip

if __name__ == "__main__":
    env = {name: os.environ.get(name) for name in NAMES}
    dist.init_process_group()
    t = dist.get_rank()
    report({"env": env, "rank": t, "world": dist.get_world_size(), "argv": sys.argv[1:],
            "main": __name__})  # fmt: skip
    dist.destroy_process_group()
