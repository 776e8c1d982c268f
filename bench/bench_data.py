"""DataLoader and main-job figures, measured side by side in one run.

1. One epoch of DataLoader(TensorDataset) over 2,400 spiral points, batch 32: the batch fast path
   (one fancy index per tensor) against per-sample __getitem__ + default_collate.
2. The main job's step (MLP 2-128-128-3, batch 32, autocast bf16 + GradScaler, AdamW) with the
   BLAS pool at its default size against one thread (``utils.threads.blas_threads``).

    python bench/bench_data.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import minigenesis as mg  # noqa: E402
from minigenesis import nn, optim  # noqa: E402
from minigenesis.amp import GradScaler, autocast  # noqa: E402
from minigenesis.datasets import make_spirals  # noqa: E402
from minigenesis.utils.data import DataLoader, TensorDataset, default_collate  # noqa: E402
from minigenesis.utils.threads import blas_threads  # noqa: E402


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_loader() -> None:
    X, y = make_spirals(3000, seed=0)
    ds = TensorDataset(X[:2400], y[:2400])
    fast = DataLoader(ds, batch_size=32, shuffle=True)
    slow = DataLoader(ds, batch_size=32, shuffle=True, collate_fn=default_collate)
    t_fast = _median_time(lambda: [b for b in fast], 7)
    t_slow = _median_time(lambda: [b for b in slow], 7)
    print("DataLoader epoch, 2400 samples, batch 32 (median of 7)")
    print(f"  batch fast path            {t_fast * 1e3:8.2f} ms")
    print(f"  per-sample + collate       {t_slow * 1e3:8.2f} ms   ratio {t_slow / t_fast:.1f}x")


def bench_step() -> None:
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(),
                          nn.Linear(128, 3))  # fmt: skip
    opt = optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler()
    crit = nn.CrossEntropyLoss()
    x, y = mg.randn(32, 2), mg.randint(0, 3, (32,))

    def step() -> None:
        with autocast(device_type="cpu", dtype=mg.bfloat16):
            loss = crit(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()

    for _ in range(20):
        step()
    t_default = _median_time(lambda: [step() for _ in range(20)], 9) / 20
    with blas_threads(1):
        t_one = _median_time(lambda: [step() for _ in range(20)], 9) / 20
    print("Main-job step, MLP 2-128-128-3, batch 32, bf16 autocast + GradScaler + AdamW")
    print(f"  BLAS default threads       {t_default * 1e3:8.2f} ms")
    print(f"  BLAS 1 thread              {t_one * 1e3:8.2f} ms   ratio {t_default / t_one:.1f}x")


if __name__ == "__main__":
    bench_loader()
    bench_step()
