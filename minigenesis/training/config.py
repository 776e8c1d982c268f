"""The main job's settings, its default dataset (3-class spirals) and its default model (an MLP).

Everything the job builds follows from ``TrainConfig`` and its ``seed``: the data (generated on
the fly), the train/validation split, the initial weights and each epoch's shuffling order. That
is what lets ``--resume`` rebuild the run and continue it exactly.
"""

from __future__ import annotations

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
        """Raise ValueError naming the first bad setting."""
        positive = ("epochs", "batch_size", "accum_steps", "samples", "hidden")
        for name in positive:
            value = getattr(self, name)
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"--{name.replace('_', '-')} must be a positive integer, "
                                 f"got {value!r}")  # fmt: skip
        if not self.lr > 0:
            raise ValueError(f"--lr must be positive, got {self.lr}")
        if self.clip < 0:
            raise ValueError(f"--clip must be >= 0 (0 turns clipping off), got {self.clip}")
        if self.dtype not in ("bfloat16", "float16"):
            raise ValueError(f"--dtype must be bfloat16 or float16, got {self.dtype!r}")
        if not 0 < self.val_fraction < 1:
            raise ValueError(f"val_fraction must lie in (0, 1), got {self.val_fraction}")
        if self.samples // self.classes < 2:
            raise ValueError(f"--samples {self.samples} is too small for {self.classes} classes")


def build_datasets(config: TrainConfig) -> tuple[Subset, Subset]:
    """3-class spirals (noise 0.2), split into train and validation with the run's seed.

    The data stay on the host; the loop moves each batch to the device, as a real pipeline does.
    """
    X, y = make_spirals(n_samples=config.samples, n_classes=config.classes, noise=0.2,
                        seed=config.seed)  # fmt: skip
    full = TensorDataset(X, y)
    n_val = max(1, int(round(len(full) * config.val_fraction)))
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
