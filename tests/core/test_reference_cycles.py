"""A training step and a checkpoint round trip create no reference cycles: everything they make is
freed by reference counting alone, the moment it is no longer used.

Why it matters: objects in a cycle wait for Python's cyclic garbage collector, which runs more
often the more objects are alive (past ~10,000 graph nodes it doubled the cost of every op), and
whatever they hold (activations, whole checkpoints) stays in memory until it does.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn


class TinyModel(nn.Module):
    """One of each layer kind a small model uses: conv, pooling, norm, attention, embedding."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.bn = nn.BatchNorm2d(4)
        self.emb = nn.Embedding(10, 16)
        self.ln = nn.LayerNorm(16)
        self.qkv = nn.Linear(16, 48)
        self.head = nn.Linear(4 * 4 * 4 + 16, 10)
        self.drop = nn.Dropout(0.1)

    def forward(self, img, idx):
        a = self.pool(F.relu(self.bn(self.conv(img)))).flatten(1)
        t = self.ln(self.emb(idx))
        q, k, v = self.qkv(t).reshape(2, 5, 3, 2, 8).permute(2, 0, 3, 1, 4)
        t = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=0.1)
        t = F.gelu(t.transpose(1, 2).reshape(2, 5, 16)).mean(1)
        return self.head(self.drop(mg.cat([a, t], dim=1)))


def _cycles_of_ours() -> list:
    """What the cyclic collector would free that belongs to minigenesis (gc must be disabled)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return [
            type(o).__qualname__
            for o in gc.garbage
            if getattr(type(o), "__module__", "").startswith("minigenesis")
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


@pytest.fixture
def no_cyclic_gc():
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("amp", [False, True])
@pytest.mark.parametrize("opt", ["AdamW", "SGD"])
def test_a_training_step_is_freed_by_reference_counting(no_cyclic_gc, opt, amp):
    mg.manual_seed(0)
    model = TinyModel()
    optimizer = getattr(mg.optim, opt)(
        model.parameters(), lr=1e-3, **({"momentum": 0.9} if opt == "SGD" else {})
    )
    scaler = mg.amp.GradScaler(enabled=amp)
    img, idx, y = mg.randn(2, 1, 8, 8), mg.randint(0, 10, (2, 5)), mg.tensor([1, 7])
    watched = []
    for _ in range(2):
        optimizer.zero_grad()
        with mg.autocast("cpu", dtype=mg.bfloat16, enabled=amp):
            out = model(img, idx)
            loss = F.cross_entropy(out, y)
        watched += [weakref.ref(out), weakref.ref(out.grad_fn), weakref.ref(loss.grad_fn)]
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        del out, loss
    assert all(r() is None for r in watched), "graph nodes or outputs outlived the step"
    assert _cycles_of_ours() == []


def test_create_graph_backward_is_freed_by_reference_counting(no_cyclic_gc):
    x = mg.randn(3, 4, requires_grad=True)
    y = F.layer_norm(F.gelu(x), (4,))
    (g,) = mg.autograd.grad((y * y).sum(), x, create_graph=True)
    ref = weakref.ref(g.grad_fn)
    g.sum().backward()
    del y, g
    assert ref() is None
    assert _cycles_of_ours() == []


@pytest.mark.parametrize("weights_only", [True, False])
def test_save_and_load_are_freed_by_reference_counting(no_cyclic_gc, tmp_path, weights_only):
    model = TinyModel()
    optimizer = mg.optim.AdamW(model.parameters())
    model(mg.randn(2, 1, 8, 8), mg.randint(0, 10, (2, 5))).sum().backward()
    optimizer.step()
    path = tmp_path / "ckpt.pt"
    mg.save({"model": model.state_dict(), "optim": optimizer.state_dict()}, path)
    loaded = mg.load(path, weights_only=weights_only)
    w = loaded["model"]["conv.weight"]
    np.testing.assert_array_equal(w.numpy(), model.conv.weight.detach().numpy())
    ref = weakref.ref(w)
    del loaded, w
    assert ref() is None, "a loaded tensor outlived its checkpoint"
    assert _cycles_of_ours() == []
