"""Conditional flow matching (Lipman et al.) on 2-d data, as the short tutorials write it: sample
t ~ U(0, 1), interpolate x_t = (1 - (1 - sigma_min) t) x0 + t x1 between Gaussian noise and data,
regress a velocity MLP v(x_t, t) onto x1 - (1 - sigma_min) x0, then integrate dx/dt = v from noise
with a midpoint (RK2) solver under torch.inference_mode; the generated points land on the eight
modes of the data in about equal numbers."""
import math

import minigenesis as torch
from minigenesis import nn, Tensor

torch.manual_seed(0)
sigma_min = 1e-4
centers = torch.tensor([[math.cos(2 * math.pi * k / 8), math.sin(2 * math.pi * k / 8)]
                        for k in range(8)]) * 2.0


def sample_data(n):
    idx = torch.randint(0, 8, (n,))
    return centers[idx] + 0.1 * torch.randn(n, 2)


class Flow(nn.Module):
    def __init__(self, dim: int = 2, h: int = 64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(dim + 1, h), nn.ELU(),
            nn.Linear(h, h), nn.ELU(),
            nn.Linear(h, h), nn.ELU(),
            nn.Linear(h, dim))

    def forward(self, t: Tensor, x_t: Tensor) -> Tensor:
        return self.net(torch.cat((t, x_t), -1))

    def step(self, x_t: Tensor, t_start: Tensor, t_end: Tensor) -> Tensor:
        t_start = t_start.view(1, 1).expand(x_t.shape[0], 1)
        # midpoint method
        return x_t + (t_end - t_start) * self(
            t=t_start + (t_end - t_start) / 2,
            x_t=x_t + self(x_t=x_t, t=t_start) * (t_end - t_start) / 2)


flow = Flow()
optimizer = torch.optim.Adam(flow.parameters(), 1e-2)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=250)
loss_fn = nn.MSELoss()
for it in range(250):
    x_1 = sample_data(128)
    x_0 = torch.randn_like(x_1)
    t = torch.rand(len(x_1), 1)
    x_t = (1 - (1 - sigma_min) * t) * x_0 + t * x_1
    dx_t = x_1 - (1 - sigma_min) * x_0
    optimizer.zero_grad()
    loss = loss_fn(flow(t=t, x_t=x_t), dx_t)
    loss.backward()
    optimizer.step()
    scheduler.step()
    if it % 100 == 0:
        print(f"iter {it}  loss {loss.item():.4f}")

x = torch.randn(1000, 2)
n_steps = 20
time_steps = torch.linspace(0, 1.0, n_steps + 1)
with torch.inference_mode():
    for i in range(n_steps):
        x = flow.step(x_t=x, t_start=time_steps[i], t_end=time_steps[i + 1])
assert not x.requires_grad

d = torch.cdist(x, centers)
nearest = d.min(dim=1)
on_mode = (nearest.values < 0.5).float().mean().item()
counts = torch.bincount(nearest.indices[nearest.values < 0.5], minlength=8)
noise_on_mode = (torch.cdist(torch.randn(1000, 2), centers).min(1).values < 0.5).float().mean().item()
print(f"fraction on a mode {on_mode:.3f} (noise {noise_on_mode:.3f}), per mode {counts.tolist()}")
assert on_mode > 0.5 and on_mode > 3 * noise_on_mode
assert counts.min() > 0.5 * counts.float().mean() and counts.max() < 1.5 * counts.float().mean()
