"""Quantile regression with the pinball loss, as forecasting notebooks write it: one network with
an output per quantile (0.1, 0.5, 0.9), the loss max(q * e, (q - 1) * e) by torch.max over a
broadcast quantile tensor, heteroscedastic data whose true quantiles are known, the empirical
coverage of each predicted quantile checked on held-out data, torch.quantile of the residuals
agreeing with NumPy's, and a monotonic fix-up by torch.cummax over the quantile axis."""
import numpy as np

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
quantiles = torch.tensor([0.1, 0.5, 0.9])


def make(n):
    x = torch.rand(n, 1) * 4 - 2
    y = torch.sin(x) + (0.1 + 0.3 * x.abs()) * torch.randn(n, 1)
    return x, y


def pinball(pred, target):
    errors = target - pred
    return torch.max(quantiles * errors, (quantiles - 1) * errors).mean()


x, y = make(1000)
model = nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, len(quantiles)))
opt = torch.optim.Adam(model.parameters(), lr=2e-2)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.99)
for epoch in range(120):
    loss = pinball(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if epoch % 50 == 0:
        print(f"epoch {epoch} pinball {loss.item():.4f}")

xt, yt = make(2000)
with torch.no_grad():
    pred = torch.cummax(model(xt), dim=1).values
coverage = (yt <= pred).float().mean(0)
print("coverage", [round(c, 3) for c in coverage.tolist()], "final pinball", round(loss.item(), 4))
assert ((coverage - quantiles).abs() < 0.05).all()
assert (pred[:, 0] <= pred[:, 1]).all() and (pred[:, 1] <= pred[:, 2]).all()
width_center = (pred[:, 2] - pred[:, 0])[xt[:, 0].abs() < 0.3].mean()
width_edge = (pred[:, 2] - pred[:, 0])[xt[:, 0].abs() > 1.5].mean()
print(f"interval width center {width_center.item():.3f} edges {width_edge.item():.3f}")
assert width_edge > 1.5 * width_center

res = (yt - pred[:, 1:2]).squeeze(1)
ours = torch.quantile(res, torch.tensor([0.05, 0.5, 0.95]))
ref = np.quantile(res.numpy(), [0.05, 0.5, 0.95])
assert np.allclose(ours.numpy(), ref, atol=1e-6)
print("residual quantiles", [round(v, 4) for v in ours.tolist()])
