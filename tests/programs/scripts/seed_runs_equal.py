"""Reproducibility checks from the docs' Reproducibility note: the same torch.manual_seed gives
identical runs (init, dropout, shuffling DataLoader with a seeded generator), different seeds
differ, get_rng_state/set_rng_state replay a stream, and torch.random.fork_rng leaves the outer
stream untouched."""
import random

import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.data import DataLoader, TensorDataset


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def run(seed):
    seed_everything(seed)
    x = torch.randn(64, 6)
    y = (x[:, 0] > 0).long()
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=True, generator=g)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for epoch in range(3):
        for xb, yb in loader:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return losses, [p.detach().clone() for p in model.parameters()]


l1, p1 = run(123)
l2, p2 = run(123)
l3, _ = run(321)
print("first losses", ["%.4f" % v for v in l1[:4]])
assert l1 == l2 and all(torch.equal(a, b) for a, b in zip(p1, p2))
assert l1 != l3

torch.manual_seed(5)
state = torch.get_rng_state()
a = torch.rand(5)
torch.set_rng_state(state)
b = torch.rand(5)
assert torch.equal(a, b)
torch.manual_seed(5)
with torch.random.fork_rng():
    torch.manual_seed(99)
    inner = torch.rand(3)
outer = torch.rand(5)
assert torch.equal(outer, a) and not torch.equal(inner, a[:3])
g = torch.Generator().manual_seed(2)
s = g.get_state()
first = torch.randn(4, generator=g)
g.set_state(s)
assert torch.equal(first, torch.randn(4, generator=g))
assert torch.initial_seed() == 5
