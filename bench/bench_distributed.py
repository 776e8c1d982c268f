"""Data-parallel training on this machine: 1 process vs 2, and how much communication is hidden.

    python bench/bench_distributed.py            # the table (starts its own mpiexec runs)
    python bench/bench_distributed.py --quick    # fewer steps

Three measurements:

1. Steps per second of DistributedDataParallel training with the same GLOBAL batch on 1 and on 2
   processes (each of the 2 takes half), for the main job's MLP (2-128-128-3, 17 k parameters)
   and a deeper MLP (eight 1024x1024 layers, 8.4 M parameters, 34 MB of float32 gradients).
2. Overlap: the time backward takes with gradient synchronisation minus the time it takes under
   ``no_sync()`` is the communication NOT hidden behind backward (of it, the time spent waiting
   for the all-reduces after the last bucket started); compared with the time of one blocking
   all-reduce of all the gradients (what it would cost without any overlap), for a few bucket
   sizes.
3. All-reduce bandwidth against message size on 2 processes (MPI over shared memory), the input
   of the ring cost model in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# Worker: runs on every rank under mpiexec; rank 0 prints one JSON line
# ---------------------------------------------------------------------------------------------
def _model(name: str):
    from minigenesis import nn

    if name == "main_job_mlp":
        return nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                             nn.Linear(128, 3)), 2, 3  # fmt: skip
    layers = [m for _ in range(8) for m in (nn.Linear(1024, 1024), nn.ReLU())]
    return nn.Sequential(*layers, nn.Linear(1024, 10)), 1024, 10


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[len(xs) // 2]


def worker(args: argparse.Namespace) -> None:
    import minigenesis as mg
    import minigenesis.distributed as dist
    from minigenesis import nn
    from minigenesis.nn.parallel import DistributedDataParallel as DDP
    from minigenesis.nn.parallel import distributed as ddp_module

    waited = [0.0]  # time in the reducer's final wait (all buckets started, backward done)
    finish = ddp_module._Reducer._finish

    def timed_finish(self) -> None:
        t0 = time.perf_counter()
        finish(self)
        waited[0] += time.perf_counter() - t0

    ddp_module._Reducer._finish = timed_finish
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    out: dict = {"world": world}
    if args.what == "train":
        mg.manual_seed(0)
        model, d_in, classes = _model(args.model)
        ddp = DDP(model, bucket_cap_mb=args.bucket_mb)
        opt = mg.optim.SGD(ddp.parameters(), lr=0.01)
        local = args.batch // world
        X, y = mg.randn(local, d_in), mg.randint(0, classes, (local,))
        step_times, sync_bw, nosync_bw, waits = [], [], [], []
        for i in range(args.warmup + args.steps):
            dist.barrier()
            waited[0] = 0.0
            t0 = time.perf_counter()
            loss = nn.functional.cross_entropy(ddp(X), y)
            t1 = time.perf_counter()
            loss.backward()
            t2 = time.perf_counter()
            wait = waited[0]
            opt.step()
            opt.zero_grad()
            t3 = time.perf_counter()
            # the same backward without synchronisation: its time is the compute alone
            with ddp.no_sync():
                loss = nn.functional.cross_entropy(ddp(X), y)
                t4 = time.perf_counter()
                loss.backward()
                t5 = time.perf_counter()
            opt.zero_grad()
            if i >= args.warmup:
                step_times.append(t3 - t0)
                sync_bw.append(t2 - t1)
                nosync_bw.append(t5 - t4)
                waits.append(wait)
        grads = mg.zeros(sum(p.numel() for p in model.parameters()))
        allreduce = []
        for _ in range(max(3, args.steps // 2)):
            dist.barrier()
            t0 = time.perf_counter()
            dist.all_reduce(grads)
            allreduce.append(time.perf_counter() - t0)
        out.update(step=_median(step_times), backward_sync=_median(sync_bw),
                   backward_nosync=_median(nosync_bw), allreduce_all=_median(allreduce),
                   final_wait=_median(waits),
                   buckets=len(ddp.reducer.buckets),
                   params=sum(p.numel() for p in model.parameters()))  # fmt: skip
    else:  # all-reduce bandwidth against message size
        sizes = [2**k for k in range(8, 25, 2)]  # 256 floats (1 KB) .. 16 M floats (64 MB)
        rows = []
        for n in sizes:
            t = mg.ones(n)
            reps = max(3, min(200, int(2e7 // n)))
            times = []
            for _ in range(reps):
                dist.barrier()
                t0 = time.perf_counter()
                dist.all_reduce(t)
                times.append(time.perf_counter() - t0)
            rows.append((n * 4, _median(times)))
        out["sizes"] = rows
    if rank == 0:
        print("RESULT " + json.dumps(out), flush=True)
    dist.destroy_process_group()


# ---------------------------------------------------------------------------------------------
# Driver: starts the workers and prints the tables
# ---------------------------------------------------------------------------------------------
def run(n: int, *args: str) -> dict:
    mpiexec = str(Path(sys.executable).parent / "mpiexec")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1"}  # fmt: skip
    cmd = [mpiexec, "-n", str(n), sys.executable, __file__, "--worker", *args]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--worker", action="store_true")
    p.add_argument("--what", default="train")
    p.add_argument("--model", default="main_job_mlp")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--bucket-mb", type=float, default=25)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args()
    if args.worker:
        worker(args)
        return
    steps = ["--steps", "8" if args.quick else "30", "--warmup", "2" if args.quick else "5"]
    big_steps = ["--steps", "4" if args.quick else "10", "--warmup", "1" if args.quick else "2"]
    print(f"# {os.cpu_count()} cores; global batch 64; SGD; medians\n")
    print(
        "| model | processes | step (ms) | speed-up | backward, synced (ms) | backward, "
        "no_sync (ms) | all-reduce of all gradients (ms) |"
    )
    print("|---|---|---|---|---|---|---|")
    for model, extra in (("main_job_mlp", steps), ("deep_mlp", big_steps)):
        one = run(1, "--model", model, *extra)
        two = run(2, "--model", model, *extra)
        for r in (one, two):
            print(
                f"| {model} ({r['params']:,} params) | {r['world']} | {1e3 * r['step']:.2f} | "
                f"{one['step'] / r['step']:.2f}x | {1e3 * r['backward_sync']:.2f} | "
                f"{1e3 * r['backward_nosync']:.2f} | {1e3 * r['allreduce_all']:.2f} |"
            )
    print("\n## overlap on 2 processes, deep_mlp: communication not hidden behind backward\n")
    print(
        "| bucket_cap_mb | buckets | backward no_sync (ms) | backward synced (ms) | exposed = "
        "difference (ms) | of it, final wait (ms) | one blocking all-reduce (ms) |"
    )
    print("|---|---|---|---|---|---|---|")
    for mb in ("1", "25", "1000"):
        r = run(2, "--model", "deep_mlp", "--bucket-mb", mb, *big_steps)
        exposed = r["backward_sync"] - r["backward_nosync"]
        print(
            f"| {mb} | {r['buckets']} | {1e3 * r['backward_nosync']:.1f} | "
            f"{1e3 * r['backward_sync']:.1f} | {1e3 * exposed:.1f} | "
            f"{1e3 * r['final_wait']:.1f} | {1e3 * r['allreduce_all']:.1f} |"
        )
    print("\n## all-reduce on 2 processes (MPI, shared memory)\n")
    print("| bytes | time (us) | algorithm bandwidth (GB/s) | bus bandwidth 2(N-1)/N x (GB/s) |")
    print("|---|---|---|---|")
    for nbytes, t in run(2, "--what", "sizes")["sizes"]:
        print(f"| {nbytes:,} | {1e6 * t:.1f} | {nbytes / t / 1e9:.2f} | {nbytes / t / 1e9:.2f} |")


if __name__ == "__main__":
    main()
