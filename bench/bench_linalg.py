"""einsum and linear algebra against PyTorch on the CPU, side by side in one run (ratios).

1. einsum: a bilinear form (3 operands), a chain of three matrices (3 operands), a batched
   matrix product and a tiny matrix product; forward, and forward + backward; also NumPy's einsum
   without a contraction order, which is what an einsum without ``optimize`` costs.
2. linalg: solve, cholesky, svd on a batch of 64 x 64 matrices, forward + backward.

    python bench/bench_linalg.py
"""

from __future__ import annotations

import os

# One BLAS thread on both sides: on a shared 2-core machine multi-threaded BLAS stalls at random.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402


def best_us(fn, n: int, repeats: int = 5) -> float:
    """The fastest of ``repeats`` runs of ``n`` calls, in microseconds per call."""
    fn()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - start) / n * 1e6)
    return best


def einsum_row(torch, eq: str, arrays: list, n: int) -> str:
    ours = [mg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    with mg.no_grad(), torch.no_grad():
        fm = best_us(lambda: mg.einsum(eq, *ours), n)
        ft = best_us(lambda: torch.einsum(eq, *theirs), n)
    bm = best_us(lambda: mg.einsum(eq, *ours).sum().backward(), max(n // 4, 2))
    bt = best_us(lambda: torch.einsum(eq, *theirs).sum().backward(), max(n // 4, 2))
    unordered = best_us(lambda: np.einsum(eq, *arrays), 1, 1)
    return (
        f"{eq:16s} {fm:9.0f}us {fm / ft:5.2f}x   {bm:9.0f}us {bm / bt:5.2f}x   {unordered:11.0f}us"
    )


def linalg_row(torch, name: str, fn, x: np.ndarray, b: np.ndarray) -> str:
    xm, ym = mg.tensor(x, requires_grad=True), mg.tensor(b)
    xt, yt = torch.tensor(x, requires_grad=True), torch.tensor(b)
    tm = best_us(lambda: fn(mg, xm, ym).sum().backward(), 5)
    tt = best_us(lambda: fn(torch, xt, yt).sum().backward(), 5)
    return f"{name:10s} {tm:9.0f}us {tm / tt:5.2f}x"


def main() -> None:
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    print("einsum (float32)    forward: mg, mg / torch   fwd+bwd: mg, mg / torch   NumPy unordered")
    for eq, shapes, n in [
        ("bn,anm,bm->ba", [(64, 128), (32, 128, 128), (64, 128)], 5),
        ("ij,jk,kl->il", [(100, 100)] * 3, 5),
        ("bij,bjk->bik", [(16, 64, 64), (16, 64, 64)], 20),
        ("ij,jk->ik", [(8, 8), (8, 8)], 500),
    ]:
        print(einsum_row(torch, eq, [rng.standard_normal(s).astype(np.float32) for s in shapes], n))
    print("linalg (float64, 32 x 64 x 64), forward + backward: mg, mg / torch")
    a = rng.standard_normal((32, 64, 64))
    spd = a @ np.swapaxes(a, -1, -2) + 64 * np.eye(64)
    b = rng.standard_normal((32, 64, 8))
    cases = [
        ("solve", lambda L, x, y: L.linalg.solve(x, y), a + 8 * np.eye(64)),
        ("cholesky", lambda L, x, y: L.linalg.cholesky(x), spd),
        ("svdvals", lambda L, x, y: L.linalg.svdvals(x), a),
        ("det", lambda L, x, y: L.linalg.det(x), a + 8 * np.eye(64)),
    ]
    for name, fn, x in cases:
        print(linalg_row(torch, name, fn, x, b))


if __name__ == "__main__":
    main()
