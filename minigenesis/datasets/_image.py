"""Shared parts of the file-backed image datasets (MNIST, Fashion-MNIST, CIFAR-10).

A sample is ``(image, label)``: the image a float32 tensor of shape (C, H, W) with values in
[0, 1] (pixel / 255, what torchvision's ``ToTensor()`` gives) and the label an int. ``transform``
and ``target_transform`` are applied to those when given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..creation import tensor
from ..utils.data import Dataset


class ImageFileDataset(Dataset):
    """Images held as uint8 (N, C, H, W) on the host; converted to float tensors per batch."""

    classes: list[str] = []

    def __init__(
        self,
        images: np.ndarray,
        labels: np.ndarray,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
    ) -> None:
        if images.shape[0] != labels.shape[0]:
            raise ValueError(
                f"{type(self).__name__}: {images.shape[0]} images but {labels.shape[0]} labels"
            )
        self._images = images
        self._labels = labels.astype(np.int64)
        self.transform, self.target_transform = transform, target_transform

    @property
    def targets(self):
        """The labels as an int64 tensor."""
        return tensor(self._labels)

    def __len__(self) -> int:
        return self._images.shape[0]

    def __getitem__(self, index: int) -> tuple[Any, Any]:
        image = tensor(self._images[index].astype(np.float32) / 255.0)
        label: Any = int(self._labels[index])
        if self.transform is not None:
            image = self.transform(image)
        if self.target_transform is not None:
            label = self.target_transform(label)
        return image, label

    def _get_batch(self, indices: list[int]) -> list | None:
        """A whole batch at once (the DataLoader's fast path) when no transform is set."""
        if self.transform is not None or self.target_transform is not None:
            return None
        idx = np.asarray(indices, dtype=np.int64)
        return [tensor(self._images[idx].astype(np.float32) / 255.0), tensor(self._labels[idx])]

    def __repr__(self) -> str:
        c, h, w = self._images.shape[1:]
        return (
            f"{type(self).__name__}({len(self)} images of {c}x{h}x{w}, {len(self.classes)} classes)"
        )


def find_files(
    dataset: str, root: str | Path, subdirs: Sequence[str], names: Sequence[str], gz_ok: bool
) -> list[Path]:
    """Locate every file of ``names`` in one of ``root/<subdir>``; if any is missing, raise a
    FileNotFoundError that says which files to put where (nothing is ever downloaded)."""
    root = Path(root).expanduser()
    folders = [root / sub if sub else root for sub in subdirs]
    for folder in folders:
        found = []
        for name in names:
            options = [folder / name] + ([folder / (name + ".gz")] if gz_ok else [])
            hit = next((p for p in options if p.is_file()), None)
            if hit is None:
                break
            found.append(hit)
        else:
            return found
    where = " or ".join(f"'{f}'" for f in folders)
    listing = "\n".join(f"  {name}" + (" (or .gz)" if gz_ok else "") for name in names)
    state = "does not exist" if not root.exists() else "does not hold them"
    raise FileNotFoundError(
        f"{dataset}: missing files ('{root}' {state}). minigenesis does not download datasets: "
        f"put these files into {where}:\n{listing}"
    )
