"""Real small models, one training step, minigenesis against PyTorch on the CPU, side by side.

Every model is written ONCE against the shared API (``lib`` is ``minigenesis`` or ``torch``), so
both sides run the same layers, the same optimizer and the same batch shapes. Both use one BLAS
thread. Rounds are interleaved (a few steps of one library, then of the other), and the ratio
ours / PyTorch is taken per round: the median and the spread (min-max over rounds) are reported,
so noise from other jobs on the machine hits both sides alike.

Rows:
  mlp-big    MLP 784-512-512-10, batch 128, AdamW
  mlp-small  MLP 784-128-128-10, batch 128, AdamW
  lenet      conv 1->8 5x5, maxpool, conv 8->16 5x5, maxpool, linear, batch 64, 28x28, SGD momentum
  cnn        conv 3->32, conv 32->64 (3x3 pad 1, each + maxpool), linear, batch 32, 32x32, AdamW
  cnn-wide   conv 3->64, conv 64->64 (3x3 pad 1, 32x32x64 maps), one maxpool, linear, batch 16, SGD
  gpt        char GPT: 4 layers, 4 heads, width 128, block 64, batch 16, vocab 65, AdamW
  gpt-256    the same GPT 256 wide (batch 16)
  gpt-512    the same GPT 512 wide (batch 16)
  gpt-bf16   the same step under autocast(bfloat16) on each side (also: ours bf16 / ours fp32)
  mlp-bf16   mlp-big under autocast(bfloat16) (also: ours bf16 / ours fp32)
  ckpt       save + load of a ~195 MiB state dict (time; peak RSS above the state dict, each library
             in a fresh process)

Each step is timed twice: CPU time of this process (``time.process_time``) and wall time. The
ratio is taken on CPU time, since on a loaded machine wall time counts the other jobs' slices too;
both are printed. The CPU model and the BLAS libraries' thread counts head the output. Page faults
per step (minor faults from getrusage, both sides) are reported for every step row.

    python bench/bench_models.py                  # all rows
    python bench/bench_models.py gpt lenet        # some rows
    python bench/bench_models.py --rounds 21 --steps 1   (default rounds: 15, 7 for the big rows)
    python bench/bench_models.py --profile gpt    # cProfile of our step, top 25 by own time
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import minigenesis as mg  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:  # the benchmark needs the oracle
    torch = None


# ----------------------------------------------------------------------------------------------
# Models, written once for both libraries
# ----------------------------------------------------------------------------------------------
def mlp(lib, sizes):
    nn = lib.nn
    layers = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 5), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(16 * 4 * 4, 10),
    )  # fmt: skip


def cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10),
    )  # fmt: skip


def cnn_wide(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 16 * 16, 10),
    )  # fmt: skip


def gpt(lib, vocab=65, width=128, heads=4, layers=4, block=64):
    nn, F = lib.nn, lib.nn.functional

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
            self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
            self.fc, self.out = nn.Linear(width, 4 * width), nn.Linear(4 * width, width)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(C, dim=2)
            q, k, v = (t.reshape(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(a.transpose(1, 2).reshape(B, T, C))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, width), nn.Embedding(block, width)
            self.blocks = nn.Sequential(*[Block() for _ in range(layers)])
            self.ln, self.head = nn.LayerNorm(width), nn.Linear(width, vocab)

        def forward(self, idx):
            T = idx.shape[1]
            x = self.tok(idx) + self.pos(lib.arange(T))
            return self.head(self.ln(self.blocks(x)))

    return GPT()


# ----------------------------------------------------------------------------------------------
# One training step per row
# ----------------------------------------------------------------------------------------------
def make_step(lib, row: str):
    """A closure running one training step of ``row`` in ``lib`` (fixed batch, as in a loop)."""
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    F = lib.nn.functional
    amp = row.endswith("-bf16")
    base = {"mlp-bf16": "mlp-big"}.get(row, row.removesuffix("-bf16"))
    if base in ("mlp-big", "mlp-small"):
        hidden = 512 if base == "mlp-big" else 128
        model = mlp(lib, [784, hidden, hidden, 10])
        x = lib.tensor(rng.standard_normal((128, 784), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, 128))
        opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    elif base == "lenet":
        model = lenet(lib)
        x = lib.tensor(rng.standard_normal((64, 1, 28, 28), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, 64))
        opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    elif base == "cnn":
        model = cnn(lib)
        x = lib.tensor(rng.standard_normal((32, 3, 32, 32), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, 32))
        opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    elif base == "cnn-wide":
        model = cnn_wide(lib)
        x = lib.tensor(rng.standard_normal((16, 3, 32, 32), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, 16))
        opt = lib.optim.SGD(model.parameters(), lr=0.01)
    elif base in ("gpt", "gpt-256", "gpt-512"):
        model = gpt(lib, width={"gpt": 128, "gpt-256": 256, "gpt-512": 512}[base])
        x = lib.tensor(rng.integers(0, 65, (16, 64)))
        y = lib.tensor(rng.integers(0, 65, (16, 64)))
        opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    else:
        raise SystemExit(f"unknown row {row!r}")
    bf16 = lib.bfloat16

    def step():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=bf16, enabled=amp):
            out = model(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss

    return step


def minflt() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def run_pair(steps: dict, rounds: int, per_round: int) -> dict:
    """Interleaved rounds: per library the best step time (CPU and wall) of each round, and
    faults per step.
    (One step per library per round by default: the two steps of a pair run seconds apart at
    most, so a burst of load from other jobs hits both, and the median over rounds drops the
    rest.)"""
    times = {k: [] for k in steps}
    walls = {k: [] for k in steps}
    faults = {k: [] for k in steps}
    for step in steps.values():  # warm up (caches, first allocations, optimizer state)
        for _ in range(3):
            step()
    for _ in range(rounds):
        for name, step in steps.items():
            gc.collect()
            best = best_wall = float("inf")
            f0 = minflt()
            for _ in range(per_round):
                t0, w0 = time.process_time(), time.perf_counter()
                step()
                best = min(best, time.process_time() - t0)
                best_wall = min(best_wall, time.perf_counter() - w0)
            faults[name].append((minflt() - f0) / per_round)
            times[name].append(best)
            walls[name].append(best_wall)
    return {"times": times, "walls": walls, "faults": faults}


def spread(values: list) -> str:
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})"


def bench_row(row: str, rounds: int, per_round: int) -> None:
    steps = {"mg": make_step(mg, row), "torch": make_step(torch, row)}
    if row.endswith("-bf16"):
        steps["mg fp32"] = make_step(mg, {"mlp-bf16": "mlp-big"}.get(row, row[:-5]))
    r = run_pair(steps, rounds, per_round)
    t, w, f = r["times"], r["walls"], r["faults"]
    ratios = [a / b for a, b in zip(t["mg"], t["torch"])]
    wall_ratio = statistics.median(a / b for a, b in zip(w["mg"], w["torch"]))
    line = (
        f"{row:10s} CPU mg {statistics.median(t['mg']) * 1e3:7.2f} ms  torch "
        f"{statistics.median(t['torch']) * 1e3:7.2f} ms  ratio {spread(ratios)}"
        f"  (wall {statistics.median(w['mg']) * 1e3:.2f} /"
        f" {statistics.median(w['torch']) * 1e3:.2f} ms, {wall_ratio:.2f}x)"
        f"  faults/step {statistics.median(f['mg']):.0f} vs {statistics.median(f['torch']):.0f}"
    )
    if "mg fp32" in t:
        own = [a / b for a, b in zip(t["mg"], t["mg fp32"])]
        line += f"  ours bf16/fp32 {spread(own)}"
    print(line, flush=True)


# ----------------------------------------------------------------------------------------------
# Checkpoints: each library in a fresh process (peak RSS is per process)
# ----------------------------------------------------------------------------------------------
SHAPES = [(1024, 1024), (4096, 1024), (1024, 4096), (1024,), (3072, 1024)]


def state_dict(lib, total_mib: float = 195.0) -> dict:
    """Transformer-shaped float32 tensors summing to ~total_mib, built one at a time (so the
    process never holds a second copy: peak RSS then measures save and load alone)."""
    rng = np.random.default_rng(0)
    sd, size, i = {}, 0, 0
    while size < total_mib * 2**20:
        a = rng.standard_normal(SHAPES[i % len(SHAPES)], dtype=np.float32)
        sd[f"layer{i // len(SHAPES)}.p{i % len(SHAPES)}"] = lib.from_numpy(a)
        size += a.nbytes
        i += 1
    return sd


def _status(field: str) -> int:
    """A /proc/self/status memory figure in bytes (VmRSS now, VmHWM the peak so far)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def ckpt_child(lib_name: str, what: str, path: str, repeat: int) -> None:
    """One fresh process: save a state dict to ``path`` (or load it), ``repeat`` times; prints the
    times and the peak RSS above what the process held before (above the state dict on load)."""
    lib = mg if lib_name == "mg" else torch
    if what == "save":
        sd = state_dict(lib)
        nbytes = sum(v.numel() * v.element_size() for v in sd.values())
    gc.collect()
    base = _status("VmRSS")
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        if what == "save":
            lib.save(sd, path)
        else:
            loaded = lib.load(path)
            nbytes = os.path.getsize(path)
            del loaded
            gc.collect()
        times.append(time.perf_counter() - t0)
    extra = _status("VmHWM") - base - (nbytes if what == "load" else 0)
    print(json.dumps({"times": times, "peak": extra, "mib": nbytes / 2**20}))


def bench_ckpt(rounds: int) -> None:
    """Fresh processes, interleaved mg, torch, mg, torch ...; per round the ratio of the best
    save + best load, and each side's peak RSS above the state dict."""
    res = {"mg": [], "torch": []}
    with tempfile.TemporaryDirectory() as d:
        for _ in range(min(max(rounds // 2, 2), 5)):
            for name in res:
                path = os.path.join(d, f"{name}.pt")
                r = {}
                for what in ("save", "load"):
                    out = subprocess.run(
                        [sys.executable, __file__, "--ckpt-child", name, what, path],
                        capture_output=True,
                        text=True,
                    )
                    if out.returncode:
                        raise SystemExit(out.stderr)
                    r[what] = json.loads(out.stdout.splitlines()[-1])
                res[name].append(r)
    total = {
        k: [min(r["save"]["times"]) + min(r["load"]["times"]) for r in v] for k, v in res.items()
    }
    ratios = [a / b for a, b in zip(total["mg"], total["torch"])]
    peak = {
        k: tuple(max(r[w]["peak"] for r in v) / 2**20 for w in ("save", "load"))
        for k, v in res.items()
    }
    print(
        f"ckpt       {res['mg'][0]['save']['mib']:.0f} MiB  save+load mg "
        f"{statistics.median(total['mg']) * 1e3:.0f} ms  torch "
        f"{statistics.median(total['torch']) * 1e3:.0f} ms  ratio {spread(ratios)}  peak RSS "
        f"above the state dict (save / load): mg +{peak['mg'][0]:.0f} / +{peak['mg'][1]:.0f} "
        f"MiB, torch +{peak['torch'][0]:.0f} / +{peak['torch'][1]:.0f} MiB",
        flush=True,
    )


ROWS = ["mlp-big", "mlp-small", "lenet", "cnn", "cnn-wide", "gpt", "gpt-256", "gpt-512"]
ROWS += ["gpt-bf16", "mlp-bf16", "ckpt"]
BIG_ROWS = {"cnn-wide": 7, "gpt-256": 7, "gpt-512": 5}  # default rounds (a step takes 0.1-1 s)


def cpu_model() -> str:
    """The CPU's model name and its widest vector units (what the BLAS kernels use)."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown CPU"
    lines = info.splitlines()
    name = next((ln.split(":", 1)[1].strip() for ln in lines if "model name" in ln), "?")
    flags = set(next((ln for ln in lines if ln.startswith("flags")), "").split())
    units = [f for f in ("avx2", "avx512f", "avx512_bf16", "amx_tile") if f in flags]
    return f"{name} ({os.cpu_count()} CPUs; {', '.join(units) or 'no AVX2'})"


def profile_steps(make_step, rows, top: int) -> None:
    """cProfile of 10 minigenesis steps of each row (after 3 to warm up): the ``top`` functions
    by own time."""
    import cProfile
    import pstats

    for row in rows:
        step = make_step(mg, row)
        for _ in range(3):
            step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(10):
            step()
        prof.disable()
        print(f"== {row}: 10 steps")
        pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main() -> None:
    keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("rows", nargs="*", default=ROWS)
    p.add_argument("--rounds", type=int, default=None, help="rounds per row (default 15 / 7 / 5)")
    p.add_argument("--steps", type=int, default=1, help="steps per library per round")
    p.add_argument("--profile", action="store_true")
    p.add_argument("--ckpt-child", nargs=3, help=argparse.SUPPRESS)
    p.add_argument("--ckpt-repeat", type=int, default=3, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.ckpt_child:
        ckpt_child(*a.ckpt_child, a.ckpt_repeat)
        return
    if torch is None:
        raise SystemExit("bench_models.py measures against PyTorch: install torch")
    if a.profile:
        profile_steps(make_step, a.rows, top=25)
        return
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(1)  # every BLAS and OpenMP pool in the process, whatever loaded it
    pools = ", ".join(f"{p['internal_api']} {p['num_threads']}" for p in threadpool_info())
    print(f"minigenesis vs torch {torch.__version__} on {cpu_model()}; threads: {pools}")
    print(f"load average {os.getloadavg()[0]:.1f}; {a.steps} step(s) per library per round")
    for row in a.rows:
        rounds = a.rounds or BIG_ROWS.get(row, 15)
        if row == "ckpt":
            bench_ckpt(rounds)
        else:
            bench_row(row, rounds, a.steps)


if __name__ == "__main__":
    main()
