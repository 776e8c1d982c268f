"""End to end: a small MLP learns a nonlinear problem generated here (three concentric rings,
which no linear model can separate) to at least 95% held-out accuracy, in well under 3 seconds."""

from __future__ import annotations

import time

import numpy as np

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn


def rings(n_per_class: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Class k lies on a noisy ring of radius k + 1 (angles uniform)."""
    xs, ys = [], []
    for k in range(3):
        angle = rng.uniform(0, 2 * np.pi, n_per_class)
        radius = k + 1 + rng.normal(0, 0.12, n_per_class)
        xs.append(np.stack([radius * np.cos(angle), radius * np.sin(angle)], 1))
        ys.append(np.full(n_per_class, k))
    return np.concatenate(xs).astype(np.float32), np.concatenate(ys)


def test_mlp_learns_concentric_rings_to_95_percent():
    rng = np.random.default_rng(0)
    x_train, y_train = rings(200, rng)
    x_test, y_test = rings(100, rng)
    mg.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(2, 32),
        nn.BatchNorm1d(32),
        nn.ReLU(),
        nn.Dropout(0.1),
        nn.Linear(32, 32),
        nn.GELU(),
        nn.Linear(32, 3),
    )
    opt = mg.optim.Adam(model.parameters(), lr=0.02)
    xt, yt = mg.tensor(x_train), mg.tensor(y_train)
    start = time.perf_counter()
    model.train()
    for _ in range(200):
        idx = mg.tensor(rng.choice(len(x_train), 128, replace=False))
        logp = F.log_softmax(model(xt[idx]), dim=1)
        loss = -logp[mg.arange(128), yt[idx]].mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
        opt.step()
    model.eval()
    with mg.no_grad():
        pred = model(mg.tensor(x_test)).argmax(dim=1).numpy()
    accuracy = (pred == y_test).mean()
    elapsed = time.perf_counter() - start
    assert accuracy >= 0.95, f"held-out accuracy {accuracy:.3f} after {elapsed:.2f}s"
    # A linear classifier cannot do this (the classes share a centre): check the task is hard.
    assert abs(x_train[y_train == 0].mean()) < 0.2 and abs(x_train[y_train == 2].mean()) < 0.3
