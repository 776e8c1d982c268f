"""Saving a checkpoint dict (model and optimizer state), resuming, loading weights_only."""
import io
import os
import tempfile
import minigenesis as torch
import minigenesis.nn as nn

def make():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    o = torch.optim.Adam(m.parameters(), lr=1e-2)
    return m, o

def train(m, o, steps, start=0):
    g = torch.Generator().manual_seed(123)
    X = torch.randn(64, 4, generator=g)
    y = X.sum(1, keepdim=True)
    for _ in range(start, start + steps):
        o.zero_grad(); l = nn.functional.mse_loss(m(X), y); l.backward(); o.step()
    return l.item()

m, o = make()
train(m, o, 10)
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ckpt.pt")
    torch.save({"epoch": 10, "model_state_dict": m.state_dict(), "optimizer_state_dict": o.state_dict()}, path)
    full = train(m, o, 10, 10)
    m2, o2 = make()
    ckpt = torch.load(path)
    m2.load_state_dict(ckpt["model_state_dict"])
    o2.load_state_dict(ckpt["optimizer_state_dict"])
    resumed = train(m2, o2, 10, ckpt["epoch"])
buf = io.BytesIO()
torch.save(m2.state_dict(), buf)
buf.seek(0)
sd = torch.load(buf, weights_only=True)
print(full, resumed, list(sd.keys()))
assert abs(full - resumed) < 1e-7
