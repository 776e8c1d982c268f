"""PointNet / Deep Sets on point clouds: a shared per-point MLP written as Conv1d(kernel_size=1)
over (B, C, N) tensors with BatchNorm1d, a symmetric max-pool over the points (torch.max(x, 2,
keepdim=True)[0]), a classifier head with Dropout; the output is invariant to permuting the
points (checked with torch.randperm in eval mode), and the net learns circles from squares."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def make_cloud(n_clouds, n_points=32):
    shape = torch.randint(0, 2, (n_clouds,))
    ang = torch.rand(n_clouds, n_points) * 2 * math.pi
    circle = torch.stack([torch.cos(ang), torch.sin(ang)], dim=1)
    side = torch.randint(0, 4, (n_clouds, n_points))
    u = torch.rand(n_clouds, n_points) * 2 - 1
    sx = torch.where(side % 2 == 0, u, torch.where(side == 1, torch.ones_like(u), -torch.ones_like(u)))
    sy = torch.where(side % 2 == 1, u, torch.where(side == 0, torch.ones_like(u), -torch.ones_like(u)))
    square = torch.stack([sx, sy], dim=1)
    pts = torch.where(shape[:, None, None] == 0, circle, square)
    pts = pts * (0.5 + torch.rand(n_clouds, 1, 1)) + 0.02 * torch.randn_like(pts)
    return pts, shape


class PointNet(nn.Module):
    def __init__(self, k=2):
        super().__init__()
        self.conv1 = nn.Conv1d(2, 32, 1)
        self.conv2 = nn.Conv1d(32, 64, 1)
        self.bn1 = nn.BatchNorm1d(32)
        self.bn2 = nn.BatchNorm1d(64)
        self.fc1 = nn.Linear(64, 32)
        self.dropout = nn.Dropout(p=0.3)
        self.fc2 = nn.Linear(32, k)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = torch.max(x, 2, keepdim=True)[0]
        x = x.view(-1, 64)
        x = self.dropout(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


X, y = make_cloud(256)
Xt, yt = make_cloud(128)
model = PointNet()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.9, 0.999))
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
for epoch in range(20):
    model.train()
    perm = torch.randperm(len(X))
    for i in range(0, len(X), 64):
        idx = perm[i:i + 64]
        optimizer.zero_grad()
        loss = F.nll_loss(model(X[idx]), y[idx])
        loss.backward()
        optimizer.step()
    scheduler.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")
model.eval()
with torch.no_grad():
    out = model(Xt)
    shuffled = model(Xt[:, :, torch.randperm(Xt.size(2))])
    acc = (out.argmax(1) == yt).float().mean().item()
print(f"test accuracy {acc:.3f} permutation gap {(out - shuffled).abs().max().item():.2e}")
assert torch.allclose(out, shuffled, atol=1e-5)
assert acc > 0.85
