"""MNIST and Fashion-MNIST from local IDX files (gzipped or not); nothing is downloaded.

The IDX format (LeCun's): two zero bytes, a type byte (0x08 uint8, 0x09 int8, 0x0B int16,
0x0C int32, 0x0D float32, 0x0E float64), a byte with the number of dimensions ``d``, then ``d``
big-endian uint32 sizes, then the values, big-endian, row-major.

Expected files (the names of the original distribution, ``.gz`` optional), in ``root``,
``root/MNIST/raw`` or ``root/FashionMNIST/raw`` (torchvision's layout)::

    train-images-idx3-ubyte  train-labels-idx1-ubyte   (train=True)
    t10k-images-idx3-ubyte   t10k-labels-idx1-ubyte    (train=False)
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..creation import tensor
from ._image import ImageFileDataset, find_files

__all__ = ["read_idx", "MNIST", "FashionMNIST"]

_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


def read_idx(path: str | Path) -> np.ndarray:
    """Read an IDX file (gzip-compressed or plain: detected from its first bytes) into an array."""
    path = Path(path)
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # the gzip magic number
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as err:
            raise ValueError(f"{path}: broken gzip data ({err})") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_TYPES:
        raise ValueError(f"{path}: not an IDX file (bad magic number {raw[:4].hex() or 'empty'})")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"{path}: IDX header truncated")
    shape = tuple(int(s) for s in np.frombuffer(raw, dtype=">u4", count=ndim, offset=4))
    dtype = np.dtype(_IDX_TYPES[raw[2]])
    expected = int(np.prod(shape)) * dtype.itemsize
    if len(raw) - header != expected:
        raise ValueError(
            f"{path}: IDX header says shape {shape} ({expected} bytes) but {len(raw) - header} "
            "bytes follow"
        )
    data = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return data.astype(dtype.newbyteorder("="))  # native byte order, and a writable copy


class MNIST(ImageFileDataset):
    """Handwritten digits 0-9: 60,000 training and 10,000 test images of 28x28.

    ``dataset[i]`` is ``(image (1, 28, 28) float32 in [0, 1], label int)``; ``.data`` holds the
    raw uint8 images (N, 28, 28) and ``.targets`` the labels, as in torchvision.
    """

    folder = "MNIST"
    classes = [str(d) for d in range(10)]

    def __init__(
        self,
        root: str | Path = "data",
        train: bool = True,
        transform: Callable | None = None,
        target_transform: Callable | None = None,
        download: bool = False,
    ) -> None:
        prefix = "train" if train else "t10k"
        names = [f"{prefix}-images-idx3-ubyte", f"{prefix}-labels-idx1-ubyte"]
        if download:
            raise ValueError(
                f"{type(self).__name__}: minigenesis does not download; put {names} into {root}"
            )
        subdirs = ["", f"{self.folder}/raw", self.folder]
        image_path, label_path = find_files(type(self).__name__, root, subdirs, names, gz_ok=True)
        images, labels = read_idx(image_path), read_idx(label_path)
        if images.ndim != 3 or labels.ndim != 1:
            raise ValueError(
                f"{image_path}: expected images (N, H, W) and labels (N,), got {images.shape} "
                f"and {labels.shape}"
            )
        self.train = train
        super().__init__(
            images[:, None, :, :].astype(np.uint8), labels, transform, target_transform
        )

    @property
    def data(self):
        """The raw images, uint8 of shape (N, H, W)."""
        return tensor(self._images[:, 0])


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: the same files and format as MNIST, ten kinds of clothing."""

    folder = "FashionMNIST"
    classes = [
        "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
        "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
    ]  # fmt: skip
