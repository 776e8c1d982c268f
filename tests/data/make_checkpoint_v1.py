"""Generate tests/data/checkpoint_v1.mgck: a checkpoint as ``mg.save`` wrote it in format 1.

The committed file was written by the minigenesis that preceded the opcode-level weights-only
loader (when weights-only loading was a ``find_class`` allow-list over the C unpickler), so that
``tests/serialization/test_safety.py`` checks that files written before the loader changed still
load with ``weights_only=True``. Regenerating it with today's code would prove nothing about old
files; only do that when the format version changes:

    PYTHONPATH=<checkout to generate with> python tests/data/make_checkpoint_v1.py

``build()`` is imported by the test to rebuild the same object with the current code.
"""

from __future__ import annotations

import collections
from pathlib import Path

import numpy as np

import minigenesis as mg


def build() -> dict:
    """A deterministic training-state-like object (no randomness, no NumPy scalars)."""
    model = mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.ReLU(), mg.nn.Linear(2, 1))
    with mg.no_grad():
        for k, p in enumerate(model.parameters()):
            p.copy_(mg.arange(p.numel(), dtype=mg.float32).reshape(p.shape) / (k + 2))
    opt = mg.optim.Adam(model.parameters(), lr=0.01)
    sched = mg.optim.lr_scheduler.StepLR(opt, step_size=2)
    for p in model.parameters():
        p.grad = mg.ones_like(p)
    opt.step()
    sched.step()
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "scheduler": sched.state_dict(),
        "scaler": mg.amp.GradScaler().state_dict(),
        "half": mg.arange(4, dtype=mg.float16) / 3,
        "bf16": mg.arange(4, dtype=mg.bfloat16) / 3,
        "long": mg.arange(5, dtype=mg.int64) - 2,
        "mask": mg.arange(4) > 1,
        "param": mg.nn.Parameter(mg.ones(2, 2)),
        "array": np.arange(6, dtype=np.float64).reshape(2, 3),
        "f_order": np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3)),
        "ordered": collections.OrderedDict([("b", 1), ("a", (2, 3.5))]),
        "plain": [None, True, -(2**40), 1 - 2j, "text ✓", b"\x00\xff", {1, 2}, frozenset({"x"})],
        "dtype": mg.bfloat16,
    }


if __name__ == "__main__":
    mg.save(build(), Path(__file__).with_name("checkpoint_v1.mgck"))
