"""The command line: ``python -m minigenesis <command>`` (or the ``minigenesis`` script).

    python -m minigenesis train [--epochs N --batch-size B --lr LR --accum-steps K --clip C
                                 --amp/--no-amp --dtype bfloat16|float16 --device cpu|cuda
                                 --seed S --out DIR --resume PATH_OR_DIR --quiet]
    python -m minigenesis plot-lr --scheduler cosine_warmup --steps 1000 --out lr.png
    python -m minigenesis lessons [chapters...]      (also: lessons reset CHAPTER, lessons update,
                                                      lessons capstone --mine)
    python -m minigenesis doctor

``main(argv)`` returns the exit status instead of exiting, so tests can call it directly.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import sys
from pathlib import Path
from typing import NoReturn

from .. import version
from .doctor import run as doctor
from .job import add_train_arguments, run
from .output import OutputError, guarded_stdout
from .schedules import SCHEDULES, schedule_factory


class _OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option is one line naming it (and its value), exit status 2, with no
    usage dump before it. (Subcommands' parsers are of this class too: add_subparsers uses the
    class of its parser.)"""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see: {self.prog} --help)\n")


PROG = "python -m minigenesis"


def _parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(
        prog=PROG,
        description="minigenesis: an educational deep-learning engine with PyTorch's API.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"minigenesis {version.package} (PyTorch {version.api}'s API)",
    )
    sub = parser.add_subparsers(dest="command", metavar="command")
    train = sub.add_parser(
        "train",
        help="train the default model (an MLP on 3-class spirals) with AMP, clipping, "
        "accumulation, warm-up + cosine, checkpoints and TensorBoard logs",
        description="Train an MLP on generated 3-class spirals with everything the course "
        "teaches. Writes metrics.csv, tensorboard/, loss.png, lr.png, grad_flow.png and "
        "checkpoints/ into --out.",
    )
    add_train_arguments(train)
    plot = sub.add_parser(
        "plot-lr",
        help="draw a learning-rate schedule into a PNG",
        description="Draw the learning rate of a scheduler over N steps.",
    )
    plot.add_argument("--scheduler", help="schedule name, required (--list shows them)")
    plot.add_argument("--steps", type=int, default=1000, help="steps to draw (default 1000)")
    plot.add_argument("--lr", type=float, default=1e-3, help="base learning rate (default 1e-3)")
    plot.add_argument("--warmup", type=int, help="warm-up steps (default steps/10)")
    plot.add_argument("--out", default="lr_schedule.png", help="PNG file (default lr_schedule.png)")
    plot.add_argument("--log", action="store_true", help="logarithmic y axis")
    plot.add_argument("--list", action="store_true", help="list the schedule names and exit")
    sub.add_parser(
        "doctor",
        help="versions, the device, and CPU/GPU agreement checks (matmul, a training step)",
        description="Print the NumPy/CuPy/CUDA versions and the device, then check a matmul in "
        "float32/float16/bfloat16 and a small training step on each device against the CPU.",
    )
    lessons = sub.add_parser(
        "lessons", help="the course: your exercises done / total; `lessons reset NN` starts a "
        "chapter over, `lessons update` adds a newer course's exercises to your files, "
        "`lessons capstone --mine` trains the capstone with your own engine's pieces",
        add_help=False,
    )  # fmt: skip
    lessons.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


# The course and its progress tool live in lessons/ of the source checkout, next to the package;
# an installed package has no course.
LESSONS_DIR = Path(__file__).resolve().parents[2] / "lessons"

MAX_PLOT_STEPS = 1_000_000  # about ten seconds of scheduler steps


def _check_plot_lr(args: argparse.Namespace) -> None:
    """ValueError naming the first bad ``plot-lr`` option (before any work is done)."""
    if not 1 <= args.steps <= MAX_PLOT_STEPS:
        raise ValueError(f"--steps must lie in [1, {MAX_PLOT_STEPS}], got {args.steps}")
    if not (math.isfinite(args.lr) and 0 < args.lr <= 1e6):
        raise ValueError(f"--lr must be a positive finite number at most 1e6, got {args.lr}")
    out = args.out
    if out == "":
        raise ValueError("--out is empty; name a PNG file")
    if os.path.isdir(out):
        raise ValueError(f"--out {out} is a directory; name a file such as {out}/lr.png")
    folder = os.path.dirname(out) or "."
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"--out {out}: {folder} is a file, not a folder")
    if not os.path.isdir(folder):
        raise ValueError(f"--out {out}: the folder {folder} does not exist")


def _plot_lr(args: argparse.Namespace) -> int:
    # start-up time: matplotlib loads only for the command that draws
    from ..viz import plot_lr_schedule

    if args.list or not args.scheduler:
        if not args.list:
            print("error: plot-lr needs --scheduler NAME; the names are:", file=sys.stderr)
        for name, (about, _) in SCHEDULES.items():
            print(f"  {name:16s} {about}", file=sys.stdout if args.list else sys.stderr)
        return 0 if args.list else 2
    try:
        _check_plot_lr(args)
        factory = schedule_factory(args.scheduler, args.steps, args.warmup)
        fig = plot_lr_schedule(factory, args.steps, base_lr=args.lr, log_scale=args.log,
                               title=f"{factory.__name__} ({args.steps} steps)")  # fmt: skip
    except (ValueError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    try:
        # the format named, always: given a name without an extension, matplotlib would write
        # "<name>.png" instead of the file asked for (and named in the line printed below)
        extension = os.path.splitext(args.out)[1][1:].lower()
        fig.savefig(args.out, dpi=100, format=extension or "png")
    except (ValueError, OSError) as err:  # an unknown file type, a folder one cannot write in
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        print(f"error: --out {args.out}: {reason}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} ({factory.__name__}, {args.steps} steps, base lr {args.lr:g})")
    return 0


def _lessons(rest: list[str]) -> int:
    tool = LESSONS_DIR / "_progress.py"
    if not tool.is_file():
        print(f"no lessons here: {tool} is missing (the course comes with the source checkout)")
        return 1
    spec = importlib.util.spec_from_file_location("_progress", tool)
    progress = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = progress  # dataclasses look their module up while a class is built
    spec.loader.exec_module(progress)
    try:
        return int(progress.main(rest, parser_class=_OneLineParser) or 0)
    except SystemExit as exit_:  # its argparse exits on --help and on bad options (one line)
        return int(exit_.code or 0)


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns its exit status (0 success, 2 usage error, 130 Ctrl-C)."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # Ctrl-C outside a training loop (which saves and returns itself)
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `python -m minigenesis train | head`: the reader left; stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (so the exit flush does not fail)
        return 141
    except OutputError as err:  # `> log` on a full disk: one line, not a traceback
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        print(f"error: cannot write to standard output ({err.strerror}); the run's files hold "
              "what was done", file=sys.stderr)  # fmt: skip
        return 1


def _main(argv: list[str] | None) -> int:
    with guarded_stdout():
        return _command(argv)


def _command(argv: list[str] | None) -> int:
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "lessons":  # everything after it belongs to the lessons command
        return _lessons(argv[1:])
    try:
        args, unknown = parser.parse_known_args(argv)
    except SystemExit as exit_:  # argparse exits on --help and on bad options
        return int(exit_.code or 0)
    if unknown:  # named here, with the subcommand's help (argparse would blame the top level)
        where = f"{PROG} {args.command}" if args.command else PROG
        print(f"error: unrecognized arguments: {' '.join(unknown)} (see: {where} --help)",
              file=sys.stderr)  # fmt: skip
        return 2
    if args.command is None:
        parser.print_help()
        return 0
    if args.command == "train":
        args.train_argv = argv[argv.index("train") + 1 :]  # passed on by train --nproc N
        return run(args)
    if args.command == "plot-lr":
        return _plot_lr(args)
    if args.command == "doctor":
        return doctor()
    return _lessons(args.rest)
