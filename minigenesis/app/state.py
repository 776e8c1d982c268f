"""Training checkpoints: what a run saves, and how ``--resume`` finds and checks one.

A checkpoint holds everything needed to continue exactly where the run stopped (the keys of
the usual PyTorch checkpoint dict, plus the position and the random state)::

    model_state_dict, optimizer_state_dict, scheduler_state_dict, scaler_state_dict,
    epoch, step, batch_in_epoch, epoch_sums, rng_state, history, lrs, best, config

``epoch``/``batch_in_epoch`` say where the next micro-batch comes from: each epoch's order is
rebuilt from the seed, so a run stopped mid-epoch skips the batches it already used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import serialization
from .._tensor import Tensor

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
        )
    if not p.exists():
        raise TrainError(f"cannot resume from '{p}': no such file or directory")
    return p


def run_dir_of(checkpoint: Path) -> Path:
    """The run directory a checkpoint file belongs to (its folder, above ``checkpoints/``)."""
    folder = checkpoint.parent
    return folder.parent if folder.name == CHECKPOINT_DIR else folder


def load_training_checkpoint(path: Path, map_location: str = "cpu") -> dict[str, Any]:
    """Load and check a training checkpoint; any problem becomes a one-line TrainError."""
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
    problem = _bad_field(ckpt)
    if problem:
        raise TrainError(f"cannot resume from '{path}': {problem}")
    return ckpt


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# What each field must be; anything else (an edited or foreign file) stops the resume up front
# instead of failing somewhere inside the run.
_FIELDS: dict[str, tuple[str, Any]] = {
    "model_state_dict": ("a dict", lambda v: isinstance(v, dict)),
    "optimizer_state_dict": ("a dict", lambda v: isinstance(v, dict)),
    "scheduler_state_dict": ("a dict", lambda v: isinstance(v, dict)),
    "scaler_state_dict": ("a dict", lambda v: isinstance(v, dict)),
    "config": ("a dict", lambda v: isinstance(v, dict)),
    "epoch": ("an integer >= 0", _is_count),
    "step": ("an integer >= 0", _is_count),
    "batch_in_epoch": ("an integer >= 0", _is_count),
    "history": ("a dict of lists of numbers", lambda v: isinstance(v, dict) and all(
        isinstance(x, list) and all(map(_is_number, x)) for x in v.values())),
    "epoch_sums": ("[loss sum, correct, count]", lambda v: isinstance(v, list) and len(v) == 3
                   and all(map(_is_number, v))),
    "lrs": ("a list of numbers", lambda v: isinstance(v, list) and all(map(_is_number, v))),
    "best": ("a dict with val_acc", lambda v: isinstance(v, dict) and _is_number(v.get("val_acc"))
             and (v.get("epoch") is None or _is_count(v["epoch"]))),
    "grad_norm": ("a number", _is_number),
}  # fmt: skip


def _bad_field(ckpt: dict[str, Any]) -> str | None:
    """A description of the first field of the wrong type or range, or None if all fit."""
    for key, (expected, fits) in _FIELDS.items():
        if key in ckpt and not fits(ckpt[key]):
            value = repr(ckpt[key])
            value = value if len(value) <= 40 else type(ckpt[key]).__name__
            return f"its {key} should be {expected}, got {value}"
    lengths = {len(column) for column in ckpt["history"].values()}
    if lengths - {ckpt["epoch"]}:
        return (f"its history should hold {ckpt['epoch']} rows (one per epoch) in every column, "
                f"got {sorted(lengths)}")  # fmt: skip
    return None


def save_training_checkpoint(state: dict[str, Any], path: Path) -> None:
    """Write atomically (a crash never leaves a half-written file under ``path``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    serialization.save_checkpoint({"format": FORMAT, **state}, path)


# ------------------------------------------------------------------ does it fit this run?
def check_fits(ckpt: dict[str, Any], own: dict[str, dict], params: list, batches_per_epoch: int,
               metric_fields: list[str]) -> None:  # fmt: skip
    """TrainError unless the checkpoint's states have the structure of this run's own ``own``
    (keys, lengths, tensor shapes, numbers where numbers belong) and its position fits.

    The values may differ, of course; what is compared is what the run relies on, so that an
    edited or foreign checkpoint stops the resume before training instead of somewhere inside it.
    """
    problem = None
    for key, expected in own.items():
        problem = problem or _misfit(expected, ckpt[key], key)
    optimizer_state = ckpt["optimizer_state_dict"].get("state", {})
    problem = problem or _optimizer_state_misfit(optimizer_state, params)
    missing = [k for k in metric_fields if k not in ckpt["history"]]
    if not problem and missing:
        problem = f"its history lacks {', '.join(missing)}"
    if not problem and ckpt["batch_in_epoch"] > batches_per_epoch:
        problem = (f"it is at batch {ckpt['batch_in_epoch']} of an epoch that has "
                   f"{batches_per_epoch}")  # fmt: skip
    if problem:
        raise TrainError(f"cannot resume: the checkpoint does not fit this run ({problem})")


def _short(value: Any) -> str:
    if isinstance(value, Tensor):
        return f"a tensor of shape {tuple(value.shape)}"
    text = repr(value)
    return text if len(text) <= 40 else f"a {type(value).__name__}"


def _misfit(expected: Any, got: Any, where: str) -> str | None:
    """Where ``got`` differs in structure from ``expected``, or None. Keys present in only one
    of two dicts are left to ``load_state_dict`` (which knows which ones it needs)."""
    if isinstance(expected, dict):
        if not isinstance(got, dict):
            return f"{where} should be a dict, got {_short(got)}"
        common = [k for k in expected if k in got and k != "state"]
        found = (_misfit(expected[k], got[k], f"{where}[{k!r}]") for k in common)
        return next((p for p in found if p), None)  # ("state": see _optimizer_state_misfit)
    if isinstance(expected, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(expected):
            return f"{where} should hold {len(expected)} entries, got {_short(got)}"
        found = (_misfit(e, g, f"{where}[{i}]") for i, (e, g) in enumerate(zip(expected, got)))
        return next((p for p in found if p), None)
    if isinstance(expected, Tensor):
        fits, wanted = isinstance(got, Tensor) and got.shape == expected.shape, _short(expected)
    elif _is_number(expected):
        fits, wanted = _is_number(got), "a number"
    else:  # bool, str, None
        fits, wanted = type(got) is type(expected), f"a {type(expected).__name__}"
    return None if fits else f"{where} should be {wanted}, got {_short(got)}"


def _optimizer_state_misfit(state: Any, params: list) -> str | None:
    """Each parameter's optimizer state: numbers, and tensors of the parameter's shape."""
    if not isinstance(state, dict):
        return f"optimizer_state_dict['state'] should be a dict, got {_short(state)}"
    for index, entry in state.items():
        if not (_is_count(index) and index < len(params) and isinstance(entry, dict)):
            return f"optimizer_state_dict['state'][{index!r}] belongs to no parameter"
        for name, value in entry.items():
            shapes = ((), tuple(params[index].shape))
            fits = tuple(value.shape) in shapes if isinstance(value, Tensor) else _is_number(value)
            if not fits:
                return f"optimizer_state_dict['state'][{index}][{name!r}] is {_short(value)}"
    return None
