"""Glow's building blocks on 2-d data: ActNorm initialised from the first batch, an invertible
1x1 'convolution' (a learned matrix with slogdet), and an affine coupling; trained by exact
log-likelihood, then inverted and sampled."""
import math
import minigenesis as torch
from minigenesis import nn


class ActNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(d))
        self.log_scale = nn.Parameter(torch.zeros(d))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x):
        if self.initialized.item() == 0:
            with torch.no_grad():
                self.loc.copy_(-x.mean(0))
                self.log_scale.copy_(-torch.log(x.std(0) + 1e-6))
                self.initialized.fill_(1)
        y = (x + self.loc) * torch.exp(self.log_scale)
        return y, self.log_scale.sum().expand(x.shape[0])

    def inverse(self, y):
        return y * torch.exp(-self.log_scale) - self.loc


class InvLinear(nn.Module):
    def __init__(self, d):
        super().__init__()
        w = torch.linalg.qr(torch.randn(d, d))[0]
        self.weight = nn.Parameter(w)

    def forward(self, x):
        logdet = torch.linalg.slogdet(self.weight)[1]
        return x @ self.weight.T, logdet.expand(x.shape[0])

    def inverse(self, y):
        return y @ torch.inverse(self.weight).T


class Coupling(nn.Module):
    def __init__(self, d, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d // 2, hidden), nn.ReLU(), nn.Linear(hidden, d))

    def forward(self, x):
        xa, xb = x.chunk(2, dim=1)
        s, t = self.net(xa).chunk(2, dim=1)
        s = torch.tanh(s)
        return torch.cat([xa, xb * torch.exp(s) + t], 1), s.sum(1)

    def inverse(self, y):
        ya, yb = y.chunk(2, dim=1)
        s, t = self.net(ya).chunk(2, dim=1)
        return torch.cat([ya, (yb - t) * torch.exp(-torch.tanh(s))], 1)


class Glow(nn.Module):
    def __init__(self, d=2, steps=4):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(steps):
            self.layers.extend([ActNorm(d), InvLinear(d), Coupling(d)])

    def forward(self, x):
        logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def inverse(self, z):
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z

    def log_prob(self, x):
        z, logdet = self(x)
        return -0.5 * (z ** 2).sum(1) - z.shape[1] * 0.5 * math.log(2 * math.pi) + logdet


torch.manual_seed(0)
n = 512
theta = torch.rand(n) * 2 * math.pi
data = torch.stack([2 * torch.cos(theta), torch.sin(theta)], 1) + 0.1 * torch.randn(n, 2)
data = data @ torch.tensor([[1.0, 0.5], [0.0, 1.0]])

model = Glow()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
first = None
for step in range(200):
    loss = -model.log_prob(data).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if first is None:
        first = loss.item()
print(f"nll {first:.3f} -> {loss.item():.3f}")
assert loss.item() < first - 0.5

with torch.no_grad():
    z, _ = model(data[:16])
    back = model.inverse(z)
    assert torch.allclose(back, data[:16], atol=1e-4), (back - data[:16]).abs().max()
    # the log-det of the whole flow equals log|det J| computed by autograd
x0 = data[:1].clone()
jac = torch.autograd.functional.jacobian(lambda x: model(x)[0], x0).reshape(2, 2)
_, ld = model(x0)
print(f"logdet flow {ld.item():.5f} autograd {torch.log(jac.det().abs()).item():.5f}")
assert abs(ld.item() - torch.log(jac.det().abs()).item()) < 1e-4
samples = model.inverse(torch.randn(1000, 2)).detach()
print("sample mean", samples.mean(0).tolist(), "data mean", data.mean(0).tolist())
assert (samples.mean(0) - data.mean(0)).abs().max() < 0.3
