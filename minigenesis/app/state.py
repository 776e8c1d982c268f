"""Training checkpoints: what a run saves, and how ``--resume`` finds and checks one.

A checkpoint holds everything needed to continue exactly where the run stopped (the keys of
the usual PyTorch checkpoint dict, plus the position and the random state)::

    model_state_dict, optimizer_state_dict, scheduler_state_dict, scaler_state_dict,
    epoch, step, batch_in_epoch, epoch_sums, rng_state, history, lrs, best, grad_flow, config

``epoch``/``batch_in_epoch`` say where the next micro-batch comes from: each epoch's order is
rebuilt from the seed, so a run stopped mid-epoch skips the batches it already used.
``grad_flow`` sums up every step's per-parameter gradient norms (steps, sum, max), so that the
plot of a resumed run covers the whole run.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

from .. import serialization
from .config import TrainConfig
from .resume_schema import fit_schema, top_level_schema

FORMAT = "minigenesis-train/1"
CHECKPOINT_DIR = "checkpoints"
LAST = "last.pth"
BEST = "best_model.pth"

_REQUIRED = (
    "model_state_dict", "optimizer_state_dict", "scheduler_state_dict", "scaler_state_dict",
    "epoch", "step", "batch_in_epoch", "rng_state", "config", "history",
)  # fmt: skip


class TrainError(Exception):
    """A problem the user can fix (bad option, unusable checkpoint): one line, no traceback."""


def periodic_name(epoch: int) -> str:
    return f"checkpoint_epoch_{epoch:03d}.pth"


_PERIODIC = "checkpoint_epoch_*.pth"  # every periodic_name


def _epoch_of(periodic: Path) -> int:
    """The epoch in a periodic checkpoint's name (-1 if it is no number)."""
    digits = periodic.stem.rsplit("_", 1)[-1]
    return int(digits) if digits.isdigit() else -1


def resolve_resume(path_or_dir: str | Path) -> Path:
    """The checkpoint file meant by ``--resume``: a file, or a run directory (its
    ``checkpoints/last.pth``) or a checkpoints directory (its ``last.pth``)."""
    p = Path(path_or_dir).expanduser()
    if p.is_dir():
        for candidate in (p / CHECKPOINT_DIR / LAST, p / LAST):
            if candidate.is_file():
                return candidate
        raise TrainError(
            f"cannot resume from '{p}': no {CHECKPOINT_DIR}/{LAST} or {LAST} in that directory"
            + other_checkpoint_hint(p)
        )
    if not p.exists():
        raise TrainError(f"cannot resume from '{p}': no such file or directory")
    if not p.is_file():  # a FIFO or a device would block the read, or never end
        raise TrainError(f"cannot resume from '{p}': not a regular file")
    return p


def other_checkpoint_hint(folder: Path) -> str:
    """For a run directory without last.pth: "; its newest periodic checkpoint is '...'", or the
    same of best_model.pth, or "" when it holds neither.

    A run whose disk filled up may have written the epoch's periodic checkpoint and best_model.pth,
    which go before last.pth, and no last.pth: name the file that holds the most, do not guess.
    """
    periodic = [*folder.glob(f"{CHECKPOINT_DIR}/{_PERIODIC}"), *folder.glob(_PERIODIC)]
    newest = max(periodic, key=_epoch_of, default=None)
    if newest is not None:
        return f"; its newest periodic checkpoint is '{newest}'"
    for best in (folder / CHECKPOINT_DIR / BEST, folder / BEST):
        if best.is_file():
            return f"; it holds the checkpoint of its best epoch, '{best}'"
    return ""


def run_dir_of(checkpoint: Path) -> Path:
    """The run directory a checkpoint file belongs to (its folder, above ``checkpoints/``)."""
    folder = checkpoint.parent
    return folder.parent if folder.name == CHECKPOINT_DIR else folder


def load_training_checkpoint(path: Path, map_location: str = "cpu") -> dict[str, Any]:
    """Load and check a training checkpoint; any problem becomes a one-line TrainError."""
    if not path.is_file():  # (reading a FIFO would wait for a writer for ever)
        raise TrainError(f"cannot resume from '{path}': not a regular file")
    try:
        ckpt = serialization.load_checkpoint(path, map_location=map_location)
    except Exception as err:  # damaged, truncated, not ours, unsafe: all mean "cannot resume"
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        if reason.startswith(f"{path}: "):  # the loader names the file too: say it once
            reason = reason[len(f"{path}: ") :]
        raise TrainError(f"cannot resume from '{path}': {reason}") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise TrainError(
            f"cannot resume from '{path}': not a checkpoint of `python -m minigenesis train`"
        )
    missing = [k for k in _REQUIRED if k not in ckpt]
    if missing:
        raise TrainError(f"cannot resume from '{path}': the checkpoint lacks {', '.join(missing)}")
    problem = _top_level_problem(ckpt)
    if problem:
        raise TrainError(f"cannot resume from '{path}': {problem}")
    return ckpt


def save_training_checkpoint(state: dict[str, Any], path: Path) -> None:
    """Write atomically (a crash never leaves a half-written file under ``path``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    serialization.save_checkpoint({"format": FORMAT, **state}, path)


def _top_level_problem(ckpt: dict[str, Any]) -> str | None:
    """The first field of the wrong type or range (``resume_schema``), or None if all fit."""
    problem = top_level_schema(tuple(f.name for f in fields(TrainConfig)))(ckpt, "")
    if problem:
        return f"its {problem}"
    lengths = {len(column) for column in ckpt["history"].values()}
    if lengths - {ckpt["epoch"]}:
        return (f"its history should hold {ckpt['epoch']} rows (one per epoch) in every column, "
                f"got {sorted(lengths)}")  # fmt: skip
    best = ckpt.get("best", {}).get("epoch")
    if best is not None and not 1 <= best <= ckpt["epoch"]:  # (loss.png marks it on the curves)
        return f"its best['epoch'] should be an epoch of the run (1 to {ckpt['epoch']}), got {best}"
    return None


# ------------------------------------------------------------------ does it fit this run?
def check_fits(ckpt: dict[str, Any], own: dict[str, dict], params: list, batches_per_epoch: int,
               metric_fields: list[str]) -> None:  # fmt: skip
    """TrainError unless the checkpoint's states have the structure of this run's own ``own``
    (the same keys, lengths, tensor shapes and dtypes; numbers in their ranges, finite where the
    run needs them: ``resume_schema.fit_schema``) and its position fits.

    The values may differ, of course; what is compared is what the run relies on, so that an
    edited or foreign checkpoint stops the resume before training instead of somewhere inside it.
    """
    states = {key: ckpt[key] for key in (*own, "history", "grad_flow") if key in ckpt}
    problem = fit_schema(own, params, metric_fields)(states, "")
    if not problem and ckpt.get("grad_flow", {}).get("steps", 0) > ckpt["step"]:
        problem = (f"its grad_flow summary has seen {ckpt['grad_flow']['steps']} steps, more "
                   f"than the run's {ckpt['step']}")  # fmt: skip
    if not problem and ckpt["batch_in_epoch"] > batches_per_epoch:
        problem = (f"it is at batch {ckpt['batch_in_epoch']} of an epoch that has "
                   f"{batches_per_epoch}")  # fmt: skip
    if problem:
        raise TrainError(f"cannot resume: the checkpoint does not fit this run ({problem})")
