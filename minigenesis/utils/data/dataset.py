"""``torch.utils.data.dataset``: datasets, the things a DataLoader reads samples from.

A map-style dataset maps an index to one sample (``dataset[i]``, ``len(dataset)``); an iterable
one is a stream (``for sample in dataset``). ``random_split`` cuts one into random subsets.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ..._tensor import Tensor
from ...random import Generator
from .sampler import _permutation

T_co = TypeVar("T_co", covariant=True)  # the type of one sample

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "Subset",
    "random_split",
]


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(i)`` and ``__len__()``.
    ``Dataset[SampleType]`` names the sample type for type checkers, as in PyTorch."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(  # PyTorch's words, then the class that lacks it
            f"Subclasses of Dataset should implement __getitem__. ({type(self).__name__} does not)"
        )

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A stream of samples: subclasses define ``__iter__`` (no indexing, no shuffling)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other: Dataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``(t[i] for t in tensors)``; every tensor must have the same first size.

    With no tensors it is built, as PyTorch's, and only ``len`` fails (IndexError)."""

    def __init__(self, *tensors: Tensor) -> None:
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if None in sizes or len(set(sizes)) > 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            # AssertionError, as PyTorch's (an assert there)
            raise AssertionError(
                f"Size mismatch between tensors: TensorDataset's tensors must share their first "
                f"size, got {shapes}"
            )
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]

    def _get_batch(self, indices: list[int]) -> list | None:
        if type(self).__getitem__ is not TensorDataset.__getitem__:
            return None  # a subclass changed what a sample is: collate sample by sample
        idx = np.asarray(indices, dtype=np.int64)
        return [t[idx] for t in self.tensors]


class ConcatDataset(Dataset):
    """Several datasets one after the other (``ds1 + ds2``)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        # AssertionErrors, as PyTorch's (asserts there)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        if any(isinstance(d, IterableDataset) for d in self.datasets):
            raise AssertionError(
                "ConcatDataset does not support IterableDataset (ChainDataset does)"
            )
        self.cumulative_sizes = [int(c) for c in np.cumsum([len(d) for d in self.datasets])]

    @property
    def cummulative_sizes(self) -> list[int]:
        """The old, misspelt name of ``cumulative_sizes`` (PyTorch keeps it, with a warning)."""
        warnings.warn(
            "cummulative_sizes attribute is renamed to cumulative_sizes",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.cumulative_sizes

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if index < 0:
            if -index > n:
                raise ValueError("absolute value of index should not exceed dataset length")
            index += n
        if not 0 <= index < n:
            raise IndexError(f"index {index} out of range for ConcatDataset of length {n}")
        k = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = 0 if k == 0 else int(self.cumulative_sizes[k - 1])
        return self.datasets[k][index - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets one after the other, as one stream."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = datasets

    def _checked(self) -> Iterator[IterableDataset]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self) -> Iterator[Any]:
        for d in self._checked():
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self._checked())  # type: ignore[arg-type]


class StackDataset(Dataset):
    """Datasets of the same length side by side: sample i is ``(d[i] for d in args)`` as a tuple,
    or ``{name: d[i]}`` for datasets given by keyword."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or ``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])  # type: ignore[arg-type]
        if any(len(d) != self._length for d in parts):  # type: ignore[arg-type]
            raise ValueError("Size mismatch between datasets")
        self.datasets: tuple | dict = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[int]) -> list:
        """The samples at ``indices`` (a DataLoader's batch): each part is read with its own
        batched ``__getitems__`` when it has one, else index by index."""
        named = isinstance(self.datasets, dict)
        parts = self.datasets.items() if named else enumerate(self.datasets)
        columns = {}
        for key, d in parts:
            getitems = getattr(d, "__getitems__", None)
            column = getitems(indices) if getitems is not None else [d[i] for i in indices]
            if len(column) != len(indices):
                raise ValueError(
                    "Nested dataset's output size mismatch. "
                    f"Expected {len(indices)}, got {len(column)}"
                )
            columns[key] = column
        rows = [{key: col[j] for key, col in columns.items()} for j in range(len(indices))]
        return rows if named else [tuple(row.values()) for row in rows]

    def __len__(self) -> int:
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, index: int) -> Any:
        if isinstance(index, list):  # the dataset indexed with the list, as PyTorch does
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list:
        """The samples at ``indices`` (a DataLoader's batch), read in one call when the dataset
        has a batched ``__getitems__`` of its own."""
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems is not None:
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given ``lengths``.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to 1: each subset then
    gets ``floor(frac * n)`` samples and the leftover ones go round-robin to the first subsets
    (PyTorch's rule; like PyTorch, any lengths summing to 1, such as ``[1, 0]``, are fractions).
    """
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:  # fractions (PyTorch's test)
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
        lengths = counts
    finite = all(math.isfinite(x) for x in lengths)  # nan/inf get the message below
    if finite and sum(lengths) != n:  # PyTorch's sentence first, then what was given
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset! "
            f"(lengths {lengths} sum to {sum(lengths)}, the dataset has {n}; "
            "fractions must sum to 1)"
        )
    if any(not math.isfinite(x) or int(x) != x or x < 0 for x in lengths):
        raise ValueError(
            f"random_split: lengths {lengths} must be non-negative counts summing to the dataset "
            f"length {n} (or fractions summing to 1)"
        )
    perm = _permutation(n, generator)
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[start : start + int(length)]))
        start += int(length)
    return out
