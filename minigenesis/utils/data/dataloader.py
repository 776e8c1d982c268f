"""``torch.utils.data.dataloader``: the DataLoader, which cuts a sampler's order into batches
and *collates* each batch's samples into tensors (``default_collate``).

Loading runs in the main process: ``num_workers`` and ``pin_memory`` are accepted so PyTorch code
runs unchanged, and ignored (``get_worker_info()`` is therefore always None).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ... import creation, functions
from ..._tensor import Tensor
from ...random import Generator
from .dataset import Dataset, IterableDataset, Subset
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


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


def default_convert(data: Any) -> Any:
    """What a DataLoader with ``batch_size=None`` does to each sample: NumPy arrays and scalars
    become tensors, containers are converted element by element (a tuple comes back as a list,
    a namedtuple stays one), anything else is returned as it is."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray | np.generic) and not isinstance(data, np.str_ | np.bytes_):
        return data if data.dtype.kind in "OSUa" else functions.as_tensor(data)
    if isinstance(data, Mapping):
        return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, Sequence) and not isinstance(data, str | bytes):
        return [default_convert(d) for d in data]
    return data


def get_worker_info() -> None:
    """Information about the loading worker process the caller runs in, or None in the main
    process. Loading always runs in the main process here, so this is always None (a dataset's
    ``__iter__`` that splits its work by ``worker_info.id`` then takes all of it)."""
    return None


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
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_sampler is None and batch_size is not None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        elif batch_size is not None and (not isinstance(batch_size, int) or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        self._auto_collate = collate_fn is None
        if collate_fn is None:  # no batching: each sample only converted (PyTorch's rule)
            batching = batch_size is not None or batch_sampler is not None
            collate_fn = default_collate if batching else default_convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iter_stream()
            return
        if self.batch_sampler is None:  # batch_size=None: samples one by one, as they are
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            batch = _gather_batch(self.dataset, indices) if self._auto_collate else None
            if batch is None:
                batch = self.collate_fn([self.dataset[i] for i in indices])
            yield batch

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
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
