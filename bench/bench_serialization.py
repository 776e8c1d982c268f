"""Checkpoint speed and memory: mg.save + mg.load of a ~200 MB state dict against numpy.save +
numpy.load of the same arrays into one file, measured side by side in one run.

    python bench/bench_serialization.py [--mb 200] [--repeat 5] [--dir DIR]

mg.save also fsyncs the file (and its directory) before renaming it into place, which numpy.save
does not; a third column times numpy.save + fsync so that cost is visible on its own. Memory is the
peak of Python/NumPy allocations (tracemalloc) above what the state dict itself holds.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import minigenesis as mg  # noqa: E402


def make_state_dict(megabytes: int) -> dict:
    """A transformer-shaped state dict: per block a 4 MB and an 8 MB float32 matrix, biases, norms;
    one bfloat16 embedding."""
    rng = np.random.default_rng(0)
    state: dict = {
        "embed.weight": mg.from_numpy(
            rng.standard_normal((4096, 512)).astype(np.float32)
        ).bfloat16()
    }
    block = 0
    while sum(t.numel() * t.element_size() for t in state.values()) < megabytes * 2**20:
        p = f"blocks.{block}."
        state[p + "attn.weight"] = mg.from_numpy(rng.standard_normal((1024, 1024), np.float32))
        state[p + "attn.bias"] = mg.zeros(1024)
        state[p + "mlp.weight"] = mg.from_numpy(rng.standard_normal((1024, 2048), np.float32))
        state[p + "mlp.bias"] = mg.zeros(2048)
        state[p + "norm.weight"] = mg.ones(1024)
        block += 1
    return state


def numpy_save(arrays: list, path: str, fsync: bool) -> None:
    with open(path, "wb") as f:
        for a in arrays:
            np.save(f, a)
        if fsync:
            f.flush()
            os.fsync(f.fileno())


def numpy_load(path: str, n: int) -> list:
    with open(path, "rb") as f:
        return [np.load(f) for _ in range(n)]


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dir", default=None, help="where to write (default: a temp dir)")
    args = parser.parse_args()

    state = make_state_dict(args.mb)
    arrays = [t.numpy() for t in state.values()]
    nbytes = sum(a.nbytes for a in arrays)
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        ckpt, npy = os.path.join(tmp, "state.ckpt"), os.path.join(tmp, "state.npy")
        # Warm up (page cache, allocator), then interleave the contenders in every round.
        mg.load(mg.save(state, ckpt) or ckpt)
        numpy_load(numpy_save(arrays, npy, False) or npy, len(arrays))
        rows = {k: [] for k in ("mg.save", "mg.load", "np.save", "np.load", "np.save+fsync")}
        for _ in range(args.repeat):
            rows["mg.save"].append(timed(lambda: mg.save(state, ckpt)))
            rows["np.save"].append(timed(lambda: numpy_save(arrays, npy, False)))
            rows["np.save+fsync"].append(timed(lambda: numpy_save(arrays, npy, True)))
            rows["mg.load"].append(timed(lambda: mg.load(ckpt)))
            rows["np.load"].append(timed(lambda: numpy_load(npy, len(arrays))))
        best = {k: min(v) for k, v in rows.items()}
        sizes = os.path.getsize(ckpt), os.path.getsize(npy)

        tracemalloc.start()
        mg.save(state, ckpt)
        save_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        loaded = mg.load(ckpt)
        load_peak = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
        del loaded

    mb = nbytes / 2**20
    print(
        f"state dict: {len(arrays)} tensors, {mb:.0f} MiB; files: checkpoint "
        f"{sizes[0] / 2**20:.1f} MiB, numpy {sizes[1] / 2**20:.1f} MiB; best of {args.repeat}"
    )
    for k, v in best.items():
        print(f"  {k:<14} {v * 1000:8.1f} ms  ({mb / v:7.0f} MiB/s)")
    ours, theirs = best["mg.save"] + best["mg.load"], best["np.save"] + best["np.load"]
    synced = best["np.save+fsync"] + best["np.load"]
    # Per-round ratios compare timings taken seconds apart, so slow drifts in machine load cancel.
    per_round = sorted(
        (rows["mg.save"][i] + rows["mg.load"][i]) / (rows["np.save"][i] + rows["np.load"][i])
        for i in range(args.repeat)
    )
    print(
        f"save+load ratio mg / numpy:          {ours / theirs:.2f}x best-of, "
        f"{per_round[len(per_round) // 2]:.2f}x median of rounds  (target <= 1.5x)"
    )
    print(f"save+load ratio mg / numpy(+fsync):  {ours / synced:.2f}x best-of")
    print(
        f"  save alone {best['mg.save'] / best['np.save']:.2f}x "
        f"({best['mg.save'] / best['np.save+fsync']:.2f}x numpy+fsync), "
        f"load alone {best['mg.load'] / best['np.load']:.2f}x"
    )
    print(
        f"peak extra memory: save {save_peak / 2**20:.1f} MiB "
        f"({save_peak / nbytes:.1%} of the state dict), load {load_peak / 2**20:.1f} MiB "
        f"({load_peak / nbytes:.2f}x the state dict)"
    )


if __name__ == "__main__":
    main()
