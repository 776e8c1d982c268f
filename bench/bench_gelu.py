"""GELU speed: the exact form (erf) against the tanh approximation, side by side in one run.

The exact GELU needs erf, which NumPy lacks; on float32 minigenesis writes the normal tail as
e^(-x^2/2) times a rational function, in float32 (``ops/activation.py``; float64 goes through
``backend.erf``). This prints, for a float32 activation tensor of a transformer MLP's
size, the best time of each form (forward, and forward + backward) and their ratio; the target is
exact <= 1.5x tanh. Both forms are timed interleaved, so machine noise hits both alike.

    python bench/bench_gelu.py [--shape 8,256,1024] [--repeat 15]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", default="8,256,512", help="activation shape (default 8,256,512)")
    parser.add_argument("--repeat", type=int, default=15, help="timed rounds (best is kept)")
    args = parser.parse_args()
    shape = tuple(int(s) for s in args.shape.split(","))
    data = np.random.default_rng(0).normal(size=shape).astype(np.float32)
    forms = ("none", "tanh")
    best = {(form, part): float("inf") for form in forms for part in ("fwd", "fwd+bwd")}
    for _ in range(args.repeat):
        for form in forms:
            x = mg.tensor(data, requires_grad=True)
            start = time.perf_counter()
            y = F.gelu(x, approximate=form)
            mid = time.perf_counter()
            y.backward(mg.ones_like(y))
            end = time.perf_counter()
            best[form, "fwd"] = min(best[form, "fwd"], mid - start)
            best[form, "fwd+bwd"] = min(best[form, "fwd+bwd"], end - start)
    print(
        f"GELU on a float32 tensor of shape {shape} ({data.size:,} elements), best of {args.repeat}"
    )
    print(f"{'':10} {'exact (erf)':>12} {'tanh':>10} {'exact/tanh':>11}")
    for part in ("fwd", "fwd+bwd"):
        exact, tanh = best["none", part], best["tanh", part]
        print(f"{part:10} {exact * 1e3:9.2f} ms {tanh * 1e3:7.2f} ms {exact / tanh:10.2f}x")


if __name__ == "__main__":
    main()
