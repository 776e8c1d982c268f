"""The image-like parts of ``SummaryWriter``: images, image grids, matplotlib figures, the module
structure (``add_graph``) and embeddings for the PROJECTOR tab."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..backend import to_numpy
from . import _tfevents as tfe


def to_host(values: Any) -> np.ndarray:
    """A Tensor, array, list or number as a host NumPy array."""
    if hasattr(values, "_data"):  # a minigenesis Tensor
        values = values.detach()._data
    return np.asarray(to_numpy(values))


class MediaMixin:
    """Methods that SummaryWriter shares; they rely on its ``_emit``, ``_tick``, ``add_text``."""

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
        pixels = _as_hwc(to_host(img_tensor), dataformats, tag)
        self._emit([tfe.image_value(tag, pixels)], global_step, walltime)
        self._tick()

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """A batch of images, tiled into one grid image (``dataformats`` NCHW or NHWC)."""
        arr = to_host(img_tensor)
        if dataformats.upper() not in ("NCHW", "NHWC") or arr.ndim != 4:
            raise ValueError(f"add_images('{tag}'): expected a 4-D NCHW or NHWC batch, got "
                             f"shape {arr.shape} with dataformats={dataformats!r}")  # fmt: skip
        if dataformats.upper() == "NHWC":
            arr = arr.transpose(0, 3, 1, 2)
        n, c, h, w = arr.shape
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
        grid = np.zeros((c, rows * h, cols * w), dtype=arr.dtype)
        for i in range(n):
            r, col = divmod(i, cols)
            grid[:, r * h : (r + 1) * h, col * w : (col + 1) * w] = arr[i]
        self.add_image(tag, grid, global_step, walltime, dataformats="CHW")

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """A matplotlib figure, rendered to an image."""
        figure.canvas.draw()
        pixels = np.asarray(figure.canvas.buffer_rgba(), dtype=np.uint8)
        if close:
            import matplotlib.pyplot as plt  # start-up time: pyplot only to close a figure

            plt.close(figure)
        self.add_image(tag, pixels, global_step, walltime, dataformats="HWC")

    def add_graph(self, model: Any, input_to_model: Any = None, verbose: bool = False) -> None:
        """Record the module structure and parameter count as text under ``graph``.

        TensorBoard's GRAPHS tab needs a traced GraphDef, which minigenesis does not produce; the
        module tree is what that tab would mostly show for a small model.
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
        """Vectors for TensorBoard's PROJECTOR tab: ``<step>/tensors.tsv`` (+ ``metadata.tsv``)
        and an entry in ``projector_config.pbtxt``. ``label_img`` is not supported (ignored)."""
        self._check_open()
        arr = to_host(mat)
        if arr.ndim != 2:
            raise ValueError(f"add_embedding: mat must be 2-D (N, D), got shape {arr.shape}")
        sub = f"{int(global_step or 0):05d}"
        folder = self.log_dir / sub
        folder.mkdir(parents=True, exist_ok=True)
        np.savetxt(folder / "tensors.tsv", arr, delimiter="\t", fmt="%.7g")
        entry = f'embeddings {{\n  tensor_name: "{tag}:{sub}"\n  tensor_path: "{sub}/tensors.tsv"\n'
        if metadata is not None:
            if len(metadata) != arr.shape[0]:
                raise ValueError(f"add_embedding: {len(metadata)} metadata rows for "
                                 f"{arr.shape[0]} vectors")  # fmt: skip
            lines = ["\t".join(metadata_header)] if metadata_header else []
            for row in metadata:
                lines.append(
                    "\t".join(map(str, row)) if isinstance(row, list | tuple) else str(row)
                )
            (folder / "metadata.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
            entry += f'  metadata_path: "{sub}/metadata.tsv"\n'
        with (self.log_dir / "projector_config.pbtxt").open("a", encoding="utf-8") as f:
            f.write(entry + "}\n")


def _as_hwc(arr: np.ndarray, dataformats: str, tag: str) -> np.ndarray:
    """An image as uint8 (H, W, C) with C in {1, 3, 4}; floats are taken to lie in [0, 1]."""
    fmt = dataformats.upper()
    if len(fmt) != arr.ndim or sorted(fmt) not in (sorted("CHW"), sorted("HW")):
        raise ValueError(f"add_image('{tag}'): shape {arr.shape} does not match "
                         f"dataformats={dataformats!r} (use CHW, HWC or HW)")  # fmt: skip
    if fmt == "HW":
        arr = arr[:, :, None]
    else:
        arr = arr.transpose([fmt.index(axis) for axis in "HWC"])
    if arr.shape[2] not in (1, 3, 4):
        raise ValueError(f"add_image('{tag}'): {arr.shape[2]} channels; expected 1, 3 or 4")
    if arr.dtype != np.uint8:
        arr = np.clip(np.nan_to_num(arr.astype(np.float64)) * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return np.ascontiguousarray(arr)
