"""``torch.utils.data.sampler``: the order in which a DataLoader visits a dataset's indices.

A sampler yields indices (``SequentialSampler``: 0, 1, ...; ``RandomSampler``: a permutation, or
draws with replacement); a ``BatchSampler`` groups them into lists, one list per batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Generic, TypeVar

import numpy as np

from ... import creation, functions
from ..._tensor import Tensor
from ...dtypes import float64
from ...random import Generator, generator_for

__all__ = [
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]

T_co = TypeVar("T_co", covariant=True)  # what the sampler yields


def _permutation(n: int, generator: Generator | None) -> list[int]:
    """A permutation of 0..n-1 drawn from ``generator`` or the minigenesis CPU generator."""
    return generator_for(np, generator).permutation(n).tolist()


class Sampler(Generic[T_co]):
    """Yields dataset indices (``Sampler[int]``; a batch sampler is a ``Sampler[list[int]]``)."""

    # No __len__ here, as in PyTorch: len() of a sampler that defines none (and of a DataLoader
    # drawing from it) is a TypeError.
    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., n-1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


_EAGER = 1 << 20  # a pass of up to this many indices is drawn whole when it starts
_PIECE = 1 << 16  # ... a longer one (with replacement) this many at a time


def _lazily(rng: np.random.Generator, n: int, wanted: int, replacement: bool) -> Iterator[int]:
    """RandomSampler's indices drawn piece by piece (with replacement ``_PIECE`` at a time,
    without a permutation at a time): asking for 10**9 samples no longer allocates 10**9
    Python ints (~36 GB) before the first batch."""
    while wanted > 0:
        piece = rng.integers(0, n, size=min(wanted, _PIECE)) if replacement else \
            rng.permutation(n)[:wanted]  # fmt: skip
        wanted -= len(piece)
        yield from piece.tolist()


class RandomSampler(Sampler):
    """Random indices of ``data_source``, drawn afresh when each pass starts.

    Without replacement: a random permutation of 0..n-1; asked for ``num_samples`` > n, whole
    permutations one after another, the last cut short (every index appears
    ``num_samples // n`` or one more times). With ``replacement=True``: ``num_samples`` (default
    n) independent uniform draws from 0..n-1 (an index may repeat or never come). The draws come
    from ``generator``, or from the minigenesis CPU generator.
    """

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        self.data_source, self.replacement, self.generator = data_source, replacement, generator
        self._num_samples = num_samples
        n = self.num_samples
        if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={n}"
            )

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields (``len(data_source)`` unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, wanted = len(self.data_source), self.num_samples
        rng = generator_for(np, self.generator)
        if wanted > _EAGER:  # a long pass (iteration-based training): drawn as it goes, as
            return _lazily(rng, n, wanted, self.replacement)  # PyTorch's; memory stays flat
        if self.replacement:
            return iter(rng.integers(0, n, size=wanted).tolist())
        passes = [rng.permutation(n) for _ in range(-(-wanted // n))]
        return iter(np.concatenate(passes)[:wanted].tolist())

    def __len__(self) -> int:
        return self.num_samples


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
            raise ValueError(
                "num_samples should be a positive integer value, "
                f"but got num_samples={num_samples!r}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement!r}"
            )
        w = weights.detach().double() if isinstance(weights, Tensor) else weights
        self.weights = creation.tensor(w, dtype=float64)
        if self.weights.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(self.weights.shape)}"
            )
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
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size!r}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last!r}"
            )
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
