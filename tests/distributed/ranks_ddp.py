"""Rank script: DistributedDataParallel on this rank's half of each batch, next to a
single-process reference that trains the same model on the whole batch.

Both start from the same weights (rank 0's: the other ranks start from different ones, so the
broadcast at construction is checked too) and see the same batches; after 20 steps each rank
reports its parameters and the reference's. Run by test_ddp.py on 2 ranks.
"""

from __future__ import annotations

import copy
import sys

import numpy as np

import minigenesis as mg
import minigenesis.distributed as dist
from minigenesis import nn
from minigenesis.nn.parallel import DistributedDataParallel as DDP
from tests.distributed.launch import report

STEPS, B, D, C = 20, 16, 6, 3


class Net(nn.Module):
    """An MLP with an extra layer that a forward may skip (find_unused_parameters)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(D, 32), nn.Tanh(), nn.Linear(32, 32), nn.ReLU())
        self.extra = nn.Linear(32, 32)
        self.head = nn.Linear(32, C)

    def forward(self, x: mg.Tensor, use_extra: bool = True) -> mg.Tensor:
        h = self.body(x)
        if use_extra:
            h = h + self.extra(h).tanh()
        return self.head(h)


def batches(steps: int, inf_at: int | None = None):
    g = mg.Generator().manual_seed(7)
    for step in range(steps):
        X = mg.randn(B, D, generator=g)
        y = mg.randint(0, C, (B,), generator=g)
        if step == inf_at:  # an overflow in the second half only: one rank sees it
            X[B - 1, 0] = float("inf")
        yield step, X, y


def make_optimizer(name: str, params) -> mg.optim.Optimizer:
    if name == "sgd":
        return mg.optim.SGD(params, lr=0.1, momentum=0.9)
    return mg.optim.AdamW(params, lr=3e-3, weight_decay=1e-2)


def train(config: dict, rank: int, n: int) -> dict:
    mg.manual_seed(0)
    model = Net()
    ref = copy.deepcopy(model)
    if rank != 0:  # different starting weights: DDP must broadcast rank 0's
        with mg.no_grad():
            for p in model.parameters():
                p.mul_(-2.0)
    ddp = DDP(model, bucket_cap_mb=config.get("bucket_cap_mb", 25),
              find_unused_parameters=config.get("find_unused", False))  # fmt: skip
    opt = make_optimizer(config["opt"], ddp.parameters())
    ref_opt = make_optimizer(config["opt"], ref.parameters())
    amp = config.get("amp", False)
    scaler, ref_scaler = mg.amp.GradScaler(enabled=amp), mg.amp.GradScaler(enabled=amp)
    accum = config.get("accum", 1)
    clip = config.get("clip")
    half = slice(rank * B // n, (rank + 1) * B // n)
    scales, ref_scales = [], []

    def step_with(optimizer, s, module):
        if clip:
            s.unscale_(optimizer)
            nn.utils.clip_grad_norm_(module.parameters(), clip)
        s.step(optimizer)
        s.update()
        optimizer.zero_grad()

    data = list(batches(STEPS * accum, config.get("inf_at")))
    for k in range(STEPS):
        group = data[k * accum : (k + 1) * accum]
        use_extra = config.get("extra", lambda step, r: True)
        # --- data parallel: this rank's half of each micro-batch; all but the last unsynced
        for j, (step, X, y) in enumerate(group):
            sync = j == accum - 1
            with ddp.no_sync() if not sync else _nothing():
                with mg.autocast("cpu", dtype=mg.float16, enabled=amp):
                    out = ddp(X[half], use_extra=use_extra(step, rank))
                    loss = nn.functional.cross_entropy(out, y[half]) / accum
                scaler.scale(loss).backward()
        step_with(opt, scaler, model)
        scales.append(scaler.get_scale())
        # --- the reference: one process, the whole batch. With autocast it runs the halves
        # one by one, each in its own autocast region, so that float16 rounds the same values
        # and the halves' gradients meet in float32 (within one region autocast casts a weight
        # once, and the halves' float16 gradients would be summed in float16 first).
        parts = [slice(r * B // n, (r + 1) * B // n) for r in range(n)]
        for step, X, y in group:
            if amp:
                for r, p in enumerate(parts):
                    with mg.autocast("cpu", dtype=mg.float16):
                        out = ref(X[p], use_extra=use_extra(step, r))
                        loss = nn.functional.cross_entropy(out, y[p]) / (n * accum)
                    ref_scaler.scale(loss).backward()
            else:
                outs = [ref(X[p], use_extra=use_extra(step, r)) for r, p in enumerate(parts)]
                loss = nn.functional.cross_entropy(mg.cat(outs), y) / accum
                ref_scaler.scale(loss).backward()
        step_with(ref_opt, ref_scaler, ref)
        ref_scales.append(ref_scaler.get_scale())
    return {
        "params": [p.detach().numpy().copy() for p in model.parameters()],
        "ref": [p.detach().numpy().copy() for p in ref.parameters()],
        "scales": scales,
        "ref_scales": ref_scales,
        "buckets": len(ddp.reducer.buckets),
    }


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


CONFIGS = {
    "sgd": {"opt": "sgd"},
    "adamw_clip_small_buckets": {"opt": "adamw", "clip": 0.5, "bucket_cap_mb": 0.002},
    "adamw_amp_inf_step": {"opt": "adamw", "amp": True, "inf_at": 7},
    "sgd_no_sync": {"opt": "sgd", "accum": 2},
    "adamw_amp_no_sync_clip": {"opt": "adamw", "amp": True, "accum": 3, "clip": 1.0},
    "unused_on_some_ranks": {"opt": "adamw", "find_unused": True,
                             "extra": lambda step, r: (step + r) % 3 != 0},
    "unused_on_every_rank": {"opt": "adamw", "find_unused": True,
                             "extra": lambda step, r: step % 2 == 0},
}  # fmt: skip


def unused_without_flag(rank: int) -> str | None:
    """A parameter without gradient and find_unused_parameters=False: the next forward says so."""
    mg.manual_seed(0)
    ddp = DDP(Net())
    x = mg.randn(4, D)
    for _ in range(2):
        try:
            ddp(x, use_extra=False).sum().backward()
        except RuntimeError as err:
            return str(err)
    return None


def buffers_follow_rank_0(rank: int) -> list:
    bn = nn.BatchNorm1d(4)
    with mg.no_grad():
        bn.running_mean.fill_(float(rank + 1))
    ddp = DDP(nn.Sequential(nn.Linear(4, 4), bn), broadcast_buffers=True)
    with mg.no_grad():
        bn.running_mean.fill_(float(rank + 10))  # drifted apart after construction
    ddp.eval()
    ddp(mg.ones(2, 4))
    return bn.running_mean.tolist()


def scaler_skips_together(rank: int) -> list:
    """Gradients DDP does not see (a plain model): the ranks still skip the same steps."""
    lin = nn.Linear(3, 1)
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    scaler = mg.amp.GradScaler()
    skipped = []
    for step in range(3):
        x = mg.ones(2, 3) * (float("inf") if (step == 1 and rank == 1) else 1.0)
        scaler.scale(lin(x).sum()).backward()
        before = [p.detach().numpy().copy() for p in lin.parameters()]
        scaler.step(opt)
        scaler.update()
        after = [p.detach().numpy() for p in lin.parameters()]
        skipped.append(all(np.array_equal(a, b) for a, b in zip(before, after)))
        opt.zero_grad()
    return skipped


def main() -> None:
    dist.init_process_group("mpi")
    rank, n = dist.get_rank(), dist.get_world_size()
    names = sys.argv[1:] or list(CONFIGS)
    out = {name: train(CONFIGS[name], rank, n) for name in names}
    out["unused_error"] = unused_without_flag(rank)
    out["buffers"] = buffers_follow_rank_0(rank)
    out["scaler_skips"] = scaler_skips_together(rank)
    dist.destroy_process_group()
    report(out)


if __name__ == "__main__":
    main()
