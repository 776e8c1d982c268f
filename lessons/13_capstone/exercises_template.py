"""Chapter 13 exercises: the capstone, a small CNN trained with everything of the course."""

from __future__ import annotations

import math  # noqa: F401
from pathlib import Path

import numpy as np

import minigenesis as mg
from minigenesis.utils.tensorboard import SummaryWriter  # noqa: F401

CLASSES = ("horizontal bar", "vertical bar", "diagonal", "square")


def make_shapes(
    n: int, size: int = 12, noise: float = 0.3, seed: int = 0
) -> tuple[mg.Tensor, mg.Tensor]:
    """Ready-made (not an exercise): ``n`` noisy ``size`` x ``size`` images of four shapes.

    Class 0 a horizontal bar, 1 a vertical bar, 2 a diagonal, 3 the outline of a square; each at
    a random place, of random length and brightness, plus Gaussian noise. Returns ``X`` float32
    of shape (n, 1, size, size) and ``y`` int64 of shape (n,), the classes in equal numbers.
    """
    rng = np.random.default_rng(seed)
    images = rng.normal(0.0, noise, size=(n, size, size)).astype(np.float32)
    labels = np.arange(n) % len(CLASSES)
    rng.shuffle(labels)
    for img, label in zip(images, labels):
        length = int(rng.integers(size // 2, size - 1))
        r, c = (int(v) for v in rng.integers(0, size - length + 1, size=2))
        bright = rng.uniform(0.8, 1.2)
        if label == 0:
            img[int(rng.integers(0, size)), c : c + length] += bright
        elif label == 1:
            img[r : r + length, int(rng.integers(0, size))] += bright
        elif label == 2:
            idx = np.arange(length)
            img[r + idx, c + idx] += bright
        else:
            side = int(rng.integers(4, size // 2 + 2))
            r, c = (int(v) for v in rng.integers(0, size - side + 1, size=2))
            img[r, c : c + side] += bright
            img[r + side - 1, c : c + side] += bright
            img[r : r + side, c] += bright
            img[r : r + side, c + side - 1] += bright
    return mg.tensor(images[:, None]), mg.tensor(labels.astype(np.int64))


def build_cnn(num_classes: int = 4, channels: tuple[int, int] = (8, 16), size: int = 12):
    """Exercise 13.1: the capstone's CNN, as an ``mg.nn.Sequential`` of exactly these layers:

    Conv2d(1, c1, 3, padding=1), ReLU, MaxPool2d(2), Conv2d(c1, c2, 3, padding=1), ReLU,
    MaxPool2d(2), Flatten, Linear(c2 * (size // 4) ** 2, num_classes)

    with ``(c1, c2) = channels``. It maps (N, 1, size, size) images to (N, num_classes) logits.
    """
    raise NotImplementedError("Exercise 13.1: a Sequential of the eight layers of the docstring")


def train_step(model, optimizer, scheduler, scaler, x: mg.Tensor, y: mg.Tensor, max_norm: float):
    """Exercise 13.2: one mixed-precision training step with clipping and a schedule.

    In order: clear the gradients; under ``mg.autocast("cpu", dtype=mg.bfloat16)`` compute
    ``loss = cross_entropy(model(x), y)``; back-propagate ``scaler.scale(loss)``;
    ``scaler.unscale_(optimizer)``; clip with ``clip_grad_norm_(..., max_norm)``; note the lr of
    the first param group (the lr this step uses); ``scaler.step(optimizer)``; ``scaler.update()``;
    ``scheduler.step()``. Return ``{"loss": ..., "grad_norm": ..., "lr": ...}`` as Python floats
    (``grad_norm`` is the norm before clipping).
    """
    raise NotImplementedError(
        "Exercise 13.2: autocast forward, scaled backward, unscale_, clip, step, update, schedule"
    )


def evaluate(model, X: mg.Tensor, y: mg.Tensor, batch_size: int = 256) -> tuple[float, float]:
    """Exercise 13.3: the mean cross-entropy and the accuracy of ``model`` on ``(X, y)``.

    Use eval mode and ``mg.no_grad()``, go through the data in batches of ``batch_size``, and
    average over *samples* (a last, smaller batch counts for its size). Put the model back in the
    mode it was in.
    """
    raise NotImplementedError(
        "Exercise 13.3: eval mode, no_grad, batches; sum losses and hits, divide by the count"
    )


def fit(
    data: tuple[mg.Tensor, mg.Tensor, mg.Tensor, mg.Tensor],
    out_dir: str | Path,
    epochs: int = 4,
    batch_size: int = 64,
    lr: float = 2e-2,
    max_norm: float = 1.0,
    seed: int = 0,
    stop_after: int | None = None,
) -> dict[str, list[float]]:
    """Exercise 13.4: the whole run, resumable. ``data = (X_train, y_train, X_val, y_val)``.

    - Seed with ``mg.manual_seed(seed)``; build ``build_cnn()``, ``AdamW(lr=lr)``, a
      ``GradScaler()`` and ``get_cosine_schedule_with_warmup`` with 10 % of the total steps
      (``epochs * ceil(n_train / batch_size)``, integer part) as warmup.
    - If ``out_dir/"checkpoint.mgck"`` exists, restore everything from it (model, optimizer,
      scheduler, scaler, RNG state, the epoch reached and the history) and continue from there.
    - Each epoch: shuffle with ``mg.randperm``, run ``train_step`` on each batch, then
      ``evaluate`` on the validation set; append to ``history["train_loss"]`` (the mean batch
      loss), ``history["val_loss"]``, ``history["val_acc"]``; log these with a
      ``SummaryWriter(out_dir/"logs")`` (tags "Loss/train", "Loss/val", "Accuracy/val"); save
      the checkpoint with ``mg.save`` (atomic).
    - Stop after ``stop_after`` epochs of this call, if given (an interrupted run). Return
      the history.
    """
    raise NotImplementedError(
        "Exercise 13.4: build, resume if checkpoint.mgck exists, then train/evaluate/log/save"
    )


def quiz() -> dict[str, str]:
    """Exercise 13.5: your answers to the lesson's self-check questions (its last section).

    Return one letter per question, ``{"q1": "b", "q2": "d", ...}`` for its 5 questions,
    written by hand after thinking each through: the check fails a ``quiz()`` that runs any other
    code to find its answers.
    """
    raise NotImplementedError(
        "Exercise 13.5: return {'q1': letter, ...}, your answers to the self-check questions"
    )
