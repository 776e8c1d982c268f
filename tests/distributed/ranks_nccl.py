"""Rank script: backend "nccl" on CUDA tensors, one GPU per rank (test_nccl.py)."""

from __future__ import annotations

import copy

import minigenesis as mg
import minigenesis.distributed as dist
from minigenesis import nn
from tests.distributed.launch import report

if __name__ == "__main__":
    dist.init_process_group("nccl")
    rank, n = dist.get_rank(), dist.get_world_size()
    out = {}
    t = (mg.arange(6, device="cuda").float().reshape(2, 3) + rank).t()
    dist.all_reduce(t)
    out["sum"] = t.cpu().numpy().copy()
    h = mg.ones(4, device="cuda", dtype=mg.float16) * (rank + 1)
    dist.all_reduce(h, op=dist.ReduceOp.MAX, async_op=True).wait()
    out["max_f16"] = h.float().cpu().numpy().copy()
    b = mg.full((3,), float(rank), device="cuda", dtype=mg.bfloat16)
    dist.broadcast(b, src=n - 1)
    out["bcast_bf16"] = b.float().cpu().numpy().copy()
    whole = mg.zeros(2 * n, device="cuda")
    dist.all_gather_into_tensor(whole, mg.tensor([rank, 10.0 * rank], device="cuda"))
    out["gather"] = whole.cpu().numpy().copy()
    part = mg.zeros(2, device="cuda")
    dist.reduce_scatter_tensor(part, mg.arange(2 * n, device="cuda").float())
    out["scatter"] = part.cpu().numpy().copy()
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)).to("cuda")
    ref = copy.deepcopy(model)
    ddp = nn.parallel.DistributedDataParallel(model, device_ids=[dist.get_rank()])
    x = mg.randn(4 * n, 4, device="cuda")
    mine = x[rank * 4 : (rank + 1) * 4]
    ddp(mine).pow(2).mean().backward()
    ref(x).pow(2).mean().backward()
    out["ddp_vs_ref"] = max(float((p.grad - q.grad).abs().max())
                            for p, q in zip(model.parameters(), ref.parameters()))  # fmt: skip
    dist.destroy_process_group()
    report(out)
