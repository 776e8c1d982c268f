"""The main job's training loop: everything the course teaches, in one place.

One optimizer step (``_train_epoch``)::

    for each of accum_steps micro-batches:
        with autocast(device, dtype):               # matmuls in bfloat16, loss in float32
            loss = criterion(model(x), y)
        scaler.scale(loss / accum_steps).backward()  # gradients add up over the micro-batches
    scaler.unscale_(optimizer)                       # true gradients, so clipping sees them
    grad_norm = clip_grad_norm_(params, clip)
    scaler.step(optimizer); scaler.update()          # skips the step if a gradient is inf/NaN
    optimizer.zero_grad(); scheduler.step()          # warm-up + cosine, per optimizer step

After each epoch: validation, metrics (CSV + TensorBoard), the last/best/periodic checkpoints.
Ctrl-C asks the loop to stop at the next optimizer step; it saves ``last.pth`` there and returns.
A second Ctrl-C stops at once. Neither can split an optimizer step or a checkpoint write: those
run as units that hold Ctrl-C until they are complete (``signals.py``). SIGTERM (what a job
scheduler or ``kill`` sends) stops the same way as a first Ctrl-C; a second SIGTERM changes
nothing, so that no signal but SIGKILL can cut the final save short. SIGHUP (the terminal or
SSH session closed) stops as SIGTERM does, unless it is ignored (``nohup``).
"""

from __future__ import annotations

import contextlib
import csv
import math
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import distributed as dist
from .. import nn, optim
from ..amp import GradScaler, autocast
from ..autograd import no_grad
from ..creation import tensor
from ..diagnostics import GradFlowSummary, grad_norms, total_grad_norm
from ..dtypes import float64
from ..kernels.memory import keep_freed_memory
from ..nn.parallel import DistributedDataParallel
from ..random import Generator, get_rng_state, manual_seed, set_rng_state
from ..utils.data import DataLoader, DistributedSampler
from ..utils.progress import progress
from ..utils.tensorboard import SummaryWriter  # imports tensorboardX: see _fit
from ..utils.threads import blas_threads
from . import state
from .config import TrainConfig, build_datasets, build_model
from .run_lock import hold_run_dir
from .signals import sigint_deferred

METRIC_FIELDS = ["epoch", "step", "train_loss", "train_acc", "val_loss", "val_acc", "lr",
                 "grad_norm", "loss_scale", "seconds"]  # fmt: skip

_SIGHUP = getattr(signal, "SIGHUP", None)  # (no SIGHUP on Windows)


class Interrupted(Exception):
    """Raised inside the loop when a stop was requested (Ctrl-C); caught by ``fit``."""


class Diverged(Exception):
    """The loss became inf or NaN: training stops, and no checkpoint is written from then on."""


class Trainer:
    """Builds the run from a config (and optionally a checkpoint), then ``fit()`` trains it."""

    def __init__(
        self,
        config: TrainConfig,
        out: Path,
        checkpoint: dict | None = None,
        quiet: bool = False,
        echo: Callable[[str], None] = print,
        interrupt_at_step: int | None = None,
    ) -> None:
        self.config, self.out, self.quiet, self.echo = config, out, quiet, echo
        self.interrupt_at_step = interrupt_at_step  # tests: act as if Ctrl-C came at this step
        c = config
        manual_seed(c.seed)
        self.train_ds, self.val_ds = build_datasets(c)
        self.model = build_model(c).to(c.device)
        # Data parallel (train --nproc N): N processes, each on its share of every batch; the
        # training forward goes through DDP, which averages the gradients during backward.
        self.world = dist.get_world_size() if dist.is_initialized() else 1
        self.rank = dist.get_rank() if dist.is_initialized() else 0
        self.is_main = self.rank == 0  # the one process that prints and writes files
        self.train_model = DistributedDataParallel(self.model) if self.world > 1 else self.model
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = optim.AdamW(self.model.parameters(), lr=c.lr, weight_decay=c.weight_decay)
        self.batches_per_epoch = math.ceil(len(self.train_ds) / c.batch_size)
        self.steps_per_epoch = math.ceil(self.batches_per_epoch / c.accum_steps)
        self.total_steps = c.epochs * self.steps_per_epoch
        warmup = max(1, int(c.warmup_ratio * self.total_steps))
        self.scheduler = optim.get_cosine_schedule_with_warmup(
            self.optimizer, warmup, self.total_steps
        )
        self.scaler = GradScaler(enabled=c.amp)
        # The position and what has been measured so far.
        self.epoch = self.step = self.batch_in_epoch = 0
        self.epoch_sums = [0.0, 0, 0]  # loss * n, correct, n over this epoch's micro-batches
        self.history: dict[str, list] = {k: [] for k in METRIC_FIELDS}
        self.lrs: list[float] = []
        self.best: dict[str, Any] = {"val_acc": -1.0, "epoch": None}
        self.grad_norm = float("nan")
        # Each parameter's gradient norm (before clipping) at every optimizer step, summed up for
        # grad_flow.png (steps, sum, max per parameter: a size that does not grow with the run);
        # saved in the checkpoints, so that a resumed run's plot covers the whole run.
        self.grad_flow = GradFlowSummary()
        self._stop_requested = False
        self.sigint_taken_over = False  # whether fit() has put its Ctrl-C handler in place
        self.stop_signal = signal.SIGINT  # what stopped fit(): SIGTERM/SIGHUP, else Ctrl-C
        self.extended_from: int | None = None  # a resumed run's epochs when --epochs extends it
        self.resumed_lr: float | None = None
        if checkpoint is not None:
            self._restore(checkpoint)
        self._mark_boundary()

    # ------------------------------------------------------------------ state
    def _restore(self, ckpt: dict) -> None:
        parts = {
            "model_state_dict": self.model,
            "optimizer_state_dict": self.optimizer,
            "scheduler_state_dict": self.scheduler,
            "scaler_state_dict": self.scaler,
        }
        own = {key: part.state_dict() for key, part in parts.items()}
        own["rng_state"] = get_rng_state()
        state.check_fits(ckpt, own, list(self.model.parameters()), self.batches_per_epoch,
                      METRIC_FIELDS)  # fmt: skip
        try:
            for key, part in parts.items():
                part.load_state_dict(ckpt[key])
            set_rng_state(ckpt["rng_state"])
        except Exception as err:  # whatever else an edited file holds: no traceback, no run
            raise state.TrainError(f"cannot resume: the checkpoint does not fit this run ({err})") \
                from None  # fmt: skip
        self.epoch, self.step = ckpt["epoch"], ckpt["step"]
        self.batch_in_epoch = ckpt["batch_in_epoch"]
        self.epoch_sums = list(ckpt.get("epoch_sums", [0.0, 0, 0]))
        self.history = {k: list(ckpt["history"][k]) for k in METRIC_FIELDS}
        self.lrs = list(ckpt.get("lrs", []))
        self.best = dict(ckpt.get("best", self.best))
        self.grad_norm = float(ckpt.get("grad_norm", self.grad_norm))  # the epoch's row shows it
        if "grad_flow" in ckpt:  # (older checkpoints lack it: the plot covers the steps since)
            self.grad_flow = GradFlowSummary(ckpt["grad_flow"])
        # --epochs beyond the saved run's: EXTEND it. The schedule is the one of the new length
        # (rebuilt above), so from this step on the learning rate is what that schedule has here;
        # the optimizer still holds the old schedule's rate, which would be used for one step.
        saved_epochs = int(ckpt.get("config", {}).get("epochs", self.config.epochs))
        self.resumed_lr = self.optimizer.param_groups[0]["lr"]
        self.extended_from = saved_epochs if saved_epochs != self.config.epochs else None
        if self.extended_from is not None:
            lrs = [base * fn(self.step) for fn, base in
                   zip(self.scheduler.lr_lambdas, self.scheduler.base_lrs)]  # fmt: skip
            for group, lr in zip(self.optimizer.param_groups, lrs):
                group["lr"] = lr
            self.scheduler._last_lr = list(lrs)

    def _mark_boundary(self) -> None:
        """Remember the position at an optimizer-step boundary, where the run is consistent.

        A KeyboardInterrupt can land anywhere (mid-accumulation, mid-validation); the checkpoint
        it triggers describes this boundary instead. The weights cannot have changed since: only
        an optimizer step changes them, and it ends by calling this.
        """
        self._boundary = {
            "epoch": self.epoch, "step": self.step, "batch_in_epoch": self.batch_in_epoch,
            "epoch_sums": list(self.epoch_sums), "rng_state": get_rng_state(),
            "history": {k: list(v) for k, v in self.history.items()}, "lrs": list(self.lrs),
            "best": dict(self.best), "grad_norm": self.grad_norm,
            "grad_flow": self.grad_flow.state_dict(),
        }  # fmt: skip

    def state_dict(self) -> dict[str, Any]:
        """Everything ``--resume`` needs, as of the last optimizer-step boundary."""
        b = self._boundary
        return {
            "model_state_dict": self.model.state_dict(),
            "optimizer_state_dict": self.optimizer.state_dict(),
            "scheduler_state_dict": self.scheduler.state_dict(),
            "scaler_state_dict": self.scaler.state_dict(),
            **b,
            "config": self.config.to_dict(),
            "best_loss": min(b["history"]["val_loss"], default=None),  # best-model examples read it
        }

    def repair_best(self) -> bool:
        """Rewrite ``best_model.pth`` when this checkpoint says it is the best but the file does
        not hold it (deleted, or left stale by a crash in a run that wrote last.pth first).
        Returns whether it was rewritten."""
        if not self.epoch or self.best.get("epoch") != self.epoch or self.batch_in_epoch:
            return False
        try:
            best = self.out / state.CHECKPOINT_DIR / state.BEST
            held = state.load_training_checkpoint(best)["step"]
        except state.TrainError:  # missing or unreadable
            held = None
        if held != self.step:
            self._save(state.BEST)
            return True
        return False

    def _save(self, name: str) -> Path:
        path = self.out / state.CHECKPOINT_DIR / name
        if self.is_main:  # the processes hold the same state: one of them writes it
            state.save_training_checkpoint(self.state_dict(), path)
        return path

    # ------------------------------------------------------------------ one epoch
    def _forward(self, xb: Any, yb: Any) -> tuple[Any, Any]:
        c = self.config
        model = self.train_model if self.model.training else self.model  # DDP only to train
        with autocast(device_type=self.device_type, dtype=c.dtype, enabled=c.amp):
            logits = model(xb)
            loss = self.criterion(logits, yb)
        return logits, loss

    def _train_epoch(self, writer: SummaryWriter, bar: Any) -> None:
        c = self.config
        self.model.train()
        # + epoch: this epoch's order. Kept below 2**64 - 2**20 so that seed + epoch stays a
        # valid 64-bit seed for any --seed up to 2**64 - 1 (unchanged below ~1.8e13).
        seed = c.seed * 1_000_003 % (2**64 - 2**20)
        # The epoch's shuffled order (seed + epoch), cut so that process r takes positions
        # r, r + N, ... of it: the N shares of batch i are together exactly batch i of a single
        # process (N = 1: the whole order). The loader's one draw per epoch (a base seed for
        # worker processes) comes from a private generator, not from the model's random stream.
        sampler = DistributedSampler(self.train_ds, self.world, self.rank, seed=seed)
        sampler.set_epoch(self.epoch)
        loader = DataLoader(self.train_ds, batch_size=c.batch_size // self.world,
                            sampler=sampler, generator=Generator())  # fmt: skip
        n_batches = self.batches_per_epoch
        step_loss = 0.0  # mean loss of the micro-batches of the current optimizer step
        part = [0.0, 0, 0]  # loss * n, correct, n over the micro-batches of the current step
        bad = None  # an inf/NaN training loss seen in this step
        for i, (xb, yb) in enumerate(loader):
            if i < self.batch_in_epoch:
                continue  # used before the run was stopped
            group_start = i - i % c.accum_steps
            group = min(c.accum_steps, n_batches - group_start)  # the last group may be short
            last = i + 1 - group_start == group
            xb, yb = xb.to(c.device), yb.to(c.device)
            # data parallel: micro-batches before the last of a step accumulate without syncing
            sync = contextlib.nullcontext() if last or self.world == 1 else \
                self.train_model.no_sync()  # fmt: skip
            with sync:
                logits, loss = self._forward(xb, yb)
                value = float(loss.item())
                if not math.isfinite(value):
                    bad = value
                    if self.world == 1:
                        raise Diverged(f"the training loss became {value} at step {self.step + 1}")
                self.scaler.scale(loss / group).backward()
            n = yb.shape[0]
            step_loss += value / group
            part = [part[0] + value * n, part[1] + int((logits.argmax(1) == yb).sum().item()),
                    part[2] + n]  # fmt: skip
            if last:
                agreed_stop = False
                if self.world > 1:
                    step_loss, part, bad, agreed_stop = self._share_step(step_loss, part, bad)
                if bad is not None:  # every process stops here, before the step
                    raise Diverged(f"the training loss became {bad} at step {self.step + 1}")
                self.epoch_sums = [a + b for a, b in zip(self.epoch_sums, part)]
                self._optimizer_step(writer, i + 1, step_loss)
                step_loss, part = 0.0, [0.0, 0, 0]
                bar.update(1)
                # data parallel: only the stop all processes agreed on before the step, or one
                # would leave while the others wait for it in the next step's all-reduce (a
                # Ctrl-C that lands after the agreement is carried to the next step's)
                stop = agreed_stop if self.world > 1 else self._stop_requested
                if stop or self.step == self.interrupt_at_step:
                    raise Interrupted

    def _share_step(self, step_loss: float, part: list, bad: float | None) -> tuple:
        """Data parallel: one all-reduce tells every process the step's loss and accuracy counts
        over all processes, whether any saw an inf/NaN loss, and whether any was asked to stop
        (Ctrl-C), so that all of them step, stop or report alike."""
        flags = [float(bad is not None), float(self._stop_requested)]
        shared = tensor([step_loss, *part, *flags], dtype=float64)
        dist.all_reduce(shared)
        total = shared.tolist()
        self._stop_requested = self._stop_requested or total[5] > 0
        bad_value = float("nan") if total[4] > 0 else None
        return (total[0] / self.world, [total[1], int(total[2]), int(total[3])], bad_value,
                total[5] > 0)  # fmt: skip

    def _stop_after_epoch(self) -> bool:
        """Whether to stop at the end of an epoch. Data parallel: a stop any process was asked
        for (one all-reduce), so that all of them stop at the same epoch or none does."""
        if self.world == 1:
            return self._stop_requested
        shared = tensor([float(self._stop_requested)], dtype=float64)
        dist.all_reduce(shared)
        agreed = shared.item() > 0
        # a Ctrl-C that landed while this process waited in the all-reduce was not in what it
        # sent: kept, it is carried to the next step's agreement (overwritten, it was lost, and
        # the job trained on)
        self._stop_requested = self._stop_requested or agreed
        return agreed

    def _optimizer_step(self, writer: SummaryWriter, batches_done: int, loss: float) -> None:
        c = self.config
        lr = self.optimizer.param_groups[0]["lr"]
        with sigint_deferred():  # all of it or none of it: see signals.py
            self.scaler.unscale_(self.optimizer)
            params = list(self.model.parameters())
            self.grad_flow.add(grad_norms(self.model))
            if c.clip > 0:
                self.grad_norm = float(nn.utils.clip_grad_norm_(params, c.clip))
            else:
                self.grad_norm = total_grad_norm(params)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
            self.scheduler.step()
            self.step += 1
            self.batch_in_epoch = batches_done
            self.lrs.append(lr)
            self._mark_boundary()
        writer.add_scalar("Loss/train_step", loss, self.step)
        writer.add_scalar("Learning_rate", lr, self.step)
        writer.add_scalar("Grad_norm", self.grad_norm, self.step)

    @no_grad()
    def evaluate(self) -> tuple[float, float]:
        """Mean loss and accuracy on the validation set."""
        c = self.config
        self.model.eval()
        total_loss = correct = count = 0
        # a private generator: the loader's per-pass draw must not move the model's random
        # stream (a resumed run replays it bit for bit)
        for xb, yb in DataLoader(self.val_ds, batch_size=512, generator=Generator()):
            xb, yb = xb.to(c.device), yb.to(c.device)
            logits, loss = self._forward(xb, yb)
            total_loss += float(loss.item()) * yb.shape[0]
            correct += int((logits.argmax(1) == yb).sum().item())
            count += yb.shape[0]
        return total_loss / count, correct / count

    def _end_epoch(self, writer: SummaryWriter, seconds: float) -> str:
        loss_sum, correct, n = self.epoch_sums
        train_loss, train_acc = loss_sum / max(n, 1), correct / max(n, 1)
        val_loss, val_acc = self.evaluate()
        if not math.isfinite(val_loss):  # before anything of this epoch is recorded or saved
            raise Diverged(f"the validation loss became {val_loss} after step {self.step}")
        self.epoch += 1
        row = {"epoch": self.epoch, "step": self.step, "train_loss": train_loss,
               "train_acc": train_acc, "val_loss": val_loss, "val_acc": val_acc,
               "lr": self.optimizer.param_groups[0]["lr"], "grad_norm": self.grad_norm,
               "loss_scale": self.scaler.get_scale() if self.config.amp else 1.0,
               "seconds": seconds}  # fmt: skip
        for key in METRIC_FIELDS:
            self.history[key].append(row[key])
        self.batch_in_epoch, self.epoch_sums = 0, [0.0, 0, 0]
        for tag, value in (
            ("Loss/train", train_loss),
            ("Loss/val", val_loss),
            ("Accuracy/train", train_acc),
            ("Accuracy/val", val_acc),
        ):
            writer.add_scalar(tag, value, self.step)  # the usual tags, x axis = optimizer step
        if self.is_main:
            self._write_metrics()
        is_best = val_acc > self.best["val_acc"]
        if is_best:
            self.best = {"val_acc": val_acc, "val_loss": val_loss, "epoch": self.epoch}
        self._mark_boundary()  # the epoch is complete: checkpoints below describe its end
        with sigint_deferred():  # the set of checkpoints is written whole (see signals.py)
            # last.pth goes last: a crash before it leaves the previous last.pth, whose resumed
            # run redoes this epoch and writes the same best and periodic files again.
            if is_best:
                self._save(state.BEST)
            if self.config.ckpt_every and self.epoch % self.config.ckpt_every == 0:
                self._save(state.periodic_name(self.epoch))
            self._save(state.LAST)
        return (f"epoch {self.epoch:3d}/{self.config.epochs}  train loss {train_loss:.4f} "
                f"acc {train_acc:6.2%} | val loss {val_loss:.4f} acc {val_acc:6.2%} | "
                f"lr {row['lr']:.2e} | {seconds:.1f}s")  # fmt: skip

    def _write_metrics(self) -> None:
        """metrics.csv from the whole history (rewritten, so a resumed run has no stale rows)."""
        path = self.out / "metrics.csv"
        tmp = path.with_suffix(".csv.tmp")
        with tmp.open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(METRIC_FIELDS)
            for i in range(len(self.history["epoch"])):
                w.writerow([_fmt(self.history[k][i]) for k in METRIC_FIELDS])
        os.replace(tmp, path)

    # ------------------------------------------------------------------ the run
    @property
    def device_type(self) -> str:
        return "cuda" if str(self.config.device).startswith("cuda") else "cpu"

    def fit(self) -> bool:
        """Train to the last epoch. Returns False if it stopped early (Ctrl-C), True otherwise;
        raises Diverged if the loss became inf or NaN (the checkpoints saved before stay as they
        were).

        On the CPU the BLAS pool is held to one thread: this model's matrices are small, and
        waiting BLAS threads on busy cores cost far more than they give (``utils/threads.py``).
        NumPy's overflow warnings are silenced: a diverging run is caught at its first inf/NaN
        loss and reported in one line instead. Freed host memory is kept for the next step
        (``kernels/memory.py``: no page faults per step, as PyTorch's caching allocator). The
        run directory is locked while it trains (``run_lock.py``: a second run into it raises
        RunDirInUse at once).
        """
        keep_freed_memory()
        threads = blas_threads(1) if self.device_type == "cpu" else contextlib.nullcontext()
        # the one process that writes the run holds its folder (RunDirInUse if another does)
        held = hold_run_dir(self.out) if self.is_main else contextlib.nullcontext()
        with held, threads, np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return self._fit()

    def _fit(self) -> bool:
        self.out.mkdir(parents=True, exist_ok=True)
        if not self.is_main:  # the other processes of a data-parallel run write nothing
            return self._fit_quietly()
        self.repair_best()
        # The writer's module (tensorboardX: 0.05 s, 1.5 s where it finds PyTorch installed and
        # imports it) loads with this module, on every rank before the first collective: rank 0
        # importing it here instead would keep the others waiting past a short --dist-timeout.
        writer = SummaryWriter(self.out / "tensorboard", purge_step=self.step + 1 if self.step
                               else None)  # fmt: skip
        if self.step == 0:
            writer.add_text("Hyperparameters", str(self.config.to_dict()), 0)
        restore_handler = self._install_sigint_handler()
        bar = progress(total=self.total_steps, desc="train", quiet=self.quiet, unit="step",
                       initial=self.step)  # fmt: skip
        finished = False
        try:
            while self.epoch < self.config.epochs:
                started = time.perf_counter()
                self._train_epoch(writer, bar)
                line = self._end_epoch(writer, time.perf_counter() - started)
                if not self.quiet:
                    bar.write(line)
                if self._stop_after_epoch():
                    raise Interrupted
            finished = True
            writer.add_hparams(
                self.config.to_dict(),
                {"hparam/best_val_acc": self.best["val_acc"]},
                run_name="hparams",
            )
        except Diverged as err:
            last = self.out / state.CHECKPOINT_DIR / state.LAST
            kept = f"{last} is the last good checkpoint" if last.exists() else "nothing was saved"
            raise Diverged(f"{err} (epoch {self.epoch + 1}): training diverged, try a lower --lr; "
                           f"{kept}") from None  # fmt: skip
        except (Interrupted, KeyboardInterrupt):
            # At an optimizer-step boundary the state is consistent; a KeyboardInterrupt raised
            # elsewhere (a second Ctrl-C) drops the partial accumulation: the saved position and
            # random state are those of the last completed step, the weights did not change since
            # (a step is one unit: a Ctrl-C inside it is raised only once it is complete).
            self.optimizer.zero_grad()
            bar.close()  # ends the bar's line: the message below goes on a line of its own
            # Stopping already, so a further Ctrl-C has nothing left to stop: it must not cut
            # this save short, and is dropped once the save is done.
            with contextlib.suppress(KeyboardInterrupt), sigint_deferred():
                path = self._save(state.LAST)
                what = {signal.SIGTERM: "terminated", _SIGHUP: "hung up"}.get(
                    self.stop_signal, "interrupted")  # fmt: skip
                self.echo(f"{what} at step {self.step} (epoch {self.epoch + 1}): saved "
                          f"{path}; continue with --resume {self.out}")  # fmt: skip
        finally:
            restore_handler()
            bar.close()
            writer.close()
        if finished and self.lrs:
            self._write_plots()
        return finished

    def _fit_quietly(self) -> bool:
        """``_fit`` for a data-parallel process other than rank 0: the same steps, no output."""
        self.quiet, self.echo = True, lambda line: None
        writer, bar = _Silent(), _Silent()
        # the Ctrl-C mpiexec passes on reaches every process: each must stop as rank 0 does,
        # at the step all agree on, not at once on a KeyboardInterrupt (rank 0 would wait for it)
        restore_handler = self._install_sigint_handler()
        try:
            while self.epoch < self.config.epochs:
                started = time.perf_counter()
                self._train_epoch(writer, bar)
                self._end_epoch(writer, time.perf_counter() - started)
                if self._stop_after_epoch():
                    raise Interrupted
        except (Interrupted, KeyboardInterrupt):
            self.optimizer.zero_grad()
            return False
        finally:
            restore_handler()
        return True

    def _write_plots(self) -> None:
        # start-up time: matplotlib loads only when the plots are written, at the end
        from ..viz.curves import plot_lr_history, plot_training_curves
        from ..viz.grad_flow import plot_grad_flow

        plot_training_curves(self.history, title="minigenesis train",
                             best_epoch=self.best["epoch"]).savefig(
            self.out / "loss.png", dpi=100)  # fmt: skip
        plot_lr_history(self.lrs, range(1, len(self.lrs) + 1),
                        title="Warm-up + cosine").savefig(self.out / "lr.png", dpi=100)  # fmt: skip
        if self.grad_flow.steps:
            # the norms are recorded after unscaling and before clipping (_optimizer_step): say
            # so, or a layer's max above --clip reads as clipping that did not work
            n = self.grad_flow.steps
            title = f"Gradient flow over {n} step{'s' * (n != 1)}"
            if self.config.clip > 0:
                title += ", before clipping"
            plot_grad_flow(self.grad_flow, title=title).savefig(
                self.out / "grad_flow.png", dpi=100)  # fmt: skip

    def _install_sigint_handler(self) -> Callable[[], None]:
        """First Ctrl-C: finish the current optimizer step, save, stop. Second: stop at once
        (after the step or checkpoint in progress, see ``signals.py``), save, return.
        SIGTERM: as the first Ctrl-C, however often it comes (it only sets the flag, so it is
        safe inside any unit of work; SIGKILL remains the way to stop at once). SIGHUP, sent when
        the terminal closes, as SIGTERM: its default would end the run without a save, losing
        the work since the last checkpoint; one that is ignored (``nohup``) stays ignored."""
        previous = signal.getsignal(signal.SIGINT)
        if threading.current_thread() is not threading.main_thread() or previous is None:
            return lambda: None  # signals reach only the main thread; None: not Python's handler

        def handler(signum: int, frame: Any) -> None:
            if self._stop_requested:
                raise KeyboardInterrupt
            self._stop_requested = True

        def terminate(signum: int, frame: Any) -> None:
            self._stop_requested = True
            self.stop_signal = signum

        signal.signal(signal.SIGINT, handler)
        self.sigint_taken_over = True
        previous_term = signal.signal(signal.SIGTERM, terminate)
        previous_hup = None
        if _SIGHUP is not None and signal.getsignal(_SIGHUP) is signal.SIG_DFL:
            previous_hup = signal.signal(_SIGHUP, terminate)

        def restore() -> None:
            signal.signal(signal.SIGINT, previous)
            if previous_term is not None:  # None: a handler set outside Python, cannot restore
                signal.signal(signal.SIGTERM, previous_term)
            if previous_hup is not None:
                signal.signal(_SIGHUP, previous_hup)

        return restore


class _Silent:
    """Stands for the SummaryWriter and the progress bar in processes that write nothing."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


def _fmt(value: Any) -> Any:
    return f"{value:.6g}" if isinstance(value, float) else value
