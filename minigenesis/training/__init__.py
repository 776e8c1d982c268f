"""The main job, ``python -m minigenesis train``: a small model on an embedded dataset with
everything the course teaches (mixed precision, clipping, accumulation, warm-up + cosine,
checkpoints, resume, TensorBoard logging).

- ``config.py``: TrainConfig (the options), the default data (spirals) and model (an MLP)
- ``trainer.py``: the training loop (``Trainer.fit``)
- ``state.py``: checkpoints and ``--resume``
- ``job.py``: the command: options, errors, summary
- ``signals.py``: units of work (an optimizer step, a checkpoint) that Ctrl-C cannot split
"""

from __future__ import annotations

from .config import TrainConfig, build_datasets, build_model
from .state import TrainError
from .trainer import Trainer

__all__ = ["TrainConfig", "Trainer", "TrainError", "build_datasets", "build_model"]
