"""Data loading: Dataset, TensorDataset, Subset, random_split, samplers and the DataLoader.

A *dataset* maps an index to one sample (``dataset[i]``); a *sampler* says in which order the
indices are visited; the *DataLoader* cuts that order into batches and *collates* each batch's
samples into tensors::

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)
    for xb, yb in loader:          # xb: (64, ...) stacked from 64 samples
        ...

Shuffling draws a permutation from the minigenesis RNG (``mg.manual_seed`` makes it repeat) or
from a private ``generator=mg.Generator()``. ``num_workers=N`` loads in N worker processes
(``get_worker_info()`` tells a dataset which one it runs in); ``pin_memory`` has no effect.
"""

from . import dataloader, dataset, distributed, sampler, worker
from .dataloader import DataLoader, default_collate, default_convert, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
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
    "default_convert",
    "get_worker_info",
    "DistributedSampler",
    "dataloader",
    "dataset",
    "distributed",
    "sampler",
    "worker",
]
