"""CIFAR-10 from the local "python version" batches; nothing is downloaded.

Expected layout (what ``cifar-10-python.tar.gz`` unpacks to), in ``root/cifar-10-batches-py`` or
``root`` itself::

    data_batch_1 ... data_batch_5   (train=True; 10,000 images each)
    test_batch                      (train=False)
    batches.meta                    (optional: the class names)

Each batch is a pickled dict with ``b"data"`` (uint8 array (10000, 3072): the red, green and blue
32x32 planes of each image, row-major) and ``b"labels"`` (a list of ints). The pickles are read
with a restricted unpickler that only rebuilds NumPy arrays, lists, dicts, strings and numbers,
so a crafted file cannot run code.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ._image import ImageFileDataset, find_files

__all__ = ["CIFAR10", "read_cifar_batch"]

_CLASSES = [
    "airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck",
]  # fmt: skip

# The globals a pickled NumPy array refers to (NumPy 1.x and 2.x module names).
_ALLOWED = {
    ("numpy", "ndarray"), ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
    ("_codecs", "encode"),  # how protocol-2 pickles store the bytes inside an array
}  # fmt: skip


class _ArrayOnlyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a CIFAR batch")
        return super().find_class(module, name)


def read_cifar_batch(path: str | Path) -> dict:
    """Load one CIFAR "python version" batch (a pickled dict, keys as bytes)."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            batch = _ArrayOnlyUnpickler(f, encoding="bytes").load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError) as err:
        raise ValueError(f"{path}: not a CIFAR python batch ({err})") from None
    if not isinstance(batch, dict):
        raise ValueError(f"{path}: not a CIFAR python batch (a {type(batch).__name__})")
    return {k.decode() if isinstance(k, bytes) else k: v for k, v in batch.items()}


class CIFAR10(ImageFileDataset):
    """32x32 colour images in 10 classes: 50,000 for training, 10,000 for testing.

    ``dataset[i]`` is ``(image (3, 32, 32) float32 in [0, 1], label int)``; ``.data`` holds the raw
    uint8 images (N, 32, 32, 3) and ``.targets`` the labels, as in torchvision.
    """

    def __init__(
        self,
        root: str | Path = "data",
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        names = [f"data_batch_{i}" for i in range(1, 6)] if train else ["test_batch"]
        if download:
            raise ValueError(f"CIFAR10: minigenesis does not download; put {names} into {root}")
        paths = find_files("CIFAR10", root, ["cifar-10-batches-py", ""], names, gz_ok=False)
        images, labels = [], []
        for path in paths:
            batch = read_cifar_batch(path)
            if "data" not in batch or "labels" not in batch:
                raise ValueError(f"{path}: a CIFAR batch needs 'data' and 'labels' entries")
            data = np.asarray(batch["data"], dtype=np.uint8)
            if data.ndim != 2 or data.shape[1] != 3 * 32 * 32:
                raise ValueError(f"{path}: 'data' must have shape (N, 3072), got {data.shape}")
            images.append(data.reshape(-1, 3, 32, 32))
            labels.append(np.asarray(batch["labels"], dtype=np.int64))
        self.train = train
        self.classes = _CLASSES
        meta = paths[0].parent / "batches.meta"
        if meta.is_file():
            names_in_meta = read_cifar_batch(meta).get("label_names")
            if names_in_meta:
                self.classes = [n.decode() if isinstance(n, bytes) else n for n in names_in_meta]
        super().__init__(
            np.concatenate(images), np.concatenate(labels), transform, target_transform
        )

    @property
    def data(self) -> np.ndarray:
        """The raw images, uint8 of shape (N, 32, 32, 3) (height, width, channel)."""
        return self._images.transpose(0, 2, 3, 1)
