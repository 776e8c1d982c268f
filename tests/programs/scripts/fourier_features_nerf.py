"""NeRF's positional encoding (and "Fourier features let networks learn high frequency
functions") on a 1-d signal and a 2-d image: gamma(p) = (p, sin(2^k pi p), cos(2^k pi p)) built
with torch.cat over a list of frequency bands, an MLP fitting the signal with and without the
encoding (the encoding fits the high frequencies a plain MLP cannot), PSNR in dB, and a
random Gaussian Fourier feature mapping with a fixed B registered as a buffer."""
import math

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)


def positional_encoding(p, L=6, include_input=True):
    out = [p] if include_input else []
    for k in range(L):
        out += [torch.sin((2.0 ** k) * math.pi * p), torch.cos((2.0 ** k) * math.pi * p)]
    return torch.cat(out, dim=-1)


class GaussianFourier(nn.Module):
    def __init__(self, d_in, n, scale):
        super().__init__()
        self.register_buffer("B", torch.randn(d_in, n) * scale)

    def forward(self, x):
        proj = 2 * math.pi * x @ self.B
        return torch.cat([torch.sin(proj), torch.cos(proj)], dim=-1)


def mlp(d_in):
    return nn.Sequential(nn.Linear(d_in, 48), nn.ReLU(), nn.Linear(48, 48), nn.ReLU(), nn.Linear(48, 1))


def psnr(pred, target):
    return (10 * torch.log10(1.0 / torch.mean((pred - target) ** 2))).item()


x = torch.linspace(0, 1, 256).unsqueeze(1)
signal = 0.5 + 0.25 * torch.sin(2 * math.pi * 3 * x) + 0.2 * torch.sin(2 * math.pi * 17 * x)
enc = positional_encoding(x)
assert enc.shape == (256, 1 + 2 * 6)
results = {}
for name, inputs in (("raw", x), ("pe", enc)):
    net = mlp(inputs.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=5e-3)
    for it in range(120):
        loss = ((net(inputs) - signal) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        results[name] = psnr(net(inputs), signal)
    print(f"{name}: PSNR {results[name]:.2f} dB")
assert results["pe"] > results["raw"] + 5

ii, jj = torch.meshgrid(torch.linspace(0, 1, 16), torch.linspace(0, 1, 16), indexing="ij")
coords = torch.stack([ii, jj], dim=-1).reshape(-1, 2)
image = (torch.sin(12 * coords[:, :1]) * torch.cos(9 * coords[:, 1:]) + 1) / 2
ff = GaussianFourier(2, 32, scale=3.0)
net = nn.Sequential(ff, mlp(64))
opt = torch.optim.Adam(net.parameters(), lr=5e-3)
for it in range(100):
    loss = nn.functional.mse_loss(net(coords), image)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"image PSNR {psnr(net(coords).detach(), image):.2f} dB, buffers {[n for n, _ in net.named_buffers()]}")
assert "0.B" in net.state_dict() and not ff.B.requires_grad
assert psnr(net(coords).detach(), image) > 25
