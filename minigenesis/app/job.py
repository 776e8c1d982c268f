"""``python -m minigenesis train``: options -> a Trainer -> a short summary, and clean errors.

Exit codes: 0 done; 1 training diverged (the loss became inf or NaN) or a file could not be written
(the checkpoints saved before stay as they were); 2 a problem with the options, ``--out`` or the
``--resume`` checkpoint (one line on stderr, no traceback, nothing written); 0 also for a
``--resume`` of a finished run, which trains nothing and says how to extend it; 130 stopped by
Ctrl-C, 143 by SIGTERM (a checkpoint was saved). In a data-parallel run (``--nproc N``), a process
that another one keeps waiting longer than ``--dist-timeout`` seconds (default 300, or
MINIGENESIS_DISTRIBUTED_TIMEOUT) ends with exit 1 and one line naming the collective and the rank
that did not come; the whole job is then stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NoReturn

from .. import backend, cuda
from .. import distributed as dist
from ..distributed._mpi import launched_world
from ..distributed.process_group import abort_job_at_exit
from ..distributed.run import main as launch
from ..distributed.run import max_processes
from ..distributed.timeouts import DistBackendError
from .config import FIXED_ON_RESUME, TrainConfig, describe_model
from .output import OutputError
from .ranks import agree
from .run_lock import RunDirInUse
from .state import (
    BEST,
    CHECKPOINT_DIR,
    LAST,
    TrainError,
    load_training_checkpoint,
    other_checkpoint_hint,
    resolve_resume,
    run_dir_of,
)  # fmt: skip

DEFAULTS = TrainConfig()
MAX_DIST_TIMEOUT = 365 * 24 * 3600.0


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``train`` options. Defaults are None here so a resumed run can tell which options
    were given on the command line."""
    d = DEFAULTS
    a = parser.add_argument
    a("--epochs", type=int, help=f"epochs to train (default {d.epochs})")
    a("--batch-size", type=int, help=f"micro-batch size (default {d.batch_size})")
    a("--lr", type=float, help=f"peak learning rate of warm-up + cosine (default {d.lr})")
    a(
        "--accum-steps",
        type=int,
        help=f"micro-batches per optimizer step, gradient accumulation (default {d.accum_steps})",
    )
    a("--clip", type=float, help=f"max gradient norm, 0 = no clipping (default {d.clip})")
    a(
        "--amp",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="autocast + GradScaler mixed precision (default on)",
    )
    a("--dtype", choices=["bfloat16", "float16"], help=f"autocast dtype (default {d.dtype})")
    a("--device", help=f"cpu, cuda or cuda:N (default {d.device})")
    a("--seed", type=int, help=f"seed of data, split, weights and order (default {d.seed})")
    a("--samples", type=int, help=f"spiral points in all (default {d.samples})")
    a("--hidden", type=int, help=f"hidden width of the MLP (default {d.hidden})")
    a("--ckpt-every", type=int,
      help=f"periodic checkpoint every N epochs, 0 = none (default {d.ckpt_every})")  # fmt: skip
    a("--out", help="run directory (default runs/train-<date>-<time>)")
    a("--resume", metavar="PATH_OR_DIR",
      help="continue a run from its checkpoint or directory; with --epochs N beyond the run's "
      "own, extend it to N epochs (the schedule is stretched)")  # fmt: skip
    a("--quiet", action="store_true", help="no progress bar, no per-epoch lines")
    a("--nproc", type=int, default=1,
      help="data-parallel processes (default 1): each takes batch-size/N of every batch, and "
      "DistributedDataParallel averages the gradients (needs the distributed extra)")  # fmt: skip
    a("--dist-timeout", type=float, metavar="SECONDS",
      help="with --nproc: how long a process waits for the others in a collective before the "
      "job stops with an error (default 300, or MINIGENESIS_DISTRIBUTED_TIMEOUT)")  # fmt: skip
    a("--interrupt-at-step", type=int, help=argparse.SUPPRESS)  # tests: act as Ctrl-C there


def _given(args: argparse.Namespace) -> dict[str, Any]:
    keys = [f for f in DEFAULTS.to_dict() if hasattr(args, f)]
    return {k: getattr(args, k) for k in keys if getattr(args, k) is not None}


def _holds_run(folder: Path) -> bool:
    return (folder / CHECKPOINT_DIR / LAST).exists() or (folder / "metrics.csv").exists()


def _default_out() -> Path:
    base = Path("runs") / datetime.now().strftime("train-%Y%m%d-%H%M%S")
    out, n = base, 1
    while out.exists():
        n += 1
        out = base.with_name(f"{base.name}-{n}")
    return out


def _check_device(device: str) -> None:
    try:
        dev = backend.device(device)
    except (ValueError, TypeError) as err:
        raise TrainError(f"--device: {err}") from None
    if dev.type == "meta":  # a valid device for tensors, but one that computes nothing
        raise TrainError(f"--device {device}: a meta tensor has a shape but no values, so "
                         "nothing can train on it; use --device cpu or cuda")  # fmt: skip
    if dev.type == "cuda" and not cuda.is_available():
        raise TrainError(f"--device {device}: CUDA is not available here (needs CuPy and a GPU); "
                         "use --device cpu")  # fmt: skip


def _check_out(out: Path) -> None:
    """TrainError unless ``out`` is (or can become) a directory; nothing is created here."""
    if out.exists() and not out.is_dir():
        raise TrainError(f"--out {out} is a file; name a directory")
    parent = out
    while not parent.exists():  # the nearest folder that exists must let us create inside it
        if parent.is_symlink():  # a link to nothing: mkdir would fail with "File exists"
            raise TrainError(f"--out {out}: {parent} is a symbolic link to {os.readlink(parent)}, "
                             "which does not exist")  # fmt: skip
        parent = parent.parent
    if not parent.is_dir():
        raise TrainError(f"--out {out}: {parent} is a file, not a directory")
    target = out / CHECKPOINT_DIR if (out / CHECKPOINT_DIR).is_dir() else parent
    if not os.access(target, os.W_OK | os.X_OK):
        raise TrainError(f"--out {out}: cannot write in {target} (permission denied)")
    for name in (LAST, BEST):  # the run would replace them, and saving refuses read-only files
        file = out / CHECKPOINT_DIR / name
        if file.is_file() and not (file.stat().st_mode & 0o222 and os.access(file, os.W_OK)):
            raise TrainError(f"--out {out}: {file} is read-only, and the run would replace it")


def _check_path_name(option: str, value: str | None) -> None:
    """TrainError for a path the OS will not even look up (a name over 255 bytes, a path over
    4096, a NUL byte): Path.exists() raises OSError for those instead of answering False."""
    if value is None:
        return
    shown = value if len(value) <= 100 else f"{value[:60]}...{value[-20:]} ({len(value)} chars)"
    try:
        os.stat(value)
    except (FileNotFoundError, NotADirectoryError):
        return  # fine: --out may be created, and --resume says "no such file" itself
    except (OSError, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise TrainError(f"--{option} {shown}: {reason}") from None


# What a run writes into --out: files, and the folders of its TensorBoard logs and checkpoints.
RUN_FILES = ("metrics.csv", "loss.png", "lr.png", "grad_flow.png", f"{CHECKPOINT_DIR}/{LAST}",
             f"{CHECKPOINT_DIR}/{BEST}")  # fmt: skip
RUN_FOLDERS = ("tensorboard",)


def make_run_dir(out: Path) -> None:
    """Create the run directory (and checkpoints/); an OSError becomes a TrainError, and so
    does a folder where the run writes a file, or a file where it makes a folder (found before
    training, not when the files are written at the end of the run)."""
    for name in RUN_FILES:
        if (out / name).is_dir():
            raise TrainError(f"--out {out}: {out / name} is a folder; the run writes a file there")
    for name in RUN_FOLDERS:
        if (out / name).exists() and not (out / name).is_dir():
            raise TrainError(f"--out {out}: {out / name} is a file; the run makes a folder there")
    try:
        (out / CHECKPOINT_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as err:  # name what is in the way when it is not --out itself
        what = "it" if err.filename in (None, str(out)) else f"the folder {err.filename}"
        raise TrainError(f"--out {out}: cannot create {what} ({err.strerror or err})") from None


def prepare(args: argparse.Namespace) -> tuple[TrainConfig, Path, dict | None]:
    """Config, run directory and checkpoint from the options; TrainError if anything is off.
    Nothing is written here: a failed ``--resume`` leaves every file as it was."""
    given = _given(args)
    for option, what in (("out", "a directory"), ("resume", "a checkpoint or run directory")):
        if getattr(args, option) == "":  # an empty value would silently mean "not given"
            raise TrainError(f"--{option} is empty; name {what}")
        _check_path_name(option, getattr(args, option))
    if args.resume:
        path = resolve_resume(args.resume)
        ckpt = load_training_checkpoint(path)
        saved = ckpt["config"]
        try:
            TrainConfig.from_dict(saved).validate()
        except (ValueError, TypeError) as err:
            raise TrainError(f"cannot resume from '{path}': its settings are invalid ({err})") \
                from None  # fmt: skip
        for key in FIXED_ON_RESUME:
            if key in given and key in saved and given[key] != saved[key]:
                raise TrainError(
                    f"--{key.replace('_', '-')} {given[key]} differs from the resumed run's "
                    f"{saved[key]}; a resumed run keeps its settings (only --epochs, --device, "
                    "--ckpt-every, --out and --quiet may change)"
                )
        config = TrainConfig.from_dict({**saved, **given})
        run_dir = run_dir_of(path)
        out = Path(args.out) if args.out else run_dir
        if out.resolve() != run_dir.resolve() and _holds_run(out):
            raise TrainError(f"--out {out} already holds another run; choose an empty directory")
    else:
        config, ckpt = TrainConfig(**given), None
        out = Path(args.out) if args.out else _default_out()
        if _holds_run(out):
            if (out / CHECKPOINT_DIR / LAST).exists():
                raise TrainError(f"--out {out} already holds a run; continue it with --resume "
                                 f"{out} or choose another --out")  # fmt: skip
            # a run stopped before its first last.pth: --resume of the folder cannot work either
            raise TrainError(
                f"--out {out} already holds a run's files but no {CHECKPOINT_DIR}/{LAST} to "
                f"continue it from{other_checkpoint_hint(out)}; choose another --out, or "
                f"delete {out} to start the run over"
            )
    try:
        config.validate()
    except ValueError as err:
        raise TrainError(str(err)) from None
    if ckpt is not None and config.epochs < ckpt["epoch"]:
        raise TrainError(f"--epochs {config.epochs} is fewer than the {ckpt['epoch']} epochs the "
                         "resumed run has done")  # fmt: skip
    _check_out(out)
    _check_device(config.device)
    if ckpt is not None and config.device != "cpu":  # optimizer state must live with the weights
        ckpt = load_training_checkpoint(path, map_location=config.device)
    return config, out, ckpt


def _launched_world() -> int:
    """How many processes this one was started among (1 unless by mpiexec / the launcher);
    TrainError for a WORLD_SIZE that is not a positive integer, or > 1 without a launcher."""
    try:
        world = launched_world()
    except ValueError:
        raise TrainError("the MPI launcher's PMI_RANK / PMI_SIZE are not integers") from None
    if world is not None:
        return world[1]
    value = os.environ.get("WORLD_SIZE") or "1"
    try:
        size = int(value)
    except ValueError:
        raise TrainError(f"WORLD_SIZE={value!r} is not an integer (unset it, or use "
                         "--nproc N)") from None  # fmt: skip
    if size < 1:
        raise TrainError(f"WORLD_SIZE={value} must be at least 1 (unset it, or use --nproc N)")
    if size > 1:
        raise TrainError(
            f"WORLD_SIZE={size} but this process was not started by an MPI launcher (PMI_RANK "
            f"and PMI_SIZE are not set): run python -m minigenesis train --nproc {size}, or "
            "unset WORLD_SIZE"
        )
    return 1


def _dist_timeout(args: argparse.Namespace) -> timedelta | None:
    seconds = getattr(args, "dist_timeout", None)
    if seconds is None:
        return None
    if not (seconds > 0 and seconds != float("inf")):
        raise TrainError(f"--dist-timeout must be a positive number of seconds, got {seconds}")
    if seconds > MAX_DIST_TIMEOUT:  # timedelta itself stops near 8.6e13 s, with OverflowError
        raise TrainError(f"--dist-timeout must be at most {MAX_DIST_TIMEOUT:g} seconds (a year), "
                         f"got {seconds:g}")  # fmt: skip
    return timedelta(seconds=seconds)


def _check_nproc(args: argparse.Namespace, config: TrainConfig) -> None:
    n = args.nproc
    if not isinstance(n, int) or n < 1:
        raise TrainError(f"--nproc must be a positive integer, got {n}")
    if n > max_processes():
        raise TrainError(f"--nproc {n} is more processes than this machine can run: at most "
                         f"{max_processes()} (4 per CPU core, at least 64)")  # fmt: skip
    world = max(n, _launched_world())
    if config.batch_size % world:
        raise TrainError(
            f"--batch-size {config.batch_size} must be divisible by the number of processes "
            f"({world}): each takes an equal share of every batch"
        )


def _launch(args: argparse.Namespace, out: Path) -> int:
    """Run this same ``train`` command in ``--nproc`` processes (minigenesis.distributed.run):
    the options are passed on, with ``--out`` fixed here so that every process uses one folder."""
    if not dist.is_available():
        raise TrainError('--nproc needs mpi4py and MPI: pip install -e ".[distributed]"')
    argv, skip = [], False
    for item in getattr(args, "train_argv", []):
        if skip:
            skip = False
        elif item in ("--nproc", "--out"):
            skip = True
        elif not item.startswith(("--nproc=", "--out=")):
            argv.append(item)
    return launch(["--nproc-per-node", str(args.nproc), "-m", "minigenesis", "train", *argv,
                   "--out", str(out)])  # fmt: skip


def run(args: argparse.Namespace) -> int:
    """The ``train`` subcommand (with ``--nproc N``: in N data-parallel processes)."""
    if not hasattr(args, "nproc"):
        args.nproc = 1
    try:
        world, timeout = _launched_world(), _dist_timeout(args)
        if args.nproc != 1 and world == 1:
            config, out, _ = prepare(args)  # option errors are reported once, here
            _check_nproc(args, config)
            return _launch(args, out)
        if world > 1:  # one of the data-parallel processes: join the group
            device = args.device or DEFAULTS.device
            backend = "nccl" if device.startswith("cuda") else "mpi"
            try:
                dist.init_process_group(backend, timeout=timeout)
            except (ValueError, TypeError, RuntimeError, ImportError) as err:
                raise TrainError(str(err)) from None
            except KeyboardInterrupt:
                _end_job_interrupted(joined=False)
    except TrainError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if world == 1:
        return _run(args)
    started: list = []  # the Trainer, once _run has built it
    try:  # only rank 0 prints
        if dist.get_rank() == 0:
            return _run(args, started)
        with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
            return _run(args, started)
    except DistBackendError as err:  # the job is aborted (every process stopped) at exit
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # after the loop took SIGINT over, the ranks stopped together (rank 0 may still be
        # saving, and a second Ctrl-C must not cut that short): only the start-up ends the job
        if not (started and started[0].sigint_taken_over):
            _end_job_interrupted(joined=True)
        raise
    finally:
        dist.destroy_process_group()


def _end_job_interrupted(joined: bool) -> NoReturn:
    """A Ctrl-C that reached this data-parallel process before its training loop took SIGINT over
    (the loop stops with the others at a step they agree on): while this process was still
    starting (joining the group, agreeing on the settings, building the model).

    The other processes may already wait for this one, in a collective or inside MPI_Init (which
    holds them in C until every process has called it), and would wait for the whole
    --dist-timeout; so the whole job ends now. No optimizer step can have run without this
    process, so there is nothing to save. In the group: MPI_Abort at exit (the launcher stops
    every process). Before it: MPI cannot abort, so this process ends as an uncaught Ctrl-C ends
    Python, killed by SIGINT, and mpiexec then stops every other process."""
    rank = os.environ.get("RANK") or os.environ.get("PMI_RANK", "?")
    print(f"interrupted while rank {rank} was starting (no step was trained, nothing to save): "
          "stopping every process of the job", file=sys.stderr)  # fmt: skip
    if joined:
        abort_job_at_exit()
        raise KeyboardInterrupt  # the command line ends with 130, then the job is aborted
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)  # (the signal is delivered at once; this is never reached)
    raise KeyboardInterrupt


def _run(args: argparse.Namespace, started: list | None = None) -> int:
    # start-up time: option errors are reported before the trainer (tqdm, TensorBoard) loads
    from ..diagnostics import diagnose_training
    from .trainer import Diverged, Trainer

    try:
        config, out, ckpt = prepare(args)
        _check_nproc(args, config)
        if dist.is_initialized() and dist.get_world_size() > 1:  # the same run on every rank
            config = agree(config, ckpt["step"] if ckpt is not None else 0)
        trainer = Trainer(config, out, ckpt, quiet=args.quiet,
                          interrupt_at_step=args.interrupt_at_step)  # fmt: skip
        if started is not None:
            started.append(trainer)
        if _nothing_left(args, config, ckpt):  # the checkpoint fits (Trainer checked it)
            if trainer.is_main and _holds_run(out) and trainer.repair_best():
                print(f"  rewrote {out / CHECKPOINT_DIR / BEST}: it did not hold the best epoch")
            return 0
        make_run_dir(out)
    except TrainError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    c = config
    amp = f"autocast {c.dtype} + GradScaler" if c.amp else "float32 (no autocast)"
    resumed = f", resumed at step {trainer.step}" if ckpt else ""
    print(f"minigenesis train -> {out}{resumed}")
    if ckpt is not None:
        print(f"  resume {_resume_semantics(trainer)}")
    if not args.quiet:
        print(
            f"  data   {c.classes}-class spirals: {len(trainer.train_ds)} train / "
            f"{len(trainer.val_ds)} validation points (generated, seed {c.seed})"
        )
        print(f"  model  {describe_model(trainer.model, c)}")
        print(f"  setup  AdamW lr {c.lr:g} (warm-up {c.warmup_ratio:.0%} + cosine), batch "
              f"{c.batch_size} x {c.accum_steps} accumulation, clip {c.clip}, {amp}, "
              f"device {c.device}"
              + (f" x {trainer.world} processes" if trainer.world > 1 else ""))  # fmt: skip
    started = time.perf_counter()
    try:
        finished = trainer.fit()
    except Diverged as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except RunDirInUse as err:  # nothing was written
        print(f"error: {err}", file=sys.stderr)
        if trainer.world > 1:  # only rank 0 holds the folder: the others wait in a collective,
            abort_job_at_exit()  # so the job ends at once when this process exits
        return 2
    except (BrokenPipeError, OutputError):
        raise  # the output failed, not the run's files: the command line says so
    except OSError as err:  # disk full, a file made read-only meanwhile: saved files stay whole
        print(f"error: cannot write the run's files: {err}", file=sys.stderr)
        if trainer.world > 1:  # (as above: only rank 0 writes)
            abort_job_at_exit()
        return 1
    elapsed = time.perf_counter() - started
    if not finished:
        return 128 + trainer.stop_signal  # 130 after Ctrl-C, 143 after SIGTERM, 129 SIGHUP
    h, best = trainer.history, trainer.best
    epochs = f"{trainer.epoch} epoch{'' if trainer.epoch == 1 else 's'}"
    steps = f"{trainer.step} optimizer step{'' if trainer.step == 1 else 's'}"
    print(f"done: {epochs}, {steps} in {elapsed:.1f} s")
    if h["val_acc"]:
        print(f"  validation accuracy {h['val_acc'][-1]:.2%} (loss {h['val_loss'][-1]:.4f}); "
              f"best {best['val_acc']:.2%} at epoch {best['epoch']}")  # fmt: skip
    if len(h["train_loss"]) >= 10:
        diagnosis = diagnose_training(h["train_loss"], h["val_loss"])
        found = "; ".join(f"{f.kind} ({f.message})" for f in diagnosis.findings) or "healthy"
        print(f"  diagnosis: {found}")
    print(f"  wrote {out}/: metrics.csv, loss.png, lr.png, grad_flow.png, "
          f"tensorboard/, "
          f"checkpoints/ ({LAST}, best_model.pth)")  # fmt: skip
    print(f"  view:  tensorboard --logdir {out / 'tensorboard'}")
    return 0


def _nothing_left(args: argparse.Namespace, config: TrainConfig, ckpt: dict | None) -> bool:
    """A ``--resume`` of a run that has done all its epochs: say so in one line (how to extend
    it) and return True; the caller then ends with exit 0, having written nothing."""
    if ckpt is None or ckpt["epoch"] < config.epochs:
        return False
    n, run = config.epochs, args.resume
    print(f"nothing left to train: {run} has done all {n} of its epochs; to train it further, "
          f"add --epochs N with N > {n}, e.g. --resume {run} --epochs {2 * n}")  # fmt: skip
    return True


def _resume_semantics(trainer) -> str:
    """What a resumed run does, in one line: continue exactly, or extend to more epochs."""
    epochs, total = trainer.config.epochs, trainer.total_steps
    if trainer.extended_from is None:
        return (f"continues exactly: the same {epochs}-epoch schedule, data order and random "
                f"state, as if it had not stopped (step {trainer.step} of {total})")  # fmt: skip
    new_lr = trainer.optimizer.param_groups[0]["lr"]
    return (f"extends the run from {trainer.extended_from} to {epochs} epochs: warm-up + cosine "
            f"is stretched to {total} steps, so the learning rate goes from "
            f"{trainer.resumed_lr:.2e} to {new_lr:.2e} at step {trainer.step} and decays to 0 "
            f"at epoch {epochs} (not the run a {epochs}-epoch start would give)")  # fmt: skip
