"""DistributedSampler: each rank of a data-parallel run reads its own share of the dataset.

With N ranks, every epoch's index list (shuffled or not) is cut so that rank r takes positions
r, r + N, r + 2N, ...; together the ranks see the whole dataset once, and each the same number of
samples, which data-parallel training needs (every rank must run the same number of steps, or
the gradient all-reduces no longer pair up).

When N does not divide the dataset size n, either the list is padded with its own first indices
up to a multiple of N (a few samples are seen twice; default), or, with ``drop_last=True``, cut
down to a multiple of N (a few samples are not seen that epoch). Shuffling draws the permutation
from a generator seeded with ``seed + epoch``: every rank draws the same one, and
``set_epoch(e)`` before each epoch makes each epoch's order different.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ... import distributed as dist
from ...random import Generator
from .dataset import Dataset
from .sampler import Sampler, _permutation


class DistributedSampler(Sampler):
    """Rank ``rank``'s share of ``dataset``: PyTorch's semantics, and its index lists when
    ``shuffle=False`` (a shuffled order is drawn from minigenesis's generator, not PyTorch's)."""

    def __init__(
        self,
        dataset: Dataset,
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if not isinstance(num_replicas, int) or num_replicas < 1:
            raise ValueError(f"num_replicas must be a positive integer, got {num_replicas!r}")
        if not isinstance(rank, int) or not 0 <= rank < num_replicas:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        self.epoch = 0
        n = len(dataset)  # type: ignore[arg-type]
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)  # the largest fit
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)  # type: ignore[arg-type]
        if self.shuffle:
            indices = _permutation(n, Generator().manual_seed(self.seed + self.epoch))
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:  # pad with the list's own start (repeated whole if it is shorter than the pad)
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        assert len(indices) == self.total_size
        mine = indices[self.rank : self.total_size : self.num_replicas]
        return iter(mine)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Call before each epoch (on every rank): epoch ``e`` shuffles with ``seed + e``."""
        self.epoch = epoch
