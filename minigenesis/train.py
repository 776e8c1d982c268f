"""``python -m minigenesis train`` lives in the ``training`` package; this name is a shortcut.

from minigenesis.train import Trainer, TrainConfig
"""

from __future__ import annotations

from .training import TrainConfig, Trainer, TrainError, build_datasets, build_model

__all__ = ["TrainConfig", "Trainer", "TrainError", "build_datasets", "build_model"]
