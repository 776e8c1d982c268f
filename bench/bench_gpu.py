"""Training steps on a GPU: minigenesis (CuPy) against PyTorch (CUDA), side by side.

The same models as bench_models.py (written once for both libraries), built and run with the
default device set to "cuda" on each side for the whole run, so every tensor, the positions the
GPT makes in its forward included, lives on the GPU. Each timed step ends with a
synchronisation, so the time is the GPU's work plus whatever the host could not hide. Rounds
are interleaved; the ratio ours / PyTorch is per round.

    python bench/bench_gpu.py                   # mlp-big mlp-wide cnn gpt gpt-bf16
    python bench/bench_gpu.py gpt --rounds 9

Small models on a GPU are launch-bound: each op is a kernel launch (~5-10 us of host work on
either side), so the ratio there measures the Python engine per op, not the GPU. mlp-wide
(4096-wide layers, batch 4096) is the row where the GPU's arithmetic dominates.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_models import cnn, gpt, mlp, spread  # noqa: E402

import minigenesis as mg  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

ROWS = ["mlp-big", "mlp-wide", "cnn", "gpt", "gpt-bf16"]


def build(lib, row: str):
    """``row``'s model, its input and targets (on the default device), and whether it runs under
    bfloat16 autocast."""
    lib.manual_seed(0)
    rng = np.random.default_rng(0)
    amp = row.endswith("-bf16")
    base = row.removesuffix("-bf16")
    if base in ("mlp-big", "mlp-wide"):
        width, batch = (512, 128) if base == "mlp-big" else (4096, 4096)
        model = mlp(lib, [784, width, width, 10])
        x = lib.tensor(rng.standard_normal((batch, 784), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, batch))
    elif base == "cnn":
        model = cnn(lib)
        x = lib.tensor(rng.standard_normal((32, 3, 32, 32), dtype=np.float32))
        y = lib.tensor(rng.integers(0, 10, 32))
    elif base == "gpt":
        model = gpt(lib)
        x = lib.tensor(rng.integers(0, 65, (16, 64)))
        y = lib.tensor(rng.integers(0, 65, (16, 64)))
    else:
        raise SystemExit(f"unknown row {row!r}")
    return model, x, y, amp


def make_step(lib, row: str):
    """One training step of ``row`` with every tensor on the GPU (the default device)."""
    model, x, y, amp = build(lib, row)
    opt = lib.optim.AdamW(model.parameters(), lr=1e-3)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        with lib.autocast("cuda", dtype=lib.bfloat16, enabled=amp):
            out = model(x)
            loss = F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        lib.cuda.synchronize()
        return loss

    return step


def bench_row(row: str, rounds: int) -> None:
    steps = {"mg": make_step(mg, row)}
    if torch is not None and torch.cuda.is_available():
        steps["torch"] = make_step(torch, row)
    for step in steps.values():  # warm up: kernels compiled and cached, pools filled
        for _ in range(3):
            step()
    times = {k: [] for k in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - t0)
    line = f"{row:<9} mg {statistics.median(times['mg']) * 1e3:8.2f} ms"
    if "torch" in times:
        ratios = [a / b for a, b in zip(times["mg"], times["torch"])]
        line += f"  torch {statistics.median(times['torch']) * 1e3:8.2f} ms  ratio {spread(ratios)}"
    print(line, flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("rows", nargs="*", default=ROWS)
    p.add_argument("--rounds", type=int, default=15)
    args = p.parse_args()
    if not mg.cuda.is_available():
        raise SystemExit("bench_gpu.py needs a GPU (CuPy with a CUDA device)")
    print(f"device: {mg.cuda.get_device_name(0)}; torch {getattr(torch, '__version__', 'absent')}")
    mg.set_default_device("cuda")
    if torch is not None and torch.cuda.is_available():
        torch.set_default_device("cuda")
    for row in args.rows:
        bench_row(row, args.rounds)


if __name__ == "__main__":
    main()
