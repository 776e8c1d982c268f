"""``torch.utils.data.dataloader``: the DataLoader, which cuts a sampler's order into batches
and *collates* each batch's samples into tensors (``default_collate``).

With ``num_workers=0`` loading runs in the main process; with N > 0 in N worker processes
(``multiprocess.py`` the main side, ``worker.py`` the workers'). ``pin_memory`` is accepted and
has no effect.
"""

from __future__ import annotations

import copy
import multiprocessing
import os
from collections.abc import (
    Callable,
    Iterable,
    Iterator,
    Mapping,
    MutableMapping,
    MutableSequence,
    Sequence,
)
from typing import Any

import numpy as np

from ... import creation, functions
from ..._tensor import Tensor
from ...random import Generator
from .dataset import Dataset, IterableDataset
from .fetch import (
    FetchPlan,
    fetch_map,
    fetch_stream,
    pass_length,
    warn_past_reported_length,
)
from .multiprocess import MultiProcessIter, draw_base_seed
from .sampler import BatchSampler, RandomSampler, SequentialSampler
from .worker import get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, following the structure of the first sample.

    tensors -> ``mg.stack`` (a new leading batch dimension); NumPy arrays and scalars -> stacked
    tensors; Python floats -> a float64 tensor, ints (and bools) -> ``mg.tensor(batch)``'s dtype
    (int64, bool, or float32 when a float follows an int: PyTorch's rule); strings and bytes are
    returned as given (the loader's list; a tuple per field of tuple samples); mappings collate
    per key and keep their type (an OrderedDict stays one); tuples and lists collate per
    position (a tuple comes back as a list, a namedtuple stays a namedtuple).
    """
    if len(batch) == 0:
        raise IndexError("default_collate: got an empty batch (no first sample to follow)")
    elem = batch[0]
    if isinstance(elem, Tensor):
        for i, b in enumerate(batch):  # a tensor batch holds only tensors, as torch.stack wants
            if not isinstance(b, Tensor):
                kind = f"{type(b).__module__}.{type(b).__qualname__}".removeprefix("builtins.")
                raise TypeError(f"expected Tensor as element {i} in argument 0, but got {kind}")
        for i, b in enumerate(batch):
            if b.shape != elem.shape:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got {list(elem.shape)} at "
                    f"entry 0 and {list(b.shape)} at entry {i} (pad them or pass a collate_fn)"
                )
        return functions.stack(list(batch))
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUa":  # strings and objects have no tensor dtype
            raise TypeError(_COLLATE_TYPES.format(elem.dtype))
        return default_collate([functions.as_tensor(b) for b in batch])
    if isinstance(elem, np.bool_ | np.number):  # NumPy scalars keep their dtype
        return functions.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return creation.tensor(list(batch), dtype="float64")
    if isinstance(elem, int):  # bool is an int: all-bool batches give a bool tensor
        return creation.tensor(list(batch))
    if isinstance(elem, str | bytes):
        return batch  # as given: a list from the loader, a tuple for a tuple field
    if isinstance(elem, Mapping):
        return _same_mapping(elem, {key: default_collate([d[key] for d in batch]) for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return type(elem)(*(default_collate(field) for field in zip(*batch)))
    if isinstance(elem, Sequence):
        if len({len(b) for b in batch}) != 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(field) for field in zip(*batch)]
        return fields if isinstance(elem, tuple) else _same_sequence(elem, fields)
    raise TypeError(_COLLATE_TYPES.format(type(elem)))


_COLLATE_TYPES = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {} (pass a collate_fn for other types)"
)


def _same_mapping(elem: Mapping, values: dict) -> Any:
    """``values`` in a mapping of ``elem``'s type (a copy of it for a mutable mapping, so a
    defaultdict keeps its factory), or a dict when that type cannot be built from a dict."""
    try:
        if isinstance(elem, MutableMapping):
            clone = copy.copy(elem)
            clone.update(values)
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def _same_sequence(elem: Sequence, values: list) -> Any:
    """``values`` in a sequence of ``elem``'s type (a list subclass stays one), else a list."""
    try:
        if isinstance(elem, MutableSequence):
            clone = copy.copy(elem)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(elem)(values)
    except TypeError:
        return values


def default_convert(data: Any) -> Any:
    """What a DataLoader with ``batch_size=None`` does to each sample: NumPy arrays and scalars
    become tensors, containers are converted element by element (a tuple comes back as a list,
    a namedtuple and a mapping keep their type), anything else is returned as it is."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray | np.generic) and not isinstance(data, np.str_ | np.bytes_):
        return data if data.dtype.kind in "OSUa" else functions.as_tensor(data)
    if isinstance(data, Mapping):
        return _same_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence) and not isinstance(data, str | bytes):
        return _same_sequence(data, [default_convert(d) for d in data])
    return data


# ---------------------------------------------------------------------------------------------
# The DataLoader
# ---------------------------------------------------------------------------------------------
class DataLoader:
    """Iterate over ``dataset`` in batches.

    ``batch_size=None`` yields single samples without collation. ``shuffle=True`` draws a new
    permutation each epoch from ``generator`` (or the minigenesis RNG); ``drop_last`` skips a
    final short batch; ``collate_fn`` turns a list of samples into a batch (``default_collate``).
    ``num_workers=N > 0`` loads in N worker processes (``multiprocess.py``), ``prefetch_factor``
    batches ahead each; ``timeout`` bounds the wait for one batch; ``worker_init_fn(id)`` runs in
    each worker first; ``persistent_workers`` keeps them from one epoch to the next.
    ``pin_memory`` is accepted and has no effect (there is no page-locked host memory here);
    batches come in the sampler's order; with workers, ``in_order=False`` yields each batch as
    soon as a worker delivers it (a slow batch does not hold back later ones; the order then
    varies from run to run). Without workers it changes nothing.
    """

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Iterable[int] | None = None,
        batch_sampler: Iterable[list[int]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_worker_options(
            num_workers, timeout, multiprocessing_context, prefetch_factor, persistent_workers
        )
        self.dataset = dataset
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.multiprocessing_context = worker_init_fn, multiprocessing_context
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.persistent_workers, self.in_order = persistent_workers, in_order
        self.pin_memory_device = pin_memory_device
        self.generator = generator
        self._iterator: Any = None  # the persistent workers' iterator
        self._iterable = isinstance(dataset, IterableDataset)
        self._iterable_len_called: int | None = None  # len(dataset) once len(self) ran
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler)):
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, "
                        f"but got {name}={value}"
                    )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler option"
                )
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if batch_size is not None and (
            not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0
        ):
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if sampler is None and not self._iterable:
            sampler = (
                RandomSampler(dataset, generator=generator)  # type: ignore[arg-type]
                if shuffle
                else SequentialSampler(dataset)  # type: ignore[arg-type]
            )
        if batch_sampler is None and batch_size is not None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        self._auto_collate = collate_fn is None
        if collate_fn is None:  # no batching: each sample only converted (PyTorch's rule)
            batching = batch_size is not None or batch_sampler is not None
            collate_fn = default_collate if batching else default_convert
        self.collate_fn = collate_fn
        self._initialized = True

    # These decide the batches through the samplers built above: changed later, they would be
    # silently ignored (a new batch_size, say), so PyTorch refuses the change, and so do we.
    _FROZEN = (
        "batch_size",
        "batch_sampler",
        "sampler",
        "drop_last",
        "dataset",
        "persistent_workers",
    )

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._FROZEN and self.__dict__.get("_initialized"):
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    def _index_sampler(self) -> Iterable[Any]:
        """What one task is drawn from: the batch sampler (lists of indices) when batching,
        the sampler (single indices) when not."""
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers > 0:
            if not self.persistent_workers:
                return MultiProcessIter(self)
            if self._iterator is None:
                self._iterator = MultiProcessIter(self)
            else:
                self._iterator._reset()
            return self._iterator
        # one draw, as with workers (their base seed), so a seeded shuffle gives the same order
        # whatever num_workers is (PyTorch draws it in both cases too)
        draw_base_seed(self.generator)
        return _InProcessIter(self)

    def _fetch_plan(self) -> FetchPlan:
        return FetchPlan(
            dataset=self.dataset,
            iterable=self._iterable,
            auto_collation=self.batch_sampler is not None or self.batch_size is not None,
            batch_size=self.batch_size,
            drop_last=self.drop_last,
            collate_fn=self.collate_fn,
            fast_collate=self._auto_collate,
        )

    def __len__(self) -> int:
        """The number of batches one pass yields. An IterableDataset has one only if it defines
        ``__len__`` (its sample count; with N workers each must yield its own share)."""
        if self._iterable:
            n = len(self.dataset)  # type: ignore[arg-type]  # TypeError without __len__
            self._iterable_len_called = n  # checked as batches come (PyTorch's warning)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self._index_sampler())  # type: ignore[arg-type]


class _InProcessIter:
    """One ``num_workers=0`` pass over a loader: yields its batches and, like PyTorch's
    iterator (and the multi-process one), has the loader's ``len`` (map-style datasets).

    Not a generator, so that an error in one batch (a corrupt sample, a failing collate) is that
    batch's: the next ``next()`` reads the next batch, as PyTorch's iterator and the workers do
    (a generator is finished once an exception has left it)."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader, self._yielded = loader, 0
        self._reported = loader._iterable_len_called  # as len(loader) left it before this pass
        self._plan = loader._fetch_plan()
        self._stream = iter(loader.dataset) if loader._iterable else None
        self._indices = None if loader._iterable else iter(loader._index_sampler())

    def __iter__(self) -> _InProcessIter:
        return self

    def __next__(self) -> Any:
        if self._stream is not None:
            batch = fetch_stream(self._plan, self._stream)  # StopIteration at the stream's end
        else:
            batch = fetch_map(self._plan, next(self._indices))
        self._yielded += 1
        warn_past_reported_length(self._loader, self._reported, self._yielded)
        return batch

    def __len__(self) -> int:
        return pass_length(self._loader)


def max_workers() -> int:
    """The most worker processes one loader may start: 4 per core, at least 64 (the launcher's
    rule for processes per machine). Each worker is a whole process, so a typo such as
    ``num_workers=100000`` would otherwise fork until the machine runs out of process ids
    (PyTorch only warns) and starve every other program of them."""
    return max(64, 4 * (os.cpu_count() or 1))


def _check_worker_options(
    num_workers: Any,
    timeout: Any,
    multiprocessing_context: Any,
    prefetch_factor: Any,
    persistent_workers: bool,
) -> None:
    """PyTorch's checks of the worker options, with its messages."""
    if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            f"multiprocessing, got num_workers={num_workers!r}"
        )
    if num_workers > max_workers():
        raise ValueError(
            f"num_workers={num_workers} is more worker processes than this machine can run: at "
            f"most {max_workers()} (4 per CPU core, at least 64)"
        )
    if not timeout >= 0:  # (NaN too)
        raise ValueError(f"timeout option should be non-negative, got timeout={timeout!r}")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing. Let "
            "num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None:
        if num_workers == 0:
            raise ValueError(
                "multiprocessing_context can only be used with multi-process loading "
                f"(num_workers > 0), but got num_workers={num_workers}"
            )
        if isinstance(multiprocessing_context, str):
            methods = multiprocessing.get_all_start_methods()
            if multiprocessing_context not in methods:
                raise ValueError(
                    "multiprocessing_context option should specify a valid start method in "
                    f"{methods!r}, but got multiprocessing_context={multiprocessing_context!r}"
                )
        elif not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
            raise TypeError(
                "multiprocessing_context option should be a valid context object or a string "
                f"specifying the start method, but got {multiprocessing_context!r}"
            )


# mg.utils.data.DistributedSampler, as torch.utils.data exports it (its home: distributed.py)
