"""The main job's settings, its default dataset (3-class spirals) and its default model (an MLP).

Everything the job builds follows from ``TrainConfig`` and its ``seed``: the data (generated on
the fly), the train/validation split, the initial weights and each epoch's shuffling order. That
is what lets ``--resume`` rebuild the run and continue it exactly.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from .. import nn
from ..datasets import make_spirals
from ..random import Generator
from ..utils.data import Subset, TensorDataset, random_split

# Settings that shape the model, the data or the schedule: a resumed run must keep them.
FIXED_ON_RESUME = (
    "batch_size", "lr", "accum_steps", "clip", "amp", "dtype", "seed", "samples", "hidden",
    "weight_decay", "warmup_ratio", "val_fraction", "classes",
)  # fmt: skip


@dataclass
class TrainConfig:
    """The main job's settings (the CLI options, with these defaults)."""

    epochs: int = 30
    batch_size: int = 32
    lr: float = 3e-3  # the peak learning rate, reached at the end of the warm-up
    accum_steps: int = 2  # micro-batches per optimizer step: effective batch = 64
    clip: float = 1.0  # max gradient norm; 0 turns clipping off
    amp: bool = True
    dtype: str = "bfloat16"  # autocast's low-precision dtype
    device: str = "cpu"
    seed: int = 0
    samples: int = 3000  # spiral points in all
    hidden: int = 128
    classes: int = 3
    weight_decay: float = 1e-4
    warmup_ratio: float = 0.1  # share of the optimizer steps spent warming up
    val_fraction: float = 0.2
    ckpt_every: int = 10  # a periodic checkpoint every this many epochs (0: none)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def validate(self) -> None:
        """Raise ValueError naming the first bad setting (its type, then its range)."""
        for f in fields(self):
            value, kind = getattr(self, f.name), f.type
            name = _option(f.name)
            if kind == "int" and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"{name} must be an integer, got {value!r}")
            if kind == "float" and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                    or not math.isfinite(value)):  # fmt: skip
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            if kind in ("bool", "str") and type(value).__name__ != kind:
                raise ValueError(f"{name} must be a {kind}, got {value!r}")
            if f.name in LIMITS:
                low, high = LIMITS[f.name]
                if not low <= value <= high:
                    raise ValueError(f"{name} must lie in [{low}, {high}], got {value}")
        if not self.lr > 0:
            raise ValueError(f"--lr must be positive, got {self.lr}")
        if self.dtype not in ("bfloat16", "float16"):
            raise ValueError(f"--dtype must be bfloat16 or float16, got {self.dtype!r}")
        if not 0 < self.val_fraction < 1:
            raise ValueError(f"val_fraction must lie in (0, 1), got {self.val_fraction}")
        if self.samples // self.classes < 2:
            raise ValueError(f"--samples {self.samples} is too small for {self.classes} classes")
        points = self.samples // self.classes * self.classes  # what make_spirals draws
        if points - _n_val(points, self.val_fraction) < 1:  # (else a schedule of 0 steps)
            raise ValueError(f"val_fraction {self.val_fraction} of {points} points leaves no "
                             "training point")  # fmt: skip


# The allowed range of each number. The upper ends catch typos (an extra zero or two) before they
# exhaust memory or time, and keep every value within what the logs store (float32).
LIMITS: dict[str, tuple[float, float]] = {
    "epochs": (1, 10**6), "batch_size": (1, 10**6), "accum_steps": (1, 10**6),
    "samples": (1, 10**6), "hidden": (1, 4096), "classes": (2, 1000), "seed": (0, 2**64 - 1),
    "ckpt_every": (0, 10**6), "lr": (0, 10**6), "clip": (0, 10**6), "weight_decay": (0, 10**6),
    "warmup_ratio": (0, 1),
}  # fmt: skip

# TrainConfig fields that are not command-line options (set only in code or a checkpoint).
NOT_OPTIONS = ("classes", "weight_decay", "warmup_ratio", "val_fraction")


def _option(name: str) -> str:
    return name if name in NOT_OPTIONS else "--" + name.replace("_", "-")


def _n_val(points: int, val_fraction: float) -> int:
    """How many of the points go to validation (at least one)."""
    return max(1, int(round(points * val_fraction)))


def build_datasets(config: TrainConfig) -> tuple[Subset, Subset]:
    """3-class spirals (noise 0.2), split into train and validation with the run's seed.

    The data stay on the host; the loop moves each batch to the device, as a real pipeline does.
    """
    X, y = make_spirals(n_samples=config.samples, n_classes=config.classes, noise=0.2,
                        seed=config.seed)  # fmt: skip
    full = TensorDataset(X, y)
    n_val = _n_val(len(full), config.val_fraction)
    split_rng = Generator().manual_seed(config.seed)
    train, val = random_split(full, [len(full) - n_val, n_val], generator=split_rng)
    return train, val


def build_model(config: TrainConfig) -> nn.Module:
    """An MLP 2 -> hidden -> hidden -> classes with ReLU; weights drawn from the global RNG."""
    h = config.hidden
    return nn.Sequential(
        nn.Linear(2, h), nn.ReLU(),
        nn.Linear(h, h), nn.ReLU(),
        nn.Linear(h, config.classes),
    )  # fmt: skip


def describe_model(model: nn.Module, config: TrainConfig) -> str:
    n_params = sum(p.numel() for p in model.parameters())
    return f"MLP 2-{config.hidden}-{config.hidden}-{config.classes} ({n_params:,} parameters)"
