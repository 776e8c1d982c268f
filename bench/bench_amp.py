"""Mixed precision on the CPU, measured side by side in one run (ratios, not absolute times).

1. Step time: the reference MLP (100-512-512-10, batch 256, Adam, cross-entropy), one training step
   under ``autocast(bfloat16)`` + ``GradScaler`` against the plain float32 step. Target <= 1.3x.
2. Memory: peak traced memory (tracemalloc; NumPy reports its buffers to it) of one forward +
   backward of an activation-heavy model (a deep, wide ReLU MLP on a large batch), under autocast
   against float32. Target <= 0.65x: the activations backward keeps are bfloat16.

3. The two autocast rows of ``bench_models.py`` (MLP 784-512-512-10 and the char GPT): our
   bf16 step against our float32 step only (no PyTorch, so quick), per round in thread CPU
   time, which a busy shared machine disturbs far less than wall time. Target <= 1.1x.

    python bench/bench_amp.py [--profile]
    python bench/bench_amp.py --models [--rounds 15]   # only 3.
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core machine multi-threaded BLAS stalls at random and swamps the
# ratio with noise. Both sides use the same BLAS, so the comparison stays fair.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402
import minigenesis.nn as nn  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402


# ---------------------------------------------------------------------------------------------
# 1. step time
# ---------------------------------------------------------------------------------------------
def make_mlp_step(amp: bool):
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(100, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    optimizer = mg.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = mg.amp.GradScaler(enabled=amp)
    x = mg.randn(256, 100)
    y = mg.randint(0, 10, (256,))

    def step() -> float:
        optimizer.zero_grad()
        with mg.autocast(dtype=mg.bfloat16, enabled=amp):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        return loss.item()

    return step


def bench_step(repeats: int = 40) -> dict:
    steps = {"float32": make_mlp_step(False), "autocast bf16 + GradScaler": make_mlp_step(True)}
    times: dict = {k: [] for k in steps}
    for step in steps.values():  # warm up
        for _ in range(3):
            step()
    for _ in range(repeats):  # interleaved, so machine noise hits both alike
        for name, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


# ---------------------------------------------------------------------------------------------
# 2. activation memory
# ---------------------------------------------------------------------------------------------
def activation_model():
    """12 layers of Linear(256, 256) + ReLU on a batch of 2048: activations dwarf the weights."""
    mg.manual_seed(0)
    layers: list = []
    for _ in range(12):
        layers += [nn.Linear(256, 256), nn.ReLU()]
    return (
        nn.Sequential(*layers, nn.Linear(256, 10)),
        mg.randn(2048, 256),
        mg.randint(0, 10, (2048,)),
    )


def peak_forward_backward(amp: bool) -> tuple[float, float]:
    """(MiB held for backward after the forward, peak MiB of forward + backward)."""
    model, x, y = activation_model()
    criterion = nn.CrossEntropyLoss()
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    with mg.autocast(dtype=mg.bfloat16, enabled=amp):
        loss = criterion(model(x), y)
    saved = tracemalloc.get_traced_memory()[0] - base
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return saved / 2**20, peak / 2**20


def bench_memory() -> dict:
    return {"float32": peak_forward_backward(False), "autocast bf16": peak_forward_backward(True)}


# ---------------------------------------------------------------------------------------------
# 3. GPU (only where CuPy sees a CUDA device): bf16 against float32 on a matmul-heavy model
# ---------------------------------------------------------------------------------------------
def bench_gpu(repeats: int = 20) -> dict:
    def make(amp: bool):
        mg.manual_seed(0)
        layers: list = []
        for _ in range(4):
            layers += [nn.Linear(4096, 4096), nn.ReLU()]
        model = nn.Sequential(*layers, nn.Linear(4096, 10)).cuda()
        optimizer = mg.optim.Adam(model.parameters(), lr=1e-3)
        criterion = nn.CrossEntropyLoss()
        x = mg.randn(4096, 4096, device="cuda")
        y = mg.randint(0, 10, (4096,), device="cuda")

        def step() -> None:
            optimizer.zero_grad()
            with mg.autocast("cuda", dtype=mg.bfloat16, enabled=amp):
                loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()

        return step

    steps = {"float32": make(False), "autocast bf16": make(True)}
    times: dict = {k: [] for k in steps}
    for step in steps.values():
        step()
    mg.cuda.synchronize()
    for _ in range(repeats):
        for name, step in steps.items():
            t0 = time.perf_counter()
            step()
            mg.cuda.synchronize()
            times[name].append(time.perf_counter() - t0)
    return {k: statistics.median(v) * 1e3 for k, v in times.items()}


# ---------------------------------------------------------------------------------------------
# 3. bench_models' autocast rows: ours bf16 / ours fp32, in thread CPU time
# ---------------------------------------------------------------------------------------------
def bench_model_rows(rounds: int) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_models import make_step

    for row, base in (("mlp-bf16", "mlp-big"), ("gpt-bf16", "gpt")):
        steps = {"bf16": make_step(mg, row), "fp32": make_step(mg, base)}
        for step in steps.values():  # warm up
            for _ in range(3):
                step()
        times: dict = {k: [] for k in steps}
        for _ in range(rounds):  # interleaved; the best of 2 steps per side and round
            for name, step in steps.items():
                gc.collect()
                best = float("inf")
                for _ in range(2):
                    t0 = time.thread_time()
                    step()
                    best = min(best, time.thread_time() - t0)
                times[name].append(best)
        ratios = [a / b for a, b in zip(times["bf16"], times["fp32"])]
        print(
            f"{row:9s} bf16 {statistics.median(times['bf16']) * 1e3:7.2f} ms  fp32 "
            f"{statistics.median(times['fp32']) * 1e3:7.2f} ms (CPU time)  ratio "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}) "
            f"(target <= 1.1x)",
            flush=True,
        )


def main() -> None:
    keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)
    if "--models" in sys.argv:
        i = sys.argv.index("--rounds") if "--rounds" in sys.argv else -1
        bench_model_rows(int(sys.argv[i + 1]) if i > 0 else 15)
        return
    if "--profile" in sys.argv:
        import cProfile
        import pstats

        step = make_mlp_step(True)
        for _ in range(3):
            step()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(30):
            step()
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
        return

    t = bench_step()
    f32, amp = t["float32"], t["autocast bf16 + GradScaler"]
    print("MLP 100-512-512-10, batch 256, Adam: median step time")
    print(f"  float32                      {f32:7.2f} ms")
    print(f"  autocast(bf16) + GradScaler  {amp:7.2f} ms   ratio {amp / f32:.2f}x (target <= 1.3x)")
    m = bench_memory()
    (s32, p32), (s16, p16) = m["float32"], m["autocast bf16"]
    print("12 x Linear(256,256)+ReLU, batch 2048: traced memory (MiB)")
    print("                  saved after forward   peak of forward + backward")
    print(f"  float32         {s32:10.1f}            {p32:10.1f}")
    print(f"  autocast(bf16)  {s16:10.1f}            {p16:10.1f}")
    print(f"  ratio           {s16 / s32:10.2f}x           {p16 / p32:10.2f}x (target <= 0.65x)")
    if mg.cuda.is_available():
        g = bench_gpu()
        print("GPU: 4 x Linear(4096,4096)+ReLU, batch 4096, Adam: median step time")
        print(f"  float32         {g['float32']:7.2f} ms")
        print(
            f"  autocast(bf16)  {g['autocast bf16']:7.2f} ms   speedup "
            f"{g['float32'] / g['autocast bf16']:.2f}x (target >= 2x)"
        )


if __name__ == "__main__":
    main()
