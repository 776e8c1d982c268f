"""How one task becomes one batch (``torch.utils.data._utils.fetch``), the same in the main
process (``num_workers=0``) and in a worker.

A map-style task is a list of indices (batching) or one index; its samples come from
``dataset.__getitems__(indices)`` when the dataset defines it (a batched read), else from
``dataset[i]`` one by one, and ``collate_fn`` merges them. An iterable task is "the next
``batch_size`` samples of the stream".
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .dataset import Subset

__all__ = ["FetchPlan", "fetch_map", "fetch_stream", "pass_length", "warn_past_reported_length"]


@dataclass(frozen=True)
class FetchPlan:
    """How a task turns into a batch: the DataLoader's settings (pickled once per worker)."""

    dataset: Any
    iterable: bool
    auto_collation: bool  # batches (batch_size or batch_sampler given) or single samples
    batch_size: int | None
    drop_last: bool
    collate_fn: Callable[[Any], Any]
    fast_collate: bool  # the default collate: a dataset's _get_batch may do the whole batch


def gather_batch(dataset: Any, indices: list[int]) -> Any:
    """Fast path: a whole batch in one fancy-index per tensor, or None when there is none.

    A dataset may define ``_get_batch(indices)`` returning exactly what
    ``default_collate([dataset[i] for i in indices])`` would (TensorDataset does, and so do the
    file-backed readers); a Subset forwards to its dataset. This skips building one small tensor
    per sample, which dominates the loading time of small samples. A dataset with its own
    ``__getitems__`` decides what a batch is, so it gets no fast path.
    """
    while type(dataset) is Subset:
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    get_batch = getattr(dataset, "_get_batch", None)
    if get_batch is None or hasattr(dataset, "__getitems__"):
        return None
    return get_batch(indices)


def fetch_map(plan: FetchPlan, index: Any) -> Any:
    """One task of a map-style dataset: a list of indices (batching) or one index.

    A StopIteration from the dataset or the collate function becomes a RuntimeError naming the
    task: in a worker it would otherwise read as the end of that worker's share and its later
    batches would be dropped without a word (a map-style pass ends when the sampler does).
    """
    try:
        return _fetch_map(plan, index)
    except StopIteration as err:
        which = f"indices {index}" if isinstance(index, list) else f"index {index!r}"
        raise RuntimeError(
            f"{type(plan.dataset).__name__} raised StopIteration while fetching {which}: "
            "a map-style dataset has no end of its own (its sampler decides how many samples a "
            "pass reads); raise IndexError for an index out of range"
        ) from err


def _fetch_map(plan: FetchPlan, index: Any) -> Any:
    dataset = plan.dataset
    if not plan.auto_collation:
        return plan.collate_fn(dataset[index])
    if plan.fast_collate:
        batch = gather_batch(dataset, index)
        if batch is not None:
            return batch
    getitems = getattr(dataset, "__getitems__", None)
    samples = getitems(index) if getitems else [dataset[i] for i in index]
    return plan.collate_fn(samples)


def fetch_stream(plan: FetchPlan, stream: Iterator[Any]) -> Any:
    """The next batch (or sample) of an IterableDataset; StopIteration when it is exhausted."""
    if not plan.auto_collation:
        return plan.collate_fn(next(stream))
    chunk = []
    for sample in stream:
        chunk.append(sample)
        if len(chunk) == plan.batch_size:
            break
    if not chunk or (plan.drop_last and len(chunk) < plan.batch_size):
        raise StopIteration
    return plan.collate_fn(chunk)


def warn_past_reported_length(loader: Any, reported: int | None, yielded: int) -> None:
    """PyTorch's warning when an IterableDataset yields more than the ``len(dataset)`` that
    ``len(loader)`` read before this pass began (``reported``; None if len() was not called):
    the count compared is of batches yielded, as in PyTorch. With workers the usual cause is a
    dataset that does not split its stream between them (each yields all of it)."""
    if reported is None or yielded <= reported:
        return
    msg = (
        f"Length of IterableDataset {loader.dataset} was reported to be {reported} "
        f"(when accessing len(dataloader)), but {yielded} samples have been fetched. "
    )
    if loader.num_workers > 0:
        msg += (
            "For multiprocessing data-loading, this could be caused by not properly configuring "
            "the IterableDataset replica at each worker (see get_worker_info)."
        )
    warnings.warn(msg, stacklevel=3)


def pass_length(loader: Any) -> int:
    """``len()`` of one pass's iterator: the batch count of a map-style loader. Over an
    IterableDataset it is a TypeError, as in PyTorch (its iterator draws from an endless
    sampler); ``len(loader)`` gives the length the dataset reports."""
    if loader._iterable:
        raise TypeError(
            "a DataLoader iterator over an IterableDataset has no len(); use len(loader)"
        )
    return len(loader._index_sampler())
