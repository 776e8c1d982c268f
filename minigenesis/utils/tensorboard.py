"""``SummaryWriter``: log a training run for TensorBoard, and as CSV and JSON Lines.

PyTorch's ``from torch.utils.tensorboard import SummaryWriter`` becomes
``from minigenesis.utils.tensorboard import SummaryWriter``; the methods and arguments are the
same::

    writer = SummaryWriter("runs/experiment_1")
    writer.add_scalar("Loss/train", loss, epoch)
    writer.add_scalars("Loss", {"train": train_loss, "val": val_loss}, epoch)
    writer.add_histogram("Weights/fc1.weight", model.fc1.weight, epoch)
    writer.close()

Into ``log_dir`` it writes

- ``events.out.tfevents.*``: TensorBoard's event file (``tensorboard --logdir runs`` shows it),
  encoded by hand in ``_tfevents.py``, so neither TensorFlow nor TensorBoard is needed to write;
- ``scalars.csv``: one row ``step,wall_time,tag,value`` per scalar (opens in any spreadsheet);
- ``events.jsonl``: one JSON object per call (scalars, histogram statistics, text, hparams).

``add_scalars`` writes each curve into a sub-folder ``<log_dir>/<main_tag>_<key>`` as PyTorch
does, so TensorBoard draws them in one chart. ``add_hparams`` writes a sub-run for the HPARAMS tab.
``add_graph`` records the module's structure as text (the GRAPHS tab needs a traced graph, which
minigenesis does not build).
"""

from __future__ import annotations

import csv
import json
import os
import socket
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from . import _tfevents as tfe
from ._tb_media import MediaMixin, to_host

__all__ = ["SummaryWriter"]

_file_counter = 0


def _to_float(tag: str, value: Any) -> float:
    arr = to_host(value)
    if arr.size != 1:
        raise ValueError(f"add_scalar('{tag}'): expected one number, got shape {arr.shape}")
    return float(arr.reshape(()))


class _EventFile:
    """One ``events.out.tfevents.*`` file: the version record first, then one record per event."""

    def __init__(self, log_dir: Path, filename_suffix: str = "", purge_step: int | None = None):
        global _file_counter
        log_dir.mkdir(parents=True, exist_ok=True)
        _file_counter += 1
        name = (
            f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}."
            f"{os.getpid()}.{_file_counter}{filename_suffix}"
        )
        self.path = log_dir / name
        self._file = self.path.open("wb")
        self.write(tfe.event(time.time(), 0, file_version="brain.Event:2"))
        if purge_step is not None:  # TensorBoard drops what an earlier run logged at >= this step
            self.write(tfe.event(time.time(), purge_step, session_log=tfe.session_log_start()))

    def write(self, event: bytes) -> None:
        self._file.write(tfe.frame_record(event))

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class SummaryWriter(MediaMixin):
    """Write scalars, histograms, text, images and hparams of a run into ``log_dir``.

    ``log_dir`` defaults to ``runs/<date>_<time>_<host><comment>``. Records are buffered and
    written every ``max_queue`` calls or ``flush_secs`` seconds, and on ``flush()``/``close()``.
    ``purge_step`` (for resumed runs) tells TensorBoard to drop what an earlier run logged at that
    step or later.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        write_csv: bool = True,
        write_jsonl: bool = True,
    ) -> None:
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = Path("runs") / f"{stamp}_{socket.gethostname()}{comment}"
        self.log_dir = Path(log_dir)
        self._suffix, self.max_queue, self.flush_secs = filename_suffix, max_queue, flush_secs
        self._events = _EventFile(self.log_dir, filename_suffix, purge_step)
        self._sub_writers: dict[str, _EventFile] = {}
        self._csv_file = self._csv = self._jsonl = None
        if write_csv:
            path = self.log_dir / "scalars.csv"
            is_new = not path.exists() or path.stat().st_size == 0
            self._csv_file = path.open("a", newline="", encoding="utf-8")
            self._csv = csv.writer(self._csv_file)
            if is_new:
                self._csv.writerow(["step", "wall_time", "tag", "value"])
        if write_jsonl:
            self._jsonl = (self.log_dir / "events.jsonl").open("a", encoding="utf-8")
        self._pending, self._last_flush, self._closed = 0, time.time(), False

    def get_logdir(self) -> str:
        return str(self.log_dir)

    # ------------------------------------------------------------------ plumbing
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter({self.log_dir}) is closed")

    def _emit(
        self,
        values: list[bytes],
        step: int | None,
        walltime: float | None,
        target: _EventFile | None = None,
    ) -> float:
        wall = time.time() if walltime is None else float(walltime)
        summary = tfe.summary(values)
        (target or self._events).write(tfe.event(wall, int(step or 0), summary=summary))
        return wall

    def _log_json(self, record: dict) -> None:
        if self._jsonl is not None:
            self._jsonl.write(json.dumps(record, allow_nan=True) + "\n")

    def _tick(self) -> None:
        self._pending += 1
        if self._pending >= self.max_queue or time.time() - self._last_flush >= self.flush_secs:
            self.flush()

    # ------------------------------------------------------------------ scalars
    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Log one number (a float, int, NumPy scalar or one-element Tensor) under ``tag``."""
        self._check_open()
        value = _to_float(tag, scalar_value)
        wall = self._emit([tfe.scalar_value(tag, value)], global_step, walltime)
        if self._csv is not None:
            self._csv.writerow([global_step if global_step is not None else "", wall, tag, value])
        self._log_json(
            {"type": "scalar", "tag": tag, "step": global_step, "wall_time": wall, "value": value}
        )
        self._tick()

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Several curves in one chart: each ``key`` goes to the run ``<log_dir>/<main_tag>_<key>``
        under the tag ``main_tag`` (and to the CSV as ``main_tag/key``)."""
        self._check_open()
        wall = time.time() if walltime is None else float(walltime)
        for key, raw in tag_scalar_dict.items():
            value = _to_float(f"{main_tag}/{key}", raw)
            folder = f"{main_tag}_{key}".replace("/", "_")
            if folder not in self._sub_writers:
                self._sub_writers[folder] = _EventFile(self.log_dir / folder, self._suffix)
            target = self._sub_writers[folder]
            self._emit([tfe.scalar_value(main_tag, value)], global_step, wall, target)
            if self._csv is not None:
                step = global_step if global_step is not None else ""
                self._csv.writerow([step, wall, f"{main_tag}/{key}", value])
        values = {k: _to_float(k, v) for k, v in tag_scalar_dict.items()}
        self._log_json(
            {"type": "scalars", "tag": main_tag, "step": global_step, "wall_time": wall,
             "values": values}
        )  # fmt: skip
        self._tick()

    # ------------------------------------------------------------------ histograms, text
    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: int | str = 64,
        walltime: float | None = None,
    ) -> None:
        """A histogram of ``values`` (weights, gradients, activations).

        ``bins`` is a count of equal-width buckets between min and max or a NumPy rule ("auto",
        "fd"...); PyTorch's default "tensorflow" is taken as 64 buckets.
        """
        self._check_open()
        arr = to_host(values).astype(np.float64).ravel()
        if arr.size == 0:
            raise ValueError(f"add_histogram('{tag}'): no values")
        if not np.all(np.isfinite(arr)):
            bad = int(np.sum(~np.isfinite(arr)))
            raise ValueError(f"add_histogram('{tag}'): {bad} of {arr.size} values are NaN or Inf")
        counts, edges = np.histogram(arr, bins=64 if bins == "tensorflow" else bins)
        stats = {
            "min": float(arr.min()), "max": float(arr.max()), "num": float(arr.size),
            "sum": float(arr.sum()), "sum_squares": float(np.dot(arr, arr)),
        }  # fmt: skip
        limits, counts_list = edges[1:].tolist(), counts.astype(np.float64).tolist()
        value = tfe.histogram_value(tag, *stats.values(), limits, counts_list)
        wall = self._emit([value], global_step, walltime)
        self._log_json(
            {"type": "histogram", "tag": tag, "step": global_step, "wall_time": wall, **stats,
             "bucket_limits": limits, "counts": counts_list}
        )  # fmt: skip
        self._tick()

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Text (Markdown) shown in TensorBoard's TEXT tab."""
        self._check_open()
        wall = self._emit([tfe.text_value(f"{tag}/text_summary", str(text_string))], global_step,
                          walltime)  # fmt: skip
        self._log_json(
            {"type": "text", "tag": tag, "step": global_step, "wall_time": wall,
             "text": str(text_string)}
        )  # fmt: skip
        self._tick()

    def add_hparams(
        self,
        hparam_dict: dict,
        metric_dict: dict,
        hparam_domain_discrete: dict | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """One row of TensorBoard's HPARAMS table: the run's hyperparameters and final metrics.

        As in PyTorch, this writes a sub-run ``<log_dir>/<run_name or time>`` holding the hparams
        summaries and each metric as a scalar.
        """
        self._check_open()
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError("add_hparams: hparam_dict and metric_dict must be dicts")
        clean = {}
        for key, value in hparam_dict.items():
            if hasattr(value, "_data") or isinstance(value, np.generic):
                value = _to_float(key, value)
            clean[key] = value if isinstance(value, bool | int | float | str) else str(value)
        metrics = {k: _to_float(k, v) for k, v in metric_dict.items()}
        run = self.log_dir / (run_name or f"{time.time():.6f}")
        events = _EventFile(run, self._suffix)
        wall = time.time()
        for value in tfe.hparams_values(clean, list(metrics), wall):
            events.write(tfe.event(wall, 0, summary=tfe.summary([value])))
        for tag, value in metrics.items():
            self._emit([tfe.scalar_value(tag, value)], global_step, wall, events)
        events.close()
        self._log_json(
            {"type": "hparams", "run": run.name, "wall_time": wall, "hparams": clean,
             "metrics": metrics}
        )  # fmt: skip
        self._tick()

    # ------------------------------------------------------------------ lifetime
    def flush(self) -> None:
        """Write everything buffered to disk."""
        for f in [self._events, *self._sub_writers.values()]:
            f.flush()
        for f in (self._csv_file, self._jsonl):
            if f is not None:
                f.flush()
        self._pending, self._last_flush = 0, time.time()

    def close(self) -> None:
        """Flush and close every file (calling it twice is harmless)."""
        if self._closed:
            return
        self.flush()
        for f in [self._events, *self._sub_writers.values()]:
            f.close()
        for f in (self._csv_file, self._jsonl):
            if f is not None:
                f.close()
        self._closed = True

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: files may already be gone
            pass
