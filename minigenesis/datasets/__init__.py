"""Datasets: synthetic sets, a small text corpus, and readers for MNIST/CIFAR files.

Nothing here downloads. The synthetic sets are generated on the fly; the corpus ships with the
package; MNIST, Fashion-MNIST and CIFAR-10 are read from a local folder (a missing folder raises
an error that says which files to put where).
"""

from __future__ import annotations

from .cifar import CIFAR10, read_cifar_batch
from .mnist import MNIST, FashionMNIST, read_idx
from .synthetic import make_blobs, make_curve, make_spirals
from .text import CORPORA, CharDataset, load_corpus

__all__ = [
    "make_spirals", "make_blobs", "make_curve",
    "load_corpus", "CharDataset", "CORPORA",
    "read_idx", "MNIST", "FashionMNIST",
    "read_cifar_batch", "CIFAR10",
]  # fmt: skip
