"""Chapter 13 solutions: the capstone, a small CNN trained with everything of the course."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import minigenesis as mg
from minigenesis.utils.tensorboard import SummaryWriter

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
    c1, c2 = channels
    return mg.nn.Sequential(
        mg.nn.Conv2d(1, c1, 3, padding=1),
        mg.nn.ReLU(),
        mg.nn.MaxPool2d(2),
        mg.nn.Conv2d(c1, c2, 3, padding=1),
        mg.nn.ReLU(),
        mg.nn.MaxPool2d(2),
        mg.nn.Flatten(),
        mg.nn.Linear(c2 * (size // 4) ** 2, num_classes),
    )


def train_step(model, optimizer, scheduler, scaler, x: mg.Tensor, y: mg.Tensor, max_norm: float):
    """Exercise 13.2: one mixed-precision training step with clipping and a schedule.

    In order: clear the gradients; under ``mg.autocast("cpu", dtype=mg.bfloat16)`` compute
    ``loss = cross_entropy(model(x), y)``; back-propagate ``scaler.scale(loss)``;
    ``scaler.unscale_(optimizer)``; clip with ``clip_grad_norm_(..., max_norm)``; note the lr of
    the first param group (the lr this step uses); ``scaler.step(optimizer)``; ``scaler.update()``;
    ``scheduler.step()``. Return ``{"loss": ..., "grad_norm": ..., "lr": ...}`` as Python floats
    (``grad_norm`` is the norm before clipping).
    """
    optimizer.zero_grad()
    with mg.autocast("cpu", dtype=mg.bfloat16):
        loss = mg.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # clip the true gradients, not the scaled ones
    grad_norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    lr = optimizer.param_groups[0]["lr"]
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    return {"loss": loss.item(), "grad_norm": float(grad_norm), "lr": lr}


def evaluate(model, X: mg.Tensor, y: mg.Tensor, batch_size: int = 256) -> tuple[float, float]:
    """Exercise 13.3: the mean cross-entropy and the accuracy of ``model`` on ``(X, y)``.

    Use eval mode and ``mg.no_grad()``, go through the data in batches of ``batch_size``, and
    average over *samples* (a last, smaller batch counts for its size). Put the model back in the
    mode it was in.
    """
    was_training = model.training
    model.eval()
    total_loss, correct = 0.0, 0
    try:
        with mg.no_grad():
            for start in range(0, len(y), batch_size):
                xb, yb = X[start : start + batch_size], y[start : start + batch_size]
                logits = model(xb)
                loss = mg.nn.functional.cross_entropy(logits, yb, reduction="sum")
                total_loss += loss.item()
                correct += int((logits.argmax(dim=1) == yb).sum().item())
    finally:
        model.train(was_training)
    return total_loss / len(y), correct / len(y)


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
    X_train, y_train, X_val, y_val = data
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    ckpt_path = out_dir / "checkpoint.mgck"

    mg.manual_seed(seed)
    model = build_cnn()
    optimizer = mg.optim.AdamW(model.parameters(), lr=lr)
    steps_per_epoch = math.ceil(len(y_train) / batch_size)
    total_steps = epochs * steps_per_epoch
    scheduler = mg.optim.get_cosine_schedule_with_warmup(optimizer, total_steps // 10, total_steps)
    scaler = mg.amp.GradScaler()
    history: dict[str, list[float]] = {"train_loss": [], "val_loss": [], "val_acc": []}
    start_epoch = 0
    if ckpt_path.exists():
        state = mg.load(ckpt_path)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        scaler.load_state_dict(state["scaler"])
        mg.set_rng_state(state["rng"])
        start_epoch, history = state["epoch"], state["history"]

    last_epoch = epochs if stop_after is None else min(epochs, start_epoch + stop_after)
    with SummaryWriter(out_dir / "logs", purge_step=start_epoch) as writer:
        for epoch in range(start_epoch, last_epoch):
            model.train()
            order = mg.randperm(len(y_train))
            losses = []
            for start in range(0, len(y_train), batch_size):
                idx = order[start : start + batch_size]
                stats = train_step(
                    model, optimizer, scheduler, scaler, X_train[idx], y_train[idx], max_norm
                )
                losses.append(stats["loss"])
            val_loss, val_acc = evaluate(model, X_val, y_val)
            history["train_loss"].append(sum(losses) / len(losses))
            history["val_loss"].append(val_loss)
            history["val_acc"].append(val_acc)
            writer.add_scalar("Loss/train", history["train_loss"][-1], epoch)
            writer.add_scalar("Loss/val", val_loss, epoch)
            writer.add_scalar("Accuracy/val", val_acc, epoch)
            mg.save(
                {
                    "model": model.state_dict(),
                    "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(),
                    "scaler": scaler.state_dict(),
                    "rng": mg.get_rng_state(),
                    "epoch": epoch + 1,
                    "history": history,
                },
                ckpt_path,
            )
    return history


def quiz() -> dict[str, str]:
    """Exercise 13.5: the answers to the self-check questions, each with the reason."""
    return {
        # A warmup schedule starts at lr 0: AdamW's first step multiplies its update, and its
        # decoupled decay, by 0. The scaler, the clipping and the moments still run.
        "q1": "c",
        # An average over samples: (100 * 0.2 + 100 * 0.2 + 56 * 0.8) / 256 = 84.8 / 256 = 0.331.
        # The mean of the three batch means (0.4) gives the short last batch the weight of a full
        # one.
        "q2": "a",
        # mg.randperm draws the next epochs' orders from the global RNG; without its state in the
        # checkpoint, a resumed run shuffles differently and is another run (close, not equal).
        "q3": "b",
        # Without no_grad every batch builds a graph that nothing will use: time and memory, the
        # same numbers. (model.eval() is what changes numbers, with Dropout or BatchNorm.)
        "q4": "d",
        # A piece that runs is used: the run trains with that AdamW, and only its numbers tell:
        # they part from the reference's. Only a piece that raises or makes NaN is replaced.
        "q5": "b",
    }
