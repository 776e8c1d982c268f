"""The application: the command line (``python -m minigenesis train | plot-lr | lessons``) and its
main job, a small model on an embedded dataset trained with everything the course teaches (mixed
precision, clipping, accumulation, warm-up + cosine, checkpoints, resume, TensorBoard logging).

- ``cli.py``: the argument parsing and the subcommands (``main(argv)`` returns the exit status)
- ``config.py``: TrainConfig (the options), the default data (spirals) and model (an MLP)
- ``trainer.py``: the training loop (``Trainer.fit``)
- ``state.py``: checkpoints and ``--resume``
- ``job.py``: the ``train`` command: its options, errors, summary
- ``signals.py``: units of work (an optimizer step, a checkpoint) that Ctrl-C cannot split
- ``schedules.py``: the learning-rate schedules by name (``--scheduler`` of ``plot-lr``)
"""

from __future__ import annotations

from .config import TrainConfig, build_datasets, build_model
from .state import TrainError

__all__ = ["TrainConfig", "Trainer", "TrainError", "build_datasets", "build_model"]


def __getattr__(name: str):
    # Loaded on first use (PEP 562): the trainer brings tqdm and the TensorBoard writer
    # (tensorboardX, which imports PyTorch where it is installed: 1.5 s), which `python -m
    # minigenesis plot-lr`, `doctor` or `lessons` should not pay for.
    if name == "Trainer":
        from .trainer import Trainer

        return Trainer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
