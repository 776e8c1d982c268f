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

- ``events.out.tfevents.<time>.<host>.<pid>.<n>``: TensorBoard's event file (``tensorboard
  --logdir runs`` shows it), named as PyTorch names it. The file format (TFRecord framing,
  CRC32C, protobuf messages) is tensorboardX's job: this module is an adapter that turns
  minigenesis Tensors into NumPy arrays and keeps PyTorch's signatures and folder layout;
- ``scalars.csv``: one row ``step,wall_time,tag,value`` per scalar (opens in any spreadsheet);
- ``events.jsonl``: one JSON object per scalar, histogram (its statistics), text or hparams call.

``add_scalars`` writes each curve into a sub-folder ``<log_dir>/<main_tag>_<key>`` as PyTorch
does, so TensorBoard draws them in one chart. ``add_hparams`` writes a sub-run for the HPARAMS tab.
``add_graph`` records the module's structure as text (the GRAPHS tab needs a traced graph, which
minigenesis does not build).

Importing this module imports tensorboardX (and tensorboardX imports PyTorch where PyTorch is
installed, about 1.5 s), so ``import minigenesis`` does not import it: the trainer imports it when
a run starts writing.
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
import tensorboardX

from ..backend import to_numpy

__all__ = ["SummaryWriter"]

_writers_opened = 0  # numbers each writer of the process, as PyTorch's file names do


def to_host(values: Any) -> np.ndarray:
    """A Tensor, array, list or number as a host NumPy array (what tensorboardX takes)."""
    if hasattr(values, "_data"):  # a minigenesis Tensor or Parameter
        values = values.detach()._data
    return np.asarray(to_numpy(values))


def _to_float(tag: str, value: Any) -> float:
    arr = to_host(value)
    if arr.size != 1:
        raise ValueError(f"add_scalar('{tag}'): expected one number, got shape {arr.shape}")
    return float(arr.reshape(()))


def _as_image(tag: str, img_tensor: Any) -> np.ndarray:
    """uint8 pixels stay as they are; floats are taken to lie in [0, 1] and clipped there, as
    PyTorch does before scaling by 255 (tensorboardX alone would wrap values above 1 round)."""
    arr = to_host(img_tensor)
    if arr.dtype == np.uint8:
        return arr
    return np.clip(np.nan_to_num(arr.astype(np.float32)), 0.0, 1.0)


class SummaryWriter:
    """Write scalars, histograms, text, images, embeddings and hparams of a run into ``log_dir``.

    ``log_dir`` defaults to ``runs/<date>_<time>_<host><comment>``. tensorboardX writes the event
    files from a background thread, every ``max_queue`` events or ``flush_secs`` seconds, and on
    ``close()``. ``purge_step`` (for resumed runs) tells TensorBoard to drop what an earlier run
    logged at that step or later. ``write_csv`` / ``write_jsonl`` (not in PyTorch) switch off the
    two plain-text copies.
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
        global _writers_opened
        if log_dir is None:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = Path("runs") / f"{stamp}_{socket.gethostname()}{comment}"
        self.log_dir = Path(log_dir)
        _writers_opened += 1
        # tensorboardX names a file events.out.tfevents.<time>.<host><suffix>; PyTorch adds the
        # process id and a counter, so two writers of one second never write the same file
        self._suffix = f".{os.getpid()}.{_writers_opened}{filename_suffix}"
        self._queue_args = {"max_queue": max_queue, "flush_secs": flush_secs}
        self._writer = tensorboardX.SummaryWriter(
            str(self.log_dir), purge_step=purge_step, filename_suffix=self._suffix,
            **self._queue_args,
        )  # fmt: skip
        self._curves: dict[str, tensorboardX.SummaryWriter] = {}  # add_scalars' sub-runs
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
        self._closed = False

    def get_logdir(self) -> str:
        return str(self.log_dir)

    # ------------------------------------------------------------------ plumbing
    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryWriter({self.log_dir}) is closed")

    def _log_json(self, record: dict) -> None:
        if self._jsonl is not None:
            self._jsonl.write(json.dumps(record, allow_nan=True) + "\n")

    def _log_csv(self, step: int | None, wall: float, tag: str, value: float) -> None:
        if self._csv is not None:
            self._csv.writerow([step if step is not None else "", wall, tag, value])

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
        wall = time.time() if walltime is None else float(walltime)
        self._writer.add_scalar(tag, value, global_step, wall)
        self._log_csv(global_step, wall, tag, value)
        self._log_json(
            {"type": "scalar", "tag": tag, "step": global_step, "wall_time": wall, "value": value}
        )

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Several curves in one chart: each ``key`` goes to the run ``<log_dir>/<main_tag>_<key>``
        under the tag ``main_tag`` (and to the CSV as ``main_tag/key``).

        PyTorch's folder names, not tensorboardX's (``<main_tag>/<key>``): so each curve is one
        writer here.
        """
        self._check_open()
        wall = time.time() if walltime is None else float(walltime)
        values = {key: _to_float(f"{main_tag}/{key}", raw) for key, raw in tag_scalar_dict.items()}
        for key, value in values.items():
            folder = f"{main_tag.replace('/', '_')}_{key}"
            if folder not in self._curves:
                self._curves[folder] = tensorboardX.SummaryWriter(
                    str(self.log_dir / folder), filename_suffix=self._suffix, **self._queue_args
                )
            self._curves[folder].add_scalar(main_tag, value, global_step, wall)
            self._log_csv(global_step, wall, f"{main_tag}/{key}", value)
        self._log_json(
            {"type": "scalars", "tag": main_tag, "step": global_step, "wall_time": wall,
             "values": values}
        )  # fmt: skip

    # ------------------------------------------------------------------ histograms, text
    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: int | str | np.ndarray = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """A histogram of ``values`` (weights, gradients, activations).

        ``bins``: "tensorflow" (PyTorch's default: buckets whose edges grow by 10% from 1e-12 to
        1e20, on both sides of 0), a count of equal-width buckets, or a NumPy rule ("auto", "fd").
        """
        self._check_open()
        arr = to_host(values).astype(np.float64).ravel()
        if arr.size == 0:
            raise ValueError(f"add_histogram('{tag}'): no values")
        if not np.all(np.isfinite(arr)):
            bad = int(np.sum(~np.isfinite(arr)))
            raise ValueError(f"add_histogram('{tag}'): {bad} of {arr.size} values are NaN or Inf")
        wall = time.time() if walltime is None else float(walltime)
        self._writer.add_histogram(tag, arr, global_step, bins, wall, max_bins)
        stats = {
            "min": float(arr.min()), "max": float(arr.max()), "num": float(arr.size),
            "sum": float(arr.sum()), "sum_squares": float(np.dot(arr, arr)),
        }  # fmt: skip
        self._log_json(
            {"type": "histogram", "tag": tag, "step": global_step, "wall_time": wall, **stats}
        )

    def add_text(
        self,
        tag: str,
        text_string: str,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Text (Markdown) shown in TensorBoard's TEXT tab, under ``<tag>/text_summary``."""
        self._check_open()
        wall = time.time() if walltime is None else float(walltime)
        self._writer.add_text(tag, str(text_string), global_step, wall)
        self._log_json(
            {"type": "text", "tag": tag, "step": global_step, "wall_time": wall,
             "text": str(text_string)}
        )  # fmt: skip

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
        summaries and each metric as a scalar. A value that is not a bool, number or string is
        logged as its ``str()``. ``hparam_domain_discrete`` is accepted for PyTorch's signature;
        tensorboardX writes no domains, so TensorBoard lists the values the runs logged.
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
        run = run_name or f"{time.time():.6f}"
        self._writer.add_hparams(clean, metrics, name=run, global_step=global_step)
        self._log_json(
            {"type": "hparams", "run": run, "wall_time": time.time(), "hparams": clean,
             "metrics": metrics}
        )  # fmt: skip

    # ------------------------------------------------------------------ images, figures, graph
    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """One image: floats in [0, 1] or uint8 in [0, 255]; ``dataformats`` CHW, HWC or HW."""
        self._check_open()
        self._writer.add_image(tag, _as_image(tag, img_tensor), global_step, walltime, dataformats)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """A batch of images, tiled into one grid image (``dataformats`` NCHW or NHWC)."""
        self._check_open()
        self._writer.add_images(tag, _as_image(tag, img_tensor), global_step, walltime,
                                dataformats)  # fmt: skip

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """A matplotlib figure (or a list of them), rendered to an image."""
        self._check_open()
        self._writer.add_figure(tag, figure, global_step, close, walltime)

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False) -> None:
        """Record the module structure and parameter count as text under ``graph``.

        TensorBoard's GRAPHS tab needs a traced GraphDef (PyTorch's comes from ``torch.jit``),
        which minigenesis does not produce; the module tree is what that tab would mostly show
        for a small model.
        """
        params = sum(p.numel() for p in model.parameters()) if hasattr(model, "parameters") else 0
        text = f"{type(model).__name__}: {params:,} parameters\n\n```\n{model!r}\n```"
        self.add_text("graph", text, 0)

    def add_embedding(
        self,
        mat: Any,
        metadata: list | None = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: list | None = None,
    ) -> None:
        """Vectors for TensorBoard's PROJECTOR tab, as PyTorch lays them out:
        ``<step:05d>/<tag>/tensors.tsv`` (+ ``metadata.tsv``, ``sprite.png`` from ``label_img``
        (N, C, H, W)) and an entry in ``projector_config.pbtxt``."""
        self._check_open()
        arr = to_host(mat)
        if arr.ndim != 2:
            raise ValueError(f"add_embedding: mat must be 2-D (N, D), got shape {arr.shape}")
        if metadata is not None and len(metadata) != arr.shape[0]:
            raise ValueError(f"add_embedding: {len(metadata)} metadata rows for "
                             f"{arr.shape[0]} vectors")  # fmt: skip
        images = None if label_img is None else _as_image(tag, label_img)
        self._writer.add_embedding(arr, metadata, images, global_step, tag, metadata_header)

    # ------------------------------------------------------------------ lifetime
    def flush(self) -> None:
        """Flush the event files and the CSV and JSONL copies to disk. (tensorboardX writes an
        event from its thread shortly after the call that logged it; ``close()`` waits for all.)"""
        for writer in [self._writer, *self._curves.values()]:
            writer.flush()
        for f in (self._csv_file, self._jsonl):
            if f is not None:
                f.flush()

    def close(self) -> None:
        """Write everything and close every file (calling it twice is harmless)."""
        if self._closed:
            return
        for writer in [self._writer, *self._curves.values()]:
            writer.close()
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
