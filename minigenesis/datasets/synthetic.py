"""Synthetic datasets generated on the fly: spirals, Gaussian blobs and a noisy regression curve.

Each ``make_*`` function returns ``(X, y)`` tensors; wrap them in ``TensorDataset(X, y)`` for a
DataLoader. ``seed=`` gives the same data every time without touching the global RNG; without it
the draws come from the minigenesis RNG (so ``mg.manual_seed`` makes them repeat).

The data are generated on the host with NumPy (this is input preparation, not tensor compute) and
moved to ``device`` at the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor import Tensor
from ..creation import tensor
from ..random import Generator, generator_for

__all__ = ["make_spirals", "make_blobs", "make_curve"]


def _rng(seed: int | None, generator: Generator | None) -> np.random.Generator:
    if seed is not None:
        return np.random.Generator(np.random.PCG64(int(seed)))
    return generator_for(np, generator)


def _check_positive(**kwargs: int) -> None:
    for name, value in kwargs.items():
        if int(value) != value or value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")


def make_spirals(
    n_samples: int = 3000,
    n_classes: int = 3,
    noise: float = 0.2,
    turns: float = 1.0,
    seed: int | None = None,
    generator: Generator | None = None,
    device: Any = None,
) -> tuple[Tensor, Tensor]:
    """Interleaved spiral arms in 2-D, one arm per class (a classic non-linear toy problem).

    For arm ``k`` and ``t`` evenly spaced in [0, 1]: radius ``r = t`` and angle
    ``theta = 2 pi (turns t + k / n_classes) + noise * N(0, 1)``; the point is
    ``(r sin theta, r cos theta)``. A linear model stays near chance (1 / n_classes); a small MLP
    separates the arms. Returns ``X`` float32 of shape (n_samples, 2) and ``y`` int64 labels in
    ``[0, n_classes)`` (arms of equal size; ``n_samples`` is rounded down to a multiple of
    ``n_classes``).
    """
    _check_positive(n_samples=n_samples, n_classes=n_classes)
    rng = _rng(seed, generator)
    per_class = n_samples // n_classes
    if per_class == 0:
        raise ValueError(f"n_samples={n_samples} gives no point per class for {n_classes} classes")
    t = np.linspace(0.0, 1.0, per_class)
    xs, ys = [], []
    for k in range(n_classes):
        theta = 2 * np.pi * (turns * t + k / n_classes) + noise * rng.standard_normal(per_class)
        xs.append(np.stack([t * np.sin(theta), t * np.cos(theta)], axis=1))
        ys.append(np.full(per_class, k, dtype=np.int64))
    X, y = np.concatenate(xs).astype(np.float32), np.concatenate(ys)
    return tensor(X, device=device), tensor(y, device=device)


def make_blobs(
    n_samples: int = 1000,
    n_features: int = 2,
    centers: int | Any = 3,
    cluster_std: float = 1.0,
    center_box: tuple[float, float] = (-10.0, 10.0),
    seed: int | None = None,
    generator: Generator | None = None,
    device: Any = None,
) -> tuple[Tensor, Tensor]:
    """Isotropic Gaussian clusters: ``x = center[y] + cluster_std * N(0, I)``.

    ``centers`` is a count (centres drawn uniformly in ``center_box``) or an array of shape
    (n_centers, n_features). Samples are split as evenly as possible between clusters and shuffled.
    Returns ``X`` float32 (n_samples, n_features) and ``y`` int64 cluster ids.
    """
    _check_positive(n_samples=n_samples, n_features=n_features)
    rng = _rng(seed, generator)
    if np.isscalar(centers):
        _check_positive(centers=centers)
        lo, hi = center_box
        centre_array = rng.uniform(lo, hi, size=(int(centers), n_features))
    else:
        centre_array = np.asarray(centers, dtype=np.float64)
        if centre_array.ndim != 2 or centre_array.shape[1] != n_features:
            raise ValueError(
                f"centers must have shape (n_centers, {n_features}), got {centre_array.shape}"
            )
    k = centre_array.shape[0]
    labels = np.arange(n_samples) % k  # as even a split as possible
    rng.shuffle(labels)
    X = centre_array[labels] + cluster_std * rng.standard_normal((n_samples, n_features))
    return tensor(X.astype(np.float32), device=device), tensor(
        labels.astype(np.int64), device=device
    )


def make_curve(
    n_samples: int = 256,
    noise: float = 0.1,
    x_range: tuple[float, float] = (-3.0, 3.0),
    seed: int | None = None,
    generator: Generator | None = None,
    device: Any = None,
) -> tuple[Tensor, Tensor]:
    """A 1-D regression problem: ``y = sin(2x) + 0.3 x + noise * N(0, 1)`` with x uniform in
    ``x_range``, sorted so plots draw a line. Returns ``X`` and ``y`` float32 of shape (n, 1)."""
    _check_positive(n_samples=n_samples)
    rng = _rng(seed, generator)
    x = np.sort(rng.uniform(x_range[0], x_range[1], size=n_samples))
    y = np.sin(2 * x) + 0.3 * x + noise * rng.standard_normal(n_samples)
    as_column = lambda a: tensor(a.astype(np.float32)[:, None], device=device)  # noqa: E731
    return as_column(x), as_column(y)
