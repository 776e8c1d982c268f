# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
#   language_info:
#     name: python
#     pygments_lexer: ipython3
# ---

# %% [markdown]
# # Chapter 16: Data parallelism: N processes, one model, one gradient
#
# One process trains on a batch of B samples. N processes can train the same model on the same
# batch, each on B/N of it, if after backward they **average their gradients**: with a loss that
# is a mean over the batch,
#
#     (1/N) sum_r  grad mean_{i in shard r} loss_i  =  grad mean_{i in batch} loss_i,
#
# so every process takes exactly the single-process step and the N copies of the model stay
# identical. Averaging N gradients that live in N processes is a *collective*: an **all-reduce**.
#
# This chapter:
#
# - cuts a dataset into shards (what `DistributedSampler` does);
# - writes the **ring all-reduce** by hand on send/receive, and runs it on threads and on real
#   MPI processes;
# - works out what it costs, and measures why gradients travel in **buckets**;
# - averages gradients across ranks by hand, then lets `DistributedDataParallel` do it while
#   backward still runs, and trains the main job in two processes.

# %%
import sys

sys.path.insert(0, "..")
from _course import load, one_blas_thread

one_blas_thread()  # small matrices: one BLAS thread (why: _course.py)

ex = load()  # your exercises.py (the reference solutions when MINIGENESIS_SOLUTIONS=1)

import copy
import os
import subprocess
from pathlib import Path

import numpy as np

import minigenesis as mg
import minigenesis.distributed as dist
from minigenesis import nn
from minigenesis.utils.data.distributed import DistributedSampler

ROOT = Path.cwd().resolve().parents[1]  # the repository (the notebook runs in its folder)
HAVE_MPI = dist.is_available()
print("MPI available:", HAVE_MPI, "" if HAVE_MPI else '(pip install -e ".[distributed]")')

# %% [markdown]
# ## Shards
#
# Each process must read a different part of the data, and every process the same number of
# batches (a process with one batch more would wait forever for the others in its all-reduce).
# The simplest cut: N consecutive chunks as equal as can be. **Exercise 16.1** writes it.

# %%
print(ex.chunks(10, 3))
print(ex.chunks(3, 5))

# %% [markdown]
# `DistributedSampler` cuts a (shuffled) index list differently: rank r takes positions r, r + N,
# r + 2N, ..., after padding the list with its own start up to a multiple of N. Batch i of each
# rank then together make batch i of one process, which is how the main job's `--nproc 2` run
# reproduces the single-process run.

# %%
for r in range(3):
    print(f"rank {r}:", list(DistributedSampler(range(10), num_replicas=3, rank=r, shuffle=False)))

# %% [markdown]
# ## The ring all-reduce
#
# Put the N processes on a ring: each sends only to its right neighbour and receives only from its
# left one. Cut the array into N chunks.
#
# 1. **Reduce-scatter** (N - 1 steps). At each step every rank sends one chunk to the right and
#    adds the chunk arriving from the left into its own copy. A partial sum travels around the ring
#    and grows by one rank's contribution per step; after N - 1 steps rank r holds the complete sum
#    of chunk r + 1.
# 2. **All-gather** (N - 1 steps). The complete chunks travel around the ring the same way, and are
#    copied instead of added.
#
# Every rank sends 2(N - 1) chunks of S/N bytes: **2(N - 1)/N x S bytes, almost independent of N**.
# Every link works at every step, so no link is the bottleneck. **Exercise 16.2** writes it with
# `comm.sendrecv(chunk, dest=right, source=left)`; here the ranks are threads (`ex.ThreadComm`,
# with mpi4py's names).

# %%
world, n = 4, 10
xs = [np.arange(n, dtype=float) * (r + 1) for r in range(world)]


def rank_body(comm):
    return ex.ring_all_reduce(comm, xs[comm.Get_rank()]), comm.sent


for r, (total, sent) in enumerate(ex.run_ranks(rank_body, world)):
    print(f"rank {r}: {total[:5]} ...  sent {sent} of {n} elements")
share = 2 * (world - 1) / world * n
print("expected:", np.sum(xs, axis=0)[:5], f"...  2(N-1)/N x n = {share:g}")

# %% [markdown]
# The same function runs on real MPI processes: `mpi4py`'s `MPI.COMM_WORLD` has `Get_rank`,
# `Get_size` and `sendrecv`. `mpi_demo.py` (next to this notebook) runs your ring on two
# processes started by `python -m minigenesis.distributed.run --nproc-per-node 2` (torchrun's
# launcher, on top of mpiexec), then measures the all-reduce of minigenesis.distributed.

# %%
measured = None
if HAVE_MPI:
    answers = ex.ring_all_reduce.__code__.co_filename  # the file your answers come from
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "minigenesis.distributed.run", "--nproc-per-node", "2",
         "mpi_demo.py", answers],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    line = [x for x in run.stdout.splitlines() if x.startswith("RESULT")]
    measured = eval(line[0][7:]) if line else None  # a dict printed by rank 0
    print("ring on 2 MPI processes:", measured and measured["ring"], run.stderr[-300:])
else:
    print("mpi4py is not installed: the MPI measurements below are skipped")

# %% [markdown]
# ## What it costs, and why gradients travel in buckets
#
# Each of the 2(N - 1) steps pays a fixed **latency** (a message costs something however small)
# plus its bytes over the link's **bandwidth**. **Exercise 16.3** writes
#
#     T(N, S) = 2(N - 1) x (latency + S / N / bandwidth).
#
# The bytes term tends to 2 S / bandwidth as N grows: adding machines barely slows the
# all-reduce. For 34 MB of float32 gradients:

# %%
links = {"10 Gb Ethernet": (1.25e9, 50e-6), "100 Gb InfiniBand": (12.5e9, 2e-6)}
for name, (bw, lat) in links.items():
    times = [ex.ring_time(34e6, n, bw, lat) * 1e3 for n in (2, 8, 64)]
    print(f"{name:18s}", "   ".join(f"N={n}: {t:5.1f} ms" for n, t in zip((2, 8, 64), times)))

# %% [markdown]
# The latency term is why gradients are not all-reduced one parameter at a time: a model with
# hundreds of parameter tensors would pay hundreds of latencies. Measured on two processes of
# this machine (MPI over shared memory): 64 all-reduces of 1 KB against one of 64 KB:

# %%
if measured:
    for key in ("allreduce_1024", "allreduce_65536", "allreduce_1048576", "allreduce_8388608"):
        nbytes = int(key.split("_")[1])
        t = measured[key]
        print(f"all-reduce of {nbytes:>9,} bytes: {t * 1e6:8.0f} us ({nbytes / t / 1e9:.2f} GB/s)")
    print(f"64 messages of 1 KB: {measured['64_messages'] * 1e3:.2f} ms;  "
          f"one bucket of 64 KB: {measured['one_bucket'] * 1e3:.2f} ms")  # fmt: skip

# %% [markdown]
# So `DistributedDataParallel` packs the gradients into **buckets** of about 25 MB. It fills them
# in *reverse* parameter order, because backward produces the last layer's gradients first, and
# starts a bucket's all-reduce as soon as its last gradient is in, **while backward is still
# computing the earlier layers** (the overlap). **Exercise 16.4** packs the buckets.

# %%
model = nn.Sequential(
    nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3)
)  # fmt: skip  (the main job's MLP)
sizes = [p.numel() * 4 for p in model.parameters()]
print("bytes per parameter:", sizes)
print("buckets of 32 KB:   ", ex.assign_buckets(sizes, 32 * 1024))
print("one 25 MB bucket:   ", ex.assign_buckets(sizes, 25 * 2**20))

# %% [markdown]
# Overlap needs something to move the bytes while the cores compute backward: a network card
# (DMA, RDMA) across machines, NCCL's kernels and copy engines on GPUs. On this 2-core machine the
# all-reduce is CPU work on the same cores, and it shows: backward on a 4 MB model (1 MB buckets)
# with and without gradient synchronisation:

# %%
if measured:
    print(f"{measured['grad_mb']:.1f} MB of gradients in {measured['buckets']} buckets: backward "
          f"{measured['backward_no_sync'] * 1e3:.1f} ms alone, "
          f"{measured['backward_synced'] * 1e3:.1f} ms with the all-reduces")  # fmt: skip

# %% [markdown]
# (BENCHMARKS.md has the full measurement, `bench/bench_distributed.py`, and what the cost model
# predicts across machines: with 8 machines on 10 Gb Ethernet, a 95 ms step keeps 66% efficiency
# without overlap and about 94% with it.)
#
# ## Averaging gradients, by hand and with DistributedDataParallel
#
# **Exercise 16.5** is data parallelism in its plainest form: after each rank's backward on its
# own shard, all-reduce every gradient and divide by N. Two thread-ranks on half a batch each get
# exactly the gradient of one process on the whole batch:

# %%
mg.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1))
x, y = mg.randn(8, 3), mg.randn(8, 1)
nn.functional.mse_loss(net(x), y).backward()
whole = [p.grad.numpy().copy() for p in net.parameters()]
copies = [copy.deepcopy(net) for _ in range(2)]
for c in copies:
    c.zero_grad()


def data_parallel_step(comm):
    r = comm.Get_rank()
    part = slice(4 * r, 4 * r + 4)
    nn.functional.mse_loss(copies[r](x[part]), y[part]).backward()
    ex.average_gradients(copies[r], comm)


ex.run_ranks(data_parallel_step, 2)
print(
    "max |averaged - whole batch|:",
    max(float(np.abs(p.grad.numpy() - w).max()) for p, w in zip(copies[0].parameters(), whole)),
)

# %% [markdown]
# `nn.parallel.DistributedDataParallel` does the same with three improvements: buckets, the
# all-reduces started from gradient hooks during backward
# (`Tensor.register_post_accumulate_grad_hook`), and rank 0's weights broadcast at the start so
# all copies begin equal. In a script:
#
# ```python
# import minigenesis.distributed as dist
# from minigenesis.nn.parallel import DistributedDataParallel as DDP
#
# dist.init_process_group("mpi")             # "nccl" on GPUs
# model = DDP(build_model())                  # broadcasts rank 0's weights
# sampler = DistributedSampler(dataset)       # this rank's share
# for epoch in range(epochs):
#     sampler.set_epoch(epoch)                 # a new shuffle each epoch, the same on every rank
#     for xb, yb in DataLoader(dataset, batch_size=B // dist.get_world_size(), sampler=sampler):
#         loss = loss_fn(model(xb), yb)
#         loss.backward()                      # gradients averaged when this returns
#         opt.step(); opt.zero_grad()
# ```
#
# started with `python -m minigenesis.distributed.run --nproc-per-node 2 train.py`. The main job
# does exactly this (`app/trainer.py`):
#
# ```bash
# python -m minigenesis train --nproc 2 --out runs/two
# ```
#
# runs the same training in two processes, each on half of every batch. Without autocast it
# reproduces the one-process run to float32 rounding (`tests/app/test_train_distributed.py`
# checks it); with autocast each process rounds its half batch to bfloat16 on its own, and the
# numbers drift apart slightly. Rank 0 writes the checkpoints; any number of processes can
# resume them.
#
# **Where next.** Data parallelism keeps a whole model on every device. When the model itself is
# too big, its parameters, gradients and optimizer state are sharded across the ranks too (ZeRO,
# FSDP): `reduce_scatter` and `all_gather`, both in `minigenesis.distributed`, are its building
# blocks.


# %% [markdown]
# ## Self-check
#
# Answer these without running anything: the point is to find out what you would predict, and why.
# Then write your letters in `quiz()` of `exercises.py` (**Exercise 16.6**), for example `{"q1":
# "b", "q2": "d", ...}`, and check them with `python -m pytest lessons/16_distributed -k
# self_check`: each wrong answer gets a hint that points back into the lesson.
#
# **q1.** In a ring all-reduce of a gradient of S bytes over N ranks, how much does each rank send?
#
# - (a) $S / N$
# - (b) $2 (N - 1)/N \cdot S$: almost 2S, whatever N is
# - (c) $S \log_2 N$
# - (d) $(N - 1) \cdot S$: one copy to every other rank
#
# **q2.** DistributedDataParallel AVERAGES the gradients over the N processes instead of summing
# them. Why?
#
# - (a) each process computes the mean loss of its 1/N of the batch; the average of N such gradients
#   is the gradient of the whole batch's mean loss, the step of one process
# - (b) so that the learning rate is divided by N
# - (c) the ring all-reduce can only average
# - (d) summing could overflow in float32
#
# **q3.** Why does DDP send gradients in buckets during the backward pass rather than all at once
# after it?
#
# - (a) a single message would not fit in GPU memory
# - (b) buckets make the sum exact
# - (c) the communication of the last layers' gradients overlaps with the backward of the earlier
#   layers, and many small tensors travel as a few large messages
# - (d) the gradients are not ready until the optimizer step
