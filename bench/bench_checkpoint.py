"""Gradient checkpointing: memory and time of forward+backward, plain against
``checkpoint_sequential(segments=4)``, measured side by side in one run.

The model is 16 blocks of Linear(W, W) + Tanh (the reference case: W = 512, batch 512, float32, so
one activation is 1 MiB, exactly the size of one weight gradient). Memory is traced with
tracemalloc (NumPy reports every array allocation to it), above what existed before the step
(model, input). Three figures per variant:

- held:  bytes alive at the end of the forward pass (with the loss), i.e. what is kept for
         backward;
- peak:  the peak during forward+backward with the gradient buffers already allocated (a running
         loop that zeroes them in place): activations, the gradient flowing back, temporaries;
- peak+g: the same with ``.grad`` starting as None (``zero_grad()``'s default), so the step also
         allocates every weight gradient; both variants pay those in full.

Times are the best of several interleaved repeats (``.grad`` None at the start). A third row runs
the same split with PyTorch's older reentrant design (``use_reentrant=True``), for comparison.

    python bench/bench_checkpoint.py            # the reference shape, then a 4x larger batch
    python bench/bench_checkpoint.py --quick    # a small model (smoke test)
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared 2-core machine multi-threaded BLAS stalls at random; both variants
# use the same BLAS, so the ratio stays fair.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import gc  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import minigenesis as mg  # noqa: E402
from minigenesis import nn  # noqa: E402
from minigenesis.utils.checkpoint import checkpoint_sequential  # noqa: E402

MiB = 2**20
PLAIN, CKPT, REENTRANT = (
    "plain",
    "checkpoint_sequential(segments=4)",
    "  the same, use_reentrant=True",
)
# name -> (segments, use_reentrant)
VARIANTS = {PLAIN: (None, False), CKPT: (4, False), REENTRANT: (4, True)}


def make_model(blocks: int, width: int) -> nn.Sequential:
    layers = []
    for _ in range(blocks):
        layers += [nn.Linear(width, width), nn.Tanh()]
    return nn.Sequential(*layers)


def forward(model: nn.Sequential, x: mg.Tensor, variant: tuple) -> mg.Tensor:
    segments, reentrant = variant
    if segments is None:
        return model(x)
    return checkpoint_sequential(model, segments, x, use_reentrant=reentrant)


def memory(
    model: nn.Sequential, x: mg.Tensor, variant: tuple, grads_allocated: bool
) -> tuple[float, float]:
    """(held after forward, peak during forward+backward) in MiB above the starting point.

    With ``grads_allocated`` the gradients are made (and zeroed) while tracing, so tracemalloc
    also sees them freed when backward replaces them."""
    model.zero_grad()
    gc.collect()
    tracemalloc.start()
    if grads_allocated:
        forward(model, x, variant).sum().backward()
        model.zero_grad(set_to_none=False)
        gc.collect()
    base = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    # Only the loss is held, as in a training loop: the output lives on only as long as the graph
    # needs it (the last Tanh saved it), not through the whole backward.
    loss = forward(model, x, variant).sum()
    held = tracemalloc.get_traced_memory()[0] - base
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del loss
    return held / MiB, peak / MiB


def best_time(model: nn.Sequential, x: mg.Tensor, repeats: int) -> dict:
    best = {k: float("inf") for k in VARIANTS}
    for _ in range(repeats):
        for name, variant in VARIANTS.items():
            model.zero_grad()
            t0 = time.perf_counter()
            forward(model, x, variant).sum().backward()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def run(blocks: int, width: int, batch: int, repeats: int) -> None:
    mg.manual_seed(0)
    model = make_model(blocks, width)
    x = mg.randn(batch, width)
    for variant in VARIANTS.values():  # warm up (imports, first allocations)
        memory(model, x, variant, False)
    held, peak, peak_g = {}, {}, {}
    for name, seg in VARIANTS.items():
        held[name], peak[name] = memory(model, x, seg, True)
        peak_g[name] = memory(model, x, seg, False)[1]
    times = best_time(model, x, repeats)

    act = batch * width * 4 / MiB
    grads = sum(p.numel() for p in model.parameters()) * 4 / MiB
    print(
        f"\n{blocks} x (Linear({width}, {width}) + Tanh), batch {batch}, float32: one activation "
        f"{act:.2f} MiB, all weight gradients {grads:.1f} MiB"
    )
    print(f"{'MiB / ms':36s} {'held':>7s} {'peak':>7s} {'peak+g':>7s} {'time':>8s}")
    for name in VARIANTS:
        print(
            f"{name:36s} {held[name]:7.1f} {peak[name]:7.1f} {peak_g[name]:7.1f} "
            f"{times[name] * 1e3:8.1f}"
        )
    for name, label in ((CKPT, "ratio checkpoint / plain"), (REENTRANT, "  reentrant / plain")):
        print(
            f"{label:36s} {held[name] / held[PLAIN]:7.2f} "
            f"{peak[name] / peak[PLAIN]:7.2f} {peak_g[name] / peak_g[PLAIN]:7.2f} "
            f"{times[name] / times[PLAIN]:8.2f}"
        )


def main() -> None:
    if "--quick" in sys.argv:
        run(8, 128, 128, repeats=3)
        return
    run(16, 512, 512, repeats=11)  # the reference case
    run(16, 512, 2048, repeats=3)  # activations 4x larger than the gradients


if __name__ == "__main__":
    main()
