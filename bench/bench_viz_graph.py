"""Drawing the autograd graph: how long a picture takes, for the graphs the course draws.

Times, best of ``--repeat`` rounds, for the graph of one training step of a 2-layer MLP
(cross-entropy loss; 13 boxes) and of a 40-layer tanh MLP (its 40 identical layers collapse to
one block drawn "x 40"): reading the graph (``mg.viz.graph``), building the figure (``.draw()``),
and rendering it to PNG (100 dpi) and SVG. The bar: the MLP step's graph, read, drawn and
rendered to PNG, in under a second. (The first figure of a process also pays for importing
matplotlib and loading its fonts: that is timed apart, as "first call".)

    python bench/bench_viz_graph.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402
import minigenesis.nn as nn  # noqa: E402
import minigenesis.nn.functional as F  # noqa: E402


def mlp_step_loss(depth: int) -> tuple:
    mg.manual_seed(0)
    layers: list = [nn.Linear(2, 16), nn.ReLU()]
    for _ in range(depth - 2):
        layers += [nn.Linear(16, 16), nn.Tanh()]
    model = nn.Sequential(*layers, nn.Linear(16, 3))
    loss = F.cross_entropy(model(mg.randn(64, 2)), mg.randint(0, 3, (64,)))
    loss.backward(retain_graph=True)  # a training step's graph, after its backward
    return model, loss


def time_once(model, loss) -> dict[str, float]:
    t0 = time.perf_counter()
    g = mg.viz.graph(loss, params=model, show_grad=True)
    t1 = time.perf_counter()
    fig = g.draw()
    t2 = time.perf_counter()
    fig.savefig(io.BytesIO(), format="png", dpi=100)
    t3 = time.perf_counter()
    fig.savefig(io.BytesIO(), format="svg")
    t4 = time.perf_counter()
    return {"graph": t1 - t0, "draw": t2 - t1, "png": t3 - t2, "svg": t4 - t3,
            "graph+draw+png": t3 - t0, "nodes": len(g.nodes)}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed rounds (best is kept)")
    args = parser.parse_args()
    cases = {"2-layer MLP step": mlp_step_loss(2), "40-layer tanh MLP step": mlp_step_loss(42)}
    start = time.perf_counter()
    time_once(*cases["2-layer MLP step"])
    print(f"first call (imports matplotlib, loads fonts): {time.perf_counter() - start:.2f} s")
    keys = ("graph", "draw", "png", "svg", "graph+draw+png")
    print(f"{'graph of':<24}{'boxes':>6}" + "".join(f"{k:>16}" for k in keys))
    for name, case in cases.items():
        best: dict[str, float] = {}
        for _ in range(args.repeat):
            for k, v in time_once(*case).items():
                best[k] = min(best.get(k, float("inf")), v)
        print(f"{name:<24}{int(best['nodes']):>6}" +
              "".join(f"{best[k] * 1000:>13.1f} ms" for k in keys))  # fmt: skip


if __name__ == "__main__":
    main()
