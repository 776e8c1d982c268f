"""A small text corpus shipped with the package, and a character-level dataset over it.

``load_corpus()`` returns the text of ``data/tiny_fables.txt`` (short original fables written for
minigenesis, about 8 KB, free to use). ``CharDataset`` turns any text into next-character
prediction samples for a character-level language model::

    ds = CharDataset(load_corpus(), block_size=32)
    x, y = ds[0]            # x = characters 0..31 as ids, y = characters 1..32 (shifted by one)
    ds.decode(x.tolist())   # back to a string
"""

from __future__ import annotations

from importlib import resources

import numpy as np

from ..creation import tensor
from ..utils.data import Dataset

__all__ = ["load_corpus", "CharDataset", "CORPORA"]

CORPORA = {"tiny_fables": "tiny_fables.txt"}


def load_corpus(name: str = "tiny_fables") -> str:
    """The text of a corpus shipped in ``minigenesis/datasets/data`` (see ``CORPORA``)."""
    if name not in CORPORA:
        raise ValueError(f"unknown corpus {name!r}; available: {sorted(CORPORA)}")
    return resources.files(__package__).joinpath("data", CORPORA[name]).read_text("utf-8")


class CharDataset(Dataset):
    """Next-character samples ``x = ids[i : i+T]``, ``y = ids[i+1 : i+T+1]`` (T = block_size).

    The vocabulary is the sorted set of characters of ``text`` (``stoi`` / ``itos`` map between a
    character and its id). There are ``len(text) - block_size`` samples, one per start position.
    """

    def __init__(self, text: str | None = None, block_size: int = 64) -> None:
        text = load_corpus() if text is None else text
        if int(block_size) != block_size or block_size <= 0:
            raise ValueError(f"block_size must be a positive integer, got {block_size!r}")
        if len(text) <= block_size:
            raise ValueError(
                f"CharDataset: the text has {len(text)} characters, needs more than "
                f"block_size={block_size}"
            )
        self.text, self.block_size = text, int(block_size)
        self.itos = sorted(set(text))
        self.stoi = {ch: i for i, ch in enumerate(self.itos)}
        self._ids = np.array([self.stoi[ch] for ch in text], dtype=np.int64)

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, s: str) -> list[int]:
        unknown = sorted(set(s) - set(self.stoi))
        if unknown:
            raise ValueError(f"CharDataset.encode: characters not in the vocabulary: {unknown}")
        return [self.stoi[ch] for ch in s]

    def decode(self, ids) -> str:
        return "".join(self.itos[int(i)] for i in ids)

    def __len__(self) -> int:
        return len(self._ids) - self.block_size

    def __getitem__(self, index: int):
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"index {index} out of range for CharDataset of length {n}")
        chunk = self._ids[index : index + self.block_size + 1]
        return tensor(chunk[:-1]), tensor(chunk[1:])

    def _get_batch(self, indices: list[int]) -> list:
        """Fast path for the DataLoader: all windows of the batch in one gather."""
        rows = np.asarray(indices, dtype=np.int64)[:, None] + np.arange(self.block_size + 1)
        windows = self._ids[rows]
        return [tensor(windows[:, :-1]), tensor(windows[:, 1:])]
