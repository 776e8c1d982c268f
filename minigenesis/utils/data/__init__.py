"""Data loading: Dataset, TensorDataset, Subset, random_split, samplers and the DataLoader.

A *dataset* maps an index to one sample (``dataset[i]``); a *sampler* says in which order the
indices are visited; the *DataLoader* cuts that order into batches and *collates* each batch's
samples into tensors::

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:          # xb: (64, ...) stacked from 64 samples
        ...

Shuffling draws a permutation from the minigenesis RNG (``mg.manual_seed`` makes it repeat) or
from a private ``generator=mg.Generator()``. Loading runs in the main process: ``num_workers``
and ``pin_memory`` are accepted so PyTorch code runs unchanged, and ignored.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ... import creation, functions
from ..._tensor import Tensor
from ...dtypes import float64
from ...random import Generator, generator_for

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "DataLoader",
    "default_collate",
    "DistributedSampler",
]


# ---------------------------------------------------------------------------------------------
# Datasets
# ---------------------------------------------------------------------------------------------
class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define ``__iter__`` (no indexing, no shuffling)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class TensorDataset(Dataset):
    """Sample ``i`` is ``(t[i] for t in tensors)``; every tensor must have the same first size."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [t.shape[0] if t.ndim else None for t in tensors]
        if None in sizes or len(set(sizes)) != 1:
            shapes = ", ".join(str(tuple(t.shape)) for t in tensors)
            raise ValueError(f"TensorDataset: tensors must share their first size, got {shapes}")
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
        if not self.datasets:
            raise ValueError("ConcatDataset needs at least one dataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"index {index} out of range for ConcatDataset of length {n}")
        k = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = 0 if k == 0 else int(self.cumulative_sizes[k - 1])
        return self.datasets[k][index - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, index: int) -> Any:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def _permutation(n: int, generator: Generator | None) -> list[int]:
    """A permutation of 0..n-1 drawn from ``generator`` or the minigenesis CPU generator."""
    return generator_for(np, generator).permutation(n).tolist()


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given ``lengths``.

    ``lengths`` are counts summing to ``len(dataset)``, or fractions summing to 1: each subset then
    gets ``floor(frac * n)`` samples and the leftover ones go round-robin to the first subsets
    (PyTorch's rule).
    """
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if any(int(x) != x or x < 0 for x in lengths) or sum(lengths) != n:
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


# ---------------------------------------------------------------------------------------------
# Samplers: the order in which indices are visited
# ---------------------------------------------------------------------------------------------
class Sampler:
    """Yields dataset indices."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., n-1."""

    def __init__(self, data_source: Dataset) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A fresh random permutation of 0..n-1 on every pass (drawn when iteration starts)."""

    def __init__(self, data_source: Dataset, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        return iter(_permutation(len(self.data_source), self.generator))

    def __len__(self) -> int:
        return len(self.data_source)


class SubsetRandomSampler(Sampler):
    """The given indices, in a random order."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = list(indices)
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        return (self.indices[i] for i in _permutation(len(self.indices), self.generator))

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``range(len(weights))``, index i drawn with probability
    weights[i] / sum(weights) (with replacement by default: oversampling a rare class).

    Without replacement each draw removes its index, so ``num_samples`` may not exceed the number
    of non-zero weights.
    """

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples must be a positive integer, got {num_samples!r}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement must be a bool, got {replacement!r}")
        w = weights.detach().double() if isinstance(weights, Tensor) else weights
        self.weights = creation.tensor(w, dtype=float64)
        if self.weights.ndim != 1:
            raise ValueError(f"weights must be 1-D, got shape {tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        picks = functions.multinomial(
            self.weights, self.num_samples, self.replacement, generator=self.generator
        )
        return iter(picks.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups a sampler's indices into lists of ``batch_size`` (the last one shorter unless
    ``drop_last``)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# ---------------------------------------------------------------------------------------------
# Collation: a list of samples -> one batch
# ---------------------------------------------------------------------------------------------
def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, following the structure of the first sample.

    tensors -> ``mg.stack`` (a new leading batch dimension); NumPy arrays and scalars -> stacked
    tensors; Python floats -> float64 tensor, ints -> int64, bools -> bool (as PyTorch); strings
    stay a list; dicts collate per key; tuples and lists collate per position (a list comes back,
    a namedtuple stays a namedtuple).
    """
    if len(batch) == 0:
        raise ValueError("default_collate: got an empty batch")
    elem = batch[0]
    if isinstance(elem, Tensor):
        shapes = {tuple(b.shape) for b in batch}
        if len(shapes) != 1:
            raise RuntimeError(
                f"default_collate: cannot stack tensors of different shapes {sorted(shapes)}; "
                "pad them or pass a collate_fn"
            )
        return functions.stack(list(batch))
    if isinstance(elem, np.ndarray | np.generic) and not isinstance(elem, np.str_ | np.bytes_):
        if elem.dtype == object:
            raise TypeError("default_collate: NumPy arrays of dtype object cannot be batched")
        return creation.tensor(np.stack([np.asarray(b) for b in batch]))
    if isinstance(elem, bool):
        return creation.tensor(list(batch), dtype="bool")
    if isinstance(elem, numbers.Integral):
        return creation.tensor(list(batch), dtype="int64")
    if isinstance(elem, numbers.Real):
        return creation.tensor([float(b) for b in batch], dtype="float64")
    if isinstance(elem, str | bytes):
        return list(batch)
    if isinstance(elem, Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, Sequence):
        if len({len(b) for b in batch}) != 1:
            raise RuntimeError("default_collate: each sample in a batch must have the same length")
        return [default_collate(list(field)) for field in zip(*batch)]
    raise TypeError(
        f"default_collate: cannot batch samples of type {type(elem).__name__}; expected tensors, "
        "NumPy arrays, numbers, strings, dicts, tuples or lists (or pass a collate_fn)"
    )


def _gather_batch(dataset: Dataset, indices: list[int]) -> Any:
    """Fast path: a whole batch in one fancy-index per tensor, or None when there is none.

    A dataset may define ``_get_batch(indices)`` returning exactly what
    ``default_collate([dataset[i] for i in indices])`` would (TensorDataset does, and so do the
    file-backed readers); a Subset forwards to its dataset. This skips building one small tensor
    per sample, which dominates the loading time of small samples.
    """
    while type(dataset) is Subset:
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    get_batch = getattr(dataset, "_get_batch", None)
    return None if get_batch is None else get_batch(indices)


# ---------------------------------------------------------------------------------------------
# The DataLoader
# ---------------------------------------------------------------------------------------------
class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``batch_size=None`` yields single samples without collation. ``shuffle=True`` draws a new
    permutation each epoch from ``generator`` (or the minigenesis RNG); ``drop_last`` skips a
    final short batch; ``collate_fn`` turns a list of samples into a batch (``default_collate``).
    """

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool = False,
        sampler: Iterable[int] | None = None,
        batch_sampler: Iterable[list[int]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        generator: Generator | None = None,
        **_ignored: Any,  # timeout, prefetch_factor, persistent_workers ...: no workers here
    ) -> None:
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers must be a non-negative integer, got {num_workers!r}")
        self.dataset = dataset
        self.num_workers, self.pin_memory = num_workers, pin_memory
        self.generator = generator
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError("DataLoader: an IterableDataset cannot be shuffled or sampled")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: pass either sampler or shuffle=True, not both")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler or drop_last):
            raise ValueError(
                "DataLoader: batch_sampler excludes batch_size, shuffle, sampler and drop_last"
            )
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator) if shuffle else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        self._auto_collate = collate_fn is None
        self.collate_fn = default_collate if collate_fn is None else collate_fn

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iter_stream()
            return
        if self.batch_sampler is None:  # batch_size=None: samples one by one, as they are
            for index in self.sampler:
                yield self.dataset[index]
            return
        for indices in self.batch_sampler:
            batch = _gather_batch(self.dataset, indices) if self._auto_collate else None
            if batch is None:
                batch = self.collate_fn([self.dataset[i] for i in indices])
            yield batch

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            yield from self.dataset
            return
        chunk: list = []
        for sample in self.dataset:
            chunk.append(sample)
            if len(chunk) == self.batch_size:
                yield self.collate_fn(chunk)
                chunk = []
        if chunk and not self.drop_last:
            yield self.collate_fn(chunk)

    def __len__(self) -> int:
        if self._iterable:
            raise TypeError("DataLoader over an IterableDataset has no len()")
        if self.batch_sampler is None:
            return len(self.sampler)
        return len(self.batch_sampler)


# mg.utils.data.DistributedSampler, as torch.utils.data exports it (its home: distributed.py)
from .distributed import DistributedSampler  # noqa: E402
