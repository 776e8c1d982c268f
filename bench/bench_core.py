"""Core speed, measured side by side in one run (ratios, not absolute times).

1. Per-op overhead: a chain of 200 small elementwise ops on a 16-element tensor, forward+backward,
   in microseconds per op, for minigenesis and (when installed) PyTorch on the CPU.
2. A training step of the reference MLP (100-512-512-10, batch 256, Adam), minigenesis against the
   same step written by hand in NumPy (forward, backward and Adam update).

    python bench/bench_core.py
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core machine, multi-threaded BLAS stalls at random and swamps the
# ratio with noise. Both sides use the same BLAS, so the comparison stays fair.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402
from minigenesis.kernels.memory import keep_freed_memory  # noqa: E402

N_OPS = 200


def chain(x, lib_ops):
    """200 ops cycling through mul, add, tanh, sub, sigmoid (typical small-op mix)."""
    y = x
    for _ in range(N_OPS // 5):
        y = y * 1.01
        y = y + x
        y = lib_ops.tanh(y)
        y = y - 0.5
        y = lib_ops.sigmoid(y)
    return y.sum()


def time_chain_pair(makers: dict, repeats: int = 60) -> dict:
    """Best time per op for each library, as (forward+backward, forward, backward), measured
    interleaved so machine noise hits all alike."""
    best = {k: [float("inf")] * 3 for k in makers}
    for _ in range(repeats):
        for name, (make_x, lib_ops) in makers.items():
            x = make_x()
            t0 = time.perf_counter()
            y = chain(x, lib_ops)
            t1 = time.perf_counter()
            y.backward()
            t2 = time.perf_counter()
            b = best[name]
            b[0], b[1], b[2] = min(b[0], t2 - t0), min(b[1], t1 - t0), min(b[2], t2 - t1)
    return {k: tuple(t / (N_OPS + 1) * 1e6 for t in v) for k, v in best.items()}


def bench_overhead() -> dict:
    makers = {"minigenesis": (lambda: mg.randn(16, requires_grad=True), mg)}
    try:
        import torch

        torch.set_num_threads(1)
        makers["pytorch"] = (lambda: torch.randn(16, requires_grad=True), torch)
    except ImportError:
        pass
    return time_chain_pair(makers)


# ---------------------------------------------------------------------------------------------
def numpy_mlp_step(params, state, x, y, t, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    """The reference MLP step by hand: Linear-ReLU-Linear-ReLU-Linear, cross-entropy, Adam."""
    w1, b1_, w2, b2_, w3, b3 = params
    h1 = x @ w1.T + b1_
    a1 = np.maximum(h1, 0)
    h2 = a1 @ w2.T + b2_
    a2 = np.maximum(h2, 0)
    z = a2 @ w3.T + b3
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    logp = z - m - np.log(s)
    n = x.shape[0]
    loss = -logp[np.arange(n), y].mean()
    gz = e / s
    gz[np.arange(n), y] -= 1
    gz /= n
    gw3, gb3 = gz.T @ a2, gz.sum(0)
    ga2 = gz @ w3
    gh2 = ga2 * (h2 > 0)
    gw2, gb2 = gh2.T @ a1, gh2.sum(0)
    ga1 = gh2 @ w2
    gh1 = ga1 * (h1 > 0)
    gw1, gb1 = gh1.T @ x, gh1.sum(0)
    for p, g, (mom, vel) in zip(params, (gw1, gb1, gw2, gb2, gw3, gb3), state):
        mom *= b1
        mom += (1 - b1) * g
        vel *= b2
        vel += (1 - b2) * g * g
        mhat = mom / (1 - b1**t)
        vhat = vel / (1 - b2**t)
        p -= lr * mhat / (np.sqrt(vhat) + eps)
    return loss


def bench_mlp_step(steps: int = 10, repeats: int = 15) -> dict:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 100)).astype(np.float32)
    y = rng.integers(0, 10, 256)
    sizes = [(512, 100), (512,), (512, 512), (512,), (10, 512), (10,)]
    params = [rng.standard_normal(s).astype(np.float32) * 0.05 for s in sizes]
    state = [(np.zeros_like(p), np.zeros_like(p)) for p in params]

    def run_numpy():
        for t in range(1, steps + 1):
            numpy_mlp_step(params, state, x, y, t)

    result = {}
    try:
        nn, optim = mg.nn, mg.optim
        model = nn.Sequential(
            nn.Linear(100, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
        )
        opt = optim.Adam(model.parameters(), lr=1e-3)
        crit = nn.CrossEntropyLoss()
        xt, yt = mg.tensor(x), mg.tensor(y)

        def run_mg():
            for _ in range(steps):
                opt.zero_grad()
                loss = crit(model(xt), yt)
                loss.backward()
                opt.step()

        fns = {"numpy": run_numpy, "minigenesis": run_mg}
    except AttributeError:  # nn/optim not built yet
        fns = {"numpy": run_numpy}
    best = {k: float("inf") for k in fns}
    for _ in range(repeats):  # interleaved, so drift on a shared machine hits both alike
        for k, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            best[k] = min(best[k], (time.perf_counter() - t0) / steps * 1e3)
    result.update(best)
    return result


def main() -> None:
    keep_freed_memory()  # as a training loop does (minigenesis/kernels/memory.py)
    ov = bench_overhead()
    print("per-op overhead (200-op chain, 16 elements, forward+backward), us/op:")
    for k, (both, fwd, bwd) in ov.items():
        print(f"  {k:12s} {both:6.2f}   (forward {fwd:.2f}, backward {bwd:.2f})")
    if "pytorch" in ov:
        mine, theirs = ov["minigenesis"], ov["pytorch"]
        print(
            f"  ratio minigenesis / pytorch = {mine[0] / theirs[0]:.2f}x (target <= 1.5x; "
            f"forward {mine[1] / theirs[1]:.2f}x, backward {mine[2] / theirs[2]:.2f}x)"
        )
    mlp = bench_mlp_step()
    print("MLP 100-512-512-10 training step (batch 256, Adam), ms/step:")
    for k, v in mlp.items():
        print(f"  {k:12s} {v:6.2f}")
    if "minigenesis" in mlp:
        print(
            f"  ratio minigenesis / numpy-by-hand = {mlp['minigenesis'] / mlp['numpy']:.2f}x "
            f"(target <= 1.15x)"
        )


if __name__ == "__main__":
    main()
