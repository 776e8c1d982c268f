"""Optimizer step time: minigenesis against PyTorch (CPU), measured side by side in one run.

    python bench/bench_optim.py

Two shapes of parameter list: one big tensor (the cost is the array arithmetic) and many small
ones (the cost is per-parameter Python overhead). Gradients are fixed. The two libraries are timed
in alternation and each keeps its fastest of several repeats of N steps (the minimum is the least
noisy estimate on a shared machine). PyTorch runs its single-tensor path (foreach=False), which
is what it uses on the CPU by default; both use one thread.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # the script still reports our own timings
    torch = None

CONFIGS = [
    ("SGD momentum", "SGD", {"lr": 0.01, "momentum": 0.9}),
    ("Adam", "Adam", {"lr": 1e-3}),
    ("AdamW", "AdamW", {"lr": 1e-3}),
    ("RMSprop centered", "RMSprop", {"lr": 1e-3, "centered": True}),
]
SHAPES = [("1 x 4M floats", [(4_000_000,)]), ("200 x 1k floats", [(1000,)] * 200)]


def timed(step, n_steps=10):
    """Seconds per step of one batch of ``n_steps`` (after one warm-up step on first use)."""
    t0 = time.perf_counter()
    for _ in range(n_steps):
        step()
    return (time.perf_counter() - t0) / n_steps


def best_of(steps, repeats=7):
    """Time each step function ``repeats`` times, in alternation; the minimum for each."""
    for step in steps:
        step()  # warm-up: lazy state
    times = [[] for _ in steps]
    for _ in range(repeats):
        for i, step in enumerate(steps):
            times[i].append(timed(step))
    return [min(t) for t in times]


def main():
    rng = np.random.default_rng(0)
    print(f"{'optimizer':18s} {'params':16s} {'minigenesis':>12s} {'torch':>10s} {'ratio':>7s}")
    for label, name, options in CONFIGS:
        for shape_label, shapes in SHAPES:
            arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            grads = [rng.standard_normal(s).astype(np.float32) for s in shapes]
            params = [mg.tensor(a, requires_grad=True) for a in arrays]
            for p, g in zip(params, grads):
                p.grad = mg.tensor(g)
            steps = [getattr(mg.optim, name)(params, **options).step]
            if torch is not None:
                tparams = [torch.tensor(a, requires_grad=True) for a in arrays]
                for p, g in zip(tparams, grads):
                    p.grad = torch.tensor(g)
                steps.append(getattr(torch.optim, name)(tparams, foreach=False, **options).step)
            times = best_of(steps)
            line = f"{label:18s} {shape_label:16s} {times[0] * 1e3:10.2f}ms"
            if torch is not None:
                line += f" {times[1] * 1e3:8.2f}ms {times[0] / times[1]:6.2f}x"
            print(line)


if __name__ == "__main__":
    if torch is not None:
        torch.set_num_threads(1)
    main()
