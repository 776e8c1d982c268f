"""``python -m minigenesis lessons capstone --mine``: the capstone, trained by YOUR engine.

Fourteen exercises of the course are pieces of a training engine: the backward walk (2.3, 2.4),
broadcasting's sum-back (3.2), Linear's backward (3.4), a Linear layer (4.1), AdamW (6.3), the
warmup + cosine schedule (7.1), gradient clipping (8.1), a loss scaler (9.5), the checkpoint's
safe load and atomic write (10.1, 10.2), and chapter 13's CNN, training step and evaluation.
This command trains chapter 13's run (the CNN on the shapes, 4 epochs, AdamW, warmup + cosine,
bfloat16 autocast with a loss scaler, clipping, a checkpoint every epoch) with every piece you
have written plugged in and minigenesis for the rest, then the same run on minigenesis alone, and
compares them::

    your engine: 9 of 14 pieces (2.3 topological order, 2.4 backward walk, ...)
    not yet yours (minigenesis's ran): 3.4 Linear's backward, ...
    validation accuracy 92.6% (reference 93.0%), validation loss 0.241 (reference 0.233)

How each piece is plugged in (the swap happens here, in the course; minigenesis's code is
never changed):

- the model, optimizer, schedule, scaler, clipping and checkpoint files are BUILT from your
  classes and functions;
- the backward walk, the sum-back and Linear's backward are PATCHED into minigenesis for the
  length of the run by ``plugged()``, a context manager that puts everything back afterwards.

A piece of yours that raises, or makes NaN/inf where its inputs were finite, is named, and the
run starts again with minigenesis's piece in its place (and says so). A piece counts as yours
once its stub no longer raises; whether it passes its checks is what
``python -m minigenesis lessons`` tells.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _course  # noqa: E402  (lessons/ must be on the path first)
from _capstone_plugs import (  # noqa: E402
    Guard,
    PieceFailed,
    finite,
    make_linear,
    make_sum_to_shape,
    make_walk,
    plugged,
    to_array,
    walk_of,
)

import minigenesis as mg  # noqa: E402
from minigenesis import _tensor  # noqa: E402  (the module whose Tensor.backward is patched)


@dataclass(frozen=True)
class Piece:
    """One exercise that is a piece of the engine."""

    number: str
    chapter: str  # the folder's two digits
    name: str  # what it is, for the report
    attr: str  # its name in the chapter's exercises.py


PIECES = (
    Piece("2.3", "02", "topological order", "topological_order"),
    Piece("2.4", "02", "backward walk", "backward"),
    Piece("3.2", "03", "broadcasting's sum-back", "sum_to"),
    Piece("3.4", "03", "Linear's backward", "linear_backward"),
    Piece("4.1", "04", "Linear layer", "MyLinear"),
    Piece("6.3", "06", "AdamW", "AdamW"),
    Piece("7.1", "07", "warmup + cosine schedule", "warmup_cosine_lambda"),
    Piece("8.1", "08", "gradient clipping", "clip_grad_norm"),
    Piece("9.5", "09", "loss scaler", "ManualGradScaler"),
    Piece("10.1", "10", "safe checkpoint load", "safe_loads"),
    Piece("10.2", "10", "atomic checkpoint write", "atomic_save"),
    Piece("13.1", "13", "the CNN", "build_cnn"),
    Piece("13.2", "13", "training step", "train_step"),
    Piece("13.3", "13", "evaluation", "evaluate"),
)
BY_NUMBER = {p.number: p for p in PIECES}

# Chapter 13's run (its notebook's numbers): 768 training and 256 validation images.
N_TRAIN, N_VAL, EPOCHS, BATCH, LR, MAX_NORM, SEED = 768, 256, 4, 64, 2e-2, 1.0, 0


# ----------------------------------------------------------------------------------------------
# Whose pieces: the learner's modules
# ----------------------------------------------------------------------------------------------
@dataclass
class Learner:
    """What the learner has written: the chapters' modules, and the pieces that are theirs."""

    modules: dict[str, ModuleType] = field(default_factory=dict)  # chapter -> module
    written: list[str] = field(default_factory=list)  # piece numbers, in course order
    broken: dict[str, str] = field(default_factory=dict)  # chapter -> why it does not load


def read_learner(lessons: Path, solutions: bool = False) -> Learner:
    """The learner's pieces (the reference answers as theirs when ``solutions``). A chapter's
    module is the learner's file finished by the reference answers where it is still a stub
    (``_course.hybrid``); nothing is written to the learner's folders."""
    learner = Learner()
    for chapter in sorted({p.chapter for p in PIECES}):
        folder = next(iter(sorted(lessons.glob(f"{chapter}_*"))), None)
        if folder is None:
            continue
        if solutions:
            learner.modules[chapter] = _course.load_file(folder / _course.SOLUTIONS)
            learner.written += [p.number for p in PIECES if p.chapter == chapter]
            continue
        path = _course.learner_file(folder, create=False)
        if path.name != _course.EXERCISES:  # no copy yet: nothing written
            continue
        problem = _course.load_error(path)
        stubs = set() if problem else set(_course.unfinished(path.read_text(encoding="utf-8")))
        mine = [p for p in PIECES if p.chapter == chapter and p.attr not in stubs]
        if not mine:
            continue
        try:
            if problem:
                raise SyntaxError(problem)
            learner.modules[chapter] = _course.hybrid(folder, fallback=True, tag="capstone")
        except Exception as err:  # noqa: BLE001  (whatever the file raises: name it, go on)
            learner.broken[chapter] = problem or _course.describe_error(path, err)
            continue
        learner.written += [p.number for p in mine]
    order = [p.number for p in PIECES]
    learner.written.sort(key=order.index)
    return learner


def _missing_chapters(lessons: Path) -> list[str]:
    """The chapters the capstone takes pieces from that have no folder with reference answers
    under ``lessons`` (all of them for a folder that is not the course)."""
    needed = sorted({p.chapter for p in PIECES})
    return [c for c in needed if not any((d / _course.SOLUTIONS).is_file()
                                         for d in lessons.glob(f"{c}_*"))]  # fmt: skip


def _reference(lessons: Path, chapter: str) -> ModuleType:
    folder = next(iter(sorted(lessons.glob(f"{chapter}_*"))))
    return _course.load_file(folder / _course.SOLUTIONS)


# ----------------------------------------------------------------------------------------------
# One run of chapter 13's training, with the pieces in ``mine`` taken from the learner
# ----------------------------------------------------------------------------------------------
class _LambdaSchedule:
    """LambdaLR's rule for an optimizer minigenesis's schedulers do not take (one of yours:
    they accept ``mg.optim.Optimizer`` objects only, as PyTorch's do): at each ``step()``,
    ``group["lr"] = initial lr * lr_lambda(steps so far)``."""

    def __init__(self, optimizer: Any, lr_lambda) -> None:
        self.optimizer, self.lr_lambda, self.last_epoch = optimizer, lr_lambda, 0
        self.base_lrs = [group["lr"] for group in optimizer.param_groups]
        self._set()

    def _set(self) -> None:
        for group, base in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = base * self.lr_lambda(self.last_epoch)

    def step(self) -> None:
        self.last_epoch += 1
        self._set()

    def get_last_lr(self) -> list[float]:
        return [group["lr"] for group in self.optimizer.param_groups]


@dataclass
class RunResult:
    val_acc: float
    val_loss: float
    train_loss: list[float]
    calls: Counter


def _wrap_methods(obj: Any, names: tuple[str, ...], guard: Guard, numbers, check=None) -> Any:
    for name in names:
        setattr(obj, name, guard.wrap(numbers, getattr(obj, name), check))
    return obj


def train(lessons: Path, learner: Learner, mine: set[str], data) -> RunResult:
    """Chapter 13's run (4 epochs, seed 0) with the pieces in ``mine`` from ``learner`` and
    minigenesis (and the course's reference answers for chapter 13's own exercises) for the
    rest. Raises PieceFailed naming a piece that raised or made NaN/inf."""
    guard = Guard()
    ch = {c: learner.modules.get(c) for c in ("02", "03", "04", "06", "07", "08", "09", "10")}

    def theirs(number: str):
        piece = BY_NUMBER[number]
        return getattr(learner.modules[piece.chapter], piece.attr) if number in mine else None

    capstone = learner.modules.get("13") or _reference(lessons, "13")
    reference13 = _reference(lessons, "13")
    build_cnn = theirs("13.1") or reference13.build_cnn
    train_step = theirs("13.2") or reference13.train_step
    evaluate = theirs("13.3") or reference13.evaluate
    if "13.1" in mine:
        build_cnn = guard.wrap(("13.1",), build_cnn)
    if "13.2" in mine:
        train_step = guard.wrap(("13.2",), train_step)
    if "13.3" in mine:
        evaluate = guard.wrap(
            ("13.3",), evaluate,
            lambda out, *a, **k: None if finite(*out) else f"returned {out}",
        )  # fmt: skip
    del capstone

    patches: list[tuple[Any, str, Any]] = []
    walk = tuple(n for n in ("2.3", "2.4") if n in mine)
    if walk:  # chapter 2's backward, with the learner's topological_order where written
        walk_backward = walk_of(ch["02"], _reference(lessons, "02"), mine)
        patches.append((_tensor, "run_backward", make_walk(walk_backward, guard, walk)))
    if "3.2" in mine:
        patches.append((mg.Tensor, "sum_to_shape", make_sum_to_shape(theirs("3.2"), guard)))
    if "3.4" in mine:
        patches.append((mg.nn.functional, "linear", make_linear(theirs("3.4"), guard)))
    if "8.1" in mine:  # what the training step calls to clip
        clip = guard.wrap(
            ("8.1",), theirs("8.1"),
            lambda out, params, *a: None if finite(out) else f"returned the norm {out}",
        )  # fmt: skip
        patches.append((mg.nn.utils, "clip_grad_norm_", clip))

    X_train, y_train, X_val, y_val = data
    steps = EPOCHS * math.ceil(len(y_train) / BATCH)
    with plugged(patches), tempfile.TemporaryDirectory() as tmp:
        mg.manual_seed(SEED)
        model = build_cnn()
        if "4.1" in mine:  # your Linear layer as the CNN's head
            heads = [i for i, m in enumerate(model) if isinstance(m, mg.nn.Linear)]
            if heads:
                i = heads[-1]
                make = guard.wrap(("4.1",), theirs("4.1"))
                head = make(model[i].in_features, model[i].out_features)
                head.forward = guard.wrap(
                    ("4.1",), head.forward,
                    lambda out, x: None if finite(to_array(out)) or not finite(to_array(x))
                    else "made NaN/inf from a finite input",
                )  # fmt: skip
                model[i] = head
        if "6.3" in mine:
            optimizer = guard.wrap(("6.3",), theirs("6.3"))(model.parameters(), lr=LR)
            params = [p for g in optimizer.param_groups for p in g["params"]]
            _wrap_methods(
                optimizer, ("step", "zero_grad"), guard, ("6.3",),
                lambda out, *a: None if finite(*(to_array(p) for p in params))
                else "made a parameter NaN/inf",
            )  # fmt: skip
        else:
            optimizer = mg.optim.AdamW(model.parameters(), lr=LR)
        warmup = steps // 10
        if "7.1" in mine:
            lr_lambda = guard.wrap(
                ("7.1",), theirs("7.1")(warmup, steps),
                lambda out, step: None if finite(out) and out >= 0 else f"returned {out}",
            )  # fmt: skip
        else:  # minigenesis's own warmup + cosine factor
            probe = mg.optim.SGD([mg.zeros(1, requires_grad=True)], lr=1.0)
            lr_lambda = mg.optim.get_cosine_schedule_with_warmup(probe, warmup, steps).lr_lambdas[0]
        if isinstance(optimizer, mg.optim.Optimizer):
            scheduler = mg.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
        else:
            scheduler = _LambdaSchedule(optimizer, lr_lambda)
        if "9.5" in mine:
            scaler = guard.wrap(("9.5",), theirs("9.5"))()
            _wrap_methods(
                scaler, ("scale", "unscale_", "step", "update", "get_scale"), guard, ("9.5",)
            )
        else:
            scaler = mg.amp.GradScaler()

        history: list[float] = []
        path = Path(tmp) / "checkpoint"
        for _epoch in range(EPOCHS):
            model.train()
            order = mg.randperm(len(y_train))
            losses = []
            for start in range(0, len(y_train), BATCH):
                idx = order[start : start + BATCH]
                stats = train_step(
                    model, optimizer, scheduler, scaler, X_train[idx], y_train[idx], MAX_NORM
                )
                losses.append(float(stats["loss"]))
            history.append(sum(losses) / len(losses))
            _save(model, path, learner, mine, lessons, guard)
        state = _load(path, learner, mine, lessons, guard)
        _check_round_trip(model, state, mine)
        model.load_state_dict({k: mg.tensor(v) for k, v in state.items()})
        val_loss, val_acc = evaluate(model, X_val, y_val)
    return RunResult(float(val_acc), float(val_loss), history, guard.calls)


def _checkpoint_pieces(mine: set[str]) -> tuple[str, ...]:
    return tuple(n for n in ("10.1", "10.2") if n in mine)


def _save(model, path: Path, learner: Learner, mine: set[str], lessons: Path, guard) -> None:
    """The epoch's checkpoint: the weights as NumPy arrays. A pickle written by 10.2's
    atomic_save when 10.1 or 10.2 is yours (so that your safe_loads reads it), else mg.save."""
    state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    if not _checkpoint_pieces(mine):
        mg.save(state, path)
        return
    ch10 = learner.modules.get("10") or _reference(lessons, "10")
    save = ch10.atomic_save if "10.2" in mine else _reference(lessons, "10").atomic_save
    guard.wrap(("10.2",), save)(state, path) if "10.2" in mine else save(state, path)


def _load(path: Path, learner: Learner, mine: set[str], lessons: Path, guard) -> dict:
    if not _checkpoint_pieces(mine):
        return mg.load(path)
    ch10 = learner.modules.get("10") or _reference(lessons, "10")
    data = path.read_bytes()
    if "10.1" in mine:
        return guard.wrap(("10.1",), ch10.safe_loads)(data)
    return _reference(lessons, "10").safe_loads(data)


def _check_round_trip(model, state: Any, mine: set[str]) -> None:
    """The checkpoint read back must hold exactly the weights that were saved."""
    pieces = _checkpoint_pieces(mine)
    if not pieces:
        return
    saved = model.state_dict()
    if not isinstance(state, dict) or set(state) != set(saved):
        raise PieceFailed(pieces, "the checkpoint read back does not hold the model's weights")
    for k, v in saved.items():
        if not np.array_equal(np.asarray(state[k]), v.detach().numpy()):
            raise PieceFailed(pieces, f"the checkpoint read back differs from the saved {k}")


# ----------------------------------------------------------------------------------------------
# Both runs, and the report
# ----------------------------------------------------------------------------------------------
@dataclass
class Comparison:
    learner: Learner
    used: list[str]  # the pieces of the learner's that trained
    failed: dict[str, str]  # piece -> why it was replaced by minigenesis's
    idle: list[str]  # the learner's pieces that never ran in this run
    mine: RunResult
    reference: RunResult
    seconds: float


def shapes_data(lessons: Path):
    X, y = _reference(lessons, "13").make_shapes(N_TRAIN + N_VAL, noise=0.3, seed=0)
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:]


def compare(
    lessons: Path,
    solutions: bool = False,
    learner: Learner | None = None,
    reference: RunResult | None = None,
) -> Comparison:
    """Train with the learner's pieces (dropping each that fails, and starting again), then
    with minigenesis alone (unless ``reference`` already holds that run)."""
    start = time.perf_counter()
    learner = learner or read_learner(lessons, solutions)
    data = shapes_data(lessons)
    mine, failed = set(learner.written), {}
    while True:
        try:
            result = train(lessons, learner, mine, data)
            break
        except PieceFailed as err:
            for n in err.numbers:
                failed[n] = err.why
                mine.discard(n)
    reference = reference or train(lessons, Learner(), set(), data)
    used = [n for n in learner.written if n in mine]
    walk = [n for n in ("2.3", "2.4") if n in mine]
    idle = [n for n in used if not result.calls[n] and not (n in walk and result.calls["2.4"])]
    idle += [n for n in walk if not result.calls[walk[-1]]]
    used = [n for n in used if n not in idle]
    return Comparison(learner, used, failed, sorted(set(idle), key=list(BY_NUMBER).index),
                      result, reference, time.perf_counter() - start)  # fmt: skip


def _names(numbers) -> str:
    return ", ".join(f"{n} {BY_NUMBER[n].name}" for n in numbers)


def report(c: Comparison) -> str:
    lines = [
        f"your engine: {len(c.used)} of {len(PIECES)} pieces"
        + (f" ({_names(c.used)})" if c.used else "")
    ]
    for chapter, why in c.learner.broken.items():
        lines.append(f"  chapter {int(chapter)} does not load ({why}): minigenesis's pieces ran")
    for n, why in c.failed.items():
        lines.append(f"  {n} {BY_NUMBER[n].name}: {why}; minigenesis's piece ran instead")
    for n in c.idle:
        why = "nothing in this run called it"
        if n == "3.4" and "4.1" in c.used:
            why = "the head is your 4.1 Linear layer, whose forward does not call F.linear"
        elif n == "3.2":
            why = "no gradient in this run needed summing back"
        lines.append(f"  {n} {BY_NUMBER[n].name}: yours, but {why}")
    todo = [p.number for p in PIECES if p.number not in c.learner.written]
    if todo:
        lines.append(f"not yet yours (minigenesis's ran): {_names(todo)}")
    lines.append(
        f"validation accuracy {c.mine.val_acc:.1%} (reference {c.reference.val_acc:.1%}), "
        f"validation loss {c.mine.val_loss:.3f} (reference {c.reference.val_loss:.3f})"
    )
    gap = abs(c.mine.val_acc - c.reference.val_acc)
    if c.used and gap <= 0.02:
        lines.append("Your pieces train the capstone as minigenesis does.")
    elif c.used:
        lines.append(
            "Your pieces train differently from minigenesis's: run `python -m minigenesis "
            "lessons` to see which fail their checks."
        )
    lines.append(f"({c.seconds:.1f} s: two runs of chapter 13's training, 4 epochs each)")
    return "\n".join(lines)


def main(
    argv: list[str] | None = None,
    lessons: Path | None = None,
    parser_class: type[argparse.ArgumentParser] = argparse.ArgumentParser,
) -> int:
    parser = parser_class(
        prog="python -m minigenesis lessons capstone",
        description="Train chapter 13's capstone with the engine pieces you have written "
        "(the rest from minigenesis), then with minigenesis alone, and compare.",
    )
    parser.add_argument(
        "--mine",
        action="store_true",
        help="required: train with your pieces (without it, this help)",
    )
    parser.add_argument(
        "--path", help="the lessons folder (default: ./lessons, else this checkout's lessons/)"
    )
    parser.add_argument(
        "--solutions", action="store_true", help="the reference answers as your pieces"
    )
    args = parser.parse_args(argv)
    if not args.mine:
        parser.print_help()
        return 2
    lessons = Path(args.path).resolve() if args.path else lessons
    missing = _missing_chapters(lessons)
    if missing:
        print(f"error: {lessons} is not the course's lessons folder: it lacks chapter(s) "
              f"{', '.join(missing)} (pass --path lessons/)", file=sys.stderr)  # fmt: skip
        return 2
    solutions = args.solutions or _course.solutions_mode()
    print(report(compare(lessons, solutions)))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main(lessons=Path(__file__).resolve().parent))
