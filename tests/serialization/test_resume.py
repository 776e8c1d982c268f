"""Checkpoints restore a training run exactly: model + optimizer + scheduler + GradScaler + RNG.

The training loop is the usual complete example (autocast, scaled backward, unscale + clip,
scaler.step/update, scheduler.step), with dropout and random batches so the RNG state matters.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn, optim
from minigenesis.amp import GradScaler, autocast
from minigenesis.nn.utils import clip_grad_norm_
from minigenesis.optim import lr_scheduler

DATA_RNG = np.random.default_rng(7)
X = DATA_RNG.standard_normal((64, 8)).astype(np.float32)
Y = DATA_RNG.standard_normal((64, 4)).astype(np.float32)


def same(a, b) -> bool:
    """Structural, bit-exact equality (tensors by dtype, shape, bytes and requires_grad)."""
    if isinstance(a, mg.Tensor):
        return (
            type(a) is type(b)
            and a.dtype is b.dtype
            and a.shape == b.shape
            and a.requires_grad == b.requires_grad
            and a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
        )
    if isinstance(a, dict):
        return type(a) is type(b) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def build(seed: int):
    mg.manual_seed(seed)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 4))
    optimizer = optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)
    scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=6)
    scaler = GradScaler(init_scale=2.0**8, growth_interval=3)  # the scale changes within 8 steps
    return model, optimizer, scheduler, scaler


def train_step(model, optimizer, scheduler, scaler) -> float:
    idx = mg.randint(0, 64, (16,)).numpy()  # a random batch: draws from the global RNG
    data, target = mg.from_numpy(X[idx]), mg.from_numpy(Y[idx])
    optimizer.zero_grad()
    with autocast():
        output = model(data)
        loss = ((output.float() - target) ** 2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    return loss.item()


def test_train_8_equals_train_4_checkpoint_rebuild_train_4(tmp_path):
    model, optimizer, scheduler, scaler = build(seed=0)
    straight = [train_step(model, optimizer, scheduler, scaler) for _ in range(8)]
    final_params = [p.detach().numpy().copy() for p in model.parameters()]

    model, optimizer, scheduler, scaler = build(seed=0)
    first = [train_step(model, optimizer, scheduler, scaler) for _ in range(4)]
    path = tmp_path / "checkpoint_step_4.pth"
    mg.save_checkpoint(
        {
            "step": 4,
            "model_state_dict": model.state_dict(),
            "optimizer_state_dict": optimizer.state_dict(),
            "scheduler_state_dict": scheduler.state_dict(),
            "scaler_state_dict": scaler.state_dict(),
            "rng_state": mg.get_rng_state(),
            "loss": first[-1],
        },
        path,
    )
    scale_at_4 = scaler.get_scale()
    assert scale_at_4 != 2.0**8  # the scaler's state moved, so restoring it matters
    del model, optimizer, scheduler, scaler

    # Everything rebuilt from scratch, from a different seed: the state must come from the file.
    model, optimizer, scheduler, scaler = build(seed=12345)
    checkpoint = mg.load_checkpoint(path)  # weights_only=True: the default must suffice
    model.load_state_dict(checkpoint["model_state_dict"])
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
    scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
    scaler.load_state_dict(checkpoint["scaler_state_dict"])
    mg.set_rng_state(checkpoint["rng_state"])
    assert checkpoint["step"] == 4 and checkpoint["loss"] == first[-1]
    assert scaler.get_scale() == scale_at_4
    resumed = first + [train_step(model, optimizer, scheduler, scaler) for _ in range(4)]

    assert [float(v).hex() for v in resumed] == [float(v).hex() for v in straight]
    for p, expected in zip(model.parameters(), final_params):
        assert p.detach().numpy().tobytes() == expected.tobytes()
    # The run really moved: the schedule decayed and losses changed.
    assert len(set(straight)) == 8


def test_without_the_rng_state_the_resumed_run_differs(tmp_path):
    """The RNG state is what makes the resumed dropout masks and batches match (the test above
    would pass vacuously if nothing in the loop were random)."""
    model, optimizer, scheduler, scaler = build(seed=0)
    straight = [train_step(model, optimizer, scheduler, scaler) for _ in range(8)]
    model, optimizer, scheduler, scaler = build(seed=0)
    for _ in range(4):
        train_step(model, optimizer, scheduler, scaler)
    path = tmp_path / "ckpt.pth"
    mg.save(
        {
            "m": model.state_dict(),
            "o": optimizer.state_dict(),
            "s": scheduler.state_dict(),
            "g": scaler.state_dict(),
        },
        path,
    )
    model, optimizer, scheduler, scaler = build(seed=12345)
    ckpt = mg.load(path)
    model.load_state_dict(ckpt["m"])
    optimizer.load_state_dict(ckpt["o"])
    scheduler.load_state_dict(ckpt["s"])
    scaler.load_state_dict(ckpt["g"])
    later = [train_step(model, optimizer, scheduler, scaler) for _ in range(4)]
    assert later != straight[4:]


def _stepped(optimizer_cls, **kwargs):
    mg.manual_seed(1)
    model = nn.Sequential(nn.Linear(5, 6), nn.Tanh(), nn.Linear(6, 3))
    optimizer = optimizer_cls(model.parameters(), **kwargs)
    for _ in range(2):
        optimizer.zero_grad()
        (model(mg.randn(4, 5)) ** 2).mean().backward()
        optimizer.step()
    return model, optimizer


@pytest.mark.parametrize(
    "optimizer_cls, kwargs",
    [
        (optim.SGD, {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        (optim.Adam, {"lr": 1e-3, "amsgrad": True}),
        (optim.AdamW, {"lr": 1e-3}),
        (optim.RMSprop, {"lr": 1e-3, "momentum": 0.5, "centered": True}),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_model_and_optimizer_state_round_trip(tmp_path, optimizer_cls, kwargs):
    model, optimizer = _stepped(optimizer_cls, **kwargs)
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}
    path = tmp_path / "s.ckpt"
    mg.save(state, path)
    assert same(mg.load(path), state)


def _schedulers(optimizer):
    s = lr_scheduler
    return [
        s.CosineAnnealingLR(optimizer, T_max=10),
        s.StepLR(optimizer, step_size=2, gamma=0.5),
        s.MultiStepLR(optimizer, milestones=[1, 3]),
        s.ExponentialLR(optimizer, gamma=0.9),
        s.CosineAnnealingWarmRestarts(optimizer, T_0=3),
        s.LinearLR(optimizer),
        s.ConstantLR(optimizer),
        s.OneCycleLR(optimizer, max_lr=0.1, total_steps=20),
        s.LambdaLR(optimizer, lambda epoch: 0.9**epoch),
        s.MultiplicativeLR(optimizer, lambda epoch: 0.95),
        s.get_cosine_schedule_with_warmup(optimizer, 2, 10),
        s.get_linear_schedule_with_warmup(optimizer, 2, 10),
        s.SequentialLR(
            optimizer, [s.LinearLR(optimizer), s.ExponentialLR(optimizer, 0.9)], milestones=[2]
        ),
        s.ReduceLROnPlateau(optimizer, patience=1),
    ]


@pytest.mark.parametrize("index", range(14))
def test_every_scheduler_state_round_trips(tmp_path, index):
    model = nn.Linear(2, 2)
    optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = _schedulers(optimizer)[index]
    for _ in range(3):
        optimizer.step()
        if isinstance(scheduler, lr_scheduler.ReduceLROnPlateau):
            scheduler.step(1.0)
        else:
            scheduler.step()
    state = scheduler.state_dict()
    path = tmp_path / "sched.ckpt"
    mg.save({"scheduler": state}, path)
    assert same(mg.load(path)["scheduler"], state)


def test_grad_scaler_state_round_trips(tmp_path):
    scaler = GradScaler(init_scale=1024.0, growth_interval=5)
    state = scaler.state_dict()
    path = tmp_path / "scaler.ckpt"
    mg.save(state, path)
    loaded = mg.load(path)
    assert same(loaded, state)
    fresh = GradScaler()
    fresh.load_state_dict(loaded)
    assert fresh.get_scale() == 1024.0 and fresh.state_dict() == state
