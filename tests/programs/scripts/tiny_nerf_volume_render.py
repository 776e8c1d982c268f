"""Volume rendering as in tiny NeRF: rays from a pinhole camera (torch.meshgrid with
indexing="xy"), stratified samples along each ray (torch.linspace plus uniform jitter), densities
and colours from an MLP on positionally encoded points, alpha = 1 - exp(-sigma delta), and
transmittance by an exclusive torch.cumprod (a cat with ones and [..., :-1]); the weights sum to
the opacity and colour the pixel. Trained on renders of a known scene (a coloured sphere drawn by
analytic ray intersection), the network must reproduce a held-out view better than a constant."""
import math

import minigenesis as torch
import minigenesis.nn as nn


def get_rays(H, W, focal, c2w):
    i, j = torch.meshgrid(torch.arange(W, dtype=torch.float32), torch.arange(H, dtype=torch.float32), indexing="xy")
    dirs = torch.stack([(i - W * 0.5) / focal, -(j - H * 0.5) / focal, -torch.ones_like(i)], -1)
    rays_d = torch.sum(dirs[..., None, :] * c2w[:3, :3], -1)
    return c2w[:3, -1].expand(rays_d.shape), rays_d


def pose(theta):
    c, s = math.cos(theta), math.sin(theta)
    rot = torch.tensor([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
    return torch.cat([torch.cat([rot, (rot @ torch.tensor([0.0, 0.0, 4.0]))[:, None]], 1), torch.tensor([[0.0, 0, 0, 1]])])


def sphere_image(rays_o, rays_d):  # ground truth: unit sphere, colour from the normal
    d = rays_d / rays_d.norm(dim=-1, keepdim=True)
    b = (rays_o * d).sum(-1)
    disc = b**2 - (rays_o**2).sum(-1) + 1.0
    hit = disc > 0
    t = -b - torch.sqrt(disc.clamp(min=0))
    normal = rays_o + t[..., None] * d
    return torch.where(hit[..., None], 0.5 + 0.5 * normal, torch.zeros_like(normal))


def encode(x, L=4):
    freqs = 2.0 ** torch.arange(L)
    xb = (x[..., None, :] * freqs[:, None]).flatten(-2)
    return torch.cat([x, torch.sin(xb), torch.cos(xb)], -1)


def render(model, rays_o, rays_d, near=2.0, far=6.0, n_samples=24, rand=True):
    z = torch.linspace(near, far, n_samples).expand(*rays_o.shape[:-1], n_samples)
    if rand:
        z = z + torch.rand(z.shape) * (far - near) / n_samples
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z[..., :, None]
    raw = model(encode(pts))
    sigma, rgb = torch.relu(raw[..., 3]), torch.sigmoid(raw[..., :3])
    delta = torch.cat([z[..., 1:] - z[..., :-1], torch.full_like(z[..., :1], 1e10)], -1)
    alpha = 1.0 - torch.exp(-sigma * delta * rays_d.norm(dim=-1, keepdim=True))
    trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1.0 - alpha + 1e-10], -1), -1)[..., :-1]
    weights = alpha * trans
    return (weights[..., None] * rgb).sum(-2), weights.sum(-1)


torch.manual_seed(0)
H = W = 16
focal = 20.0
views = [get_rays(H, W, focal, pose(th)) for th in torch.linspace(0, 2 * math.pi, 9)[:-1].tolist()]
targets = [sphere_image(o, d) for o, d in views]
model = nn.Sequential(nn.Linear(3 + 3 * 2 * 4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for it in range(300):
    k = int(torch.randint(0, 7, (1,)))  # view 7 is held out
    rgb, acc = render(model, *views[k])
    loss = ((rgb - targets[k]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if it % 100 == 0:
        print("iter %3d mse %.5f psnr %.2f" % (it, loss.item(), -10 * math.log10(loss.item())))
with torch.no_grad():
    rgb, acc = render(model, *views[7], rand=False)
mse = ((rgb - targets[7]) ** 2).mean().item()
baseline = ((targets[7] - targets[7].mean((0, 1))) ** 2).mean().item()
print("held-out view: mse %.5f, constant-colour mse %.5f, opacity range %.3f..%.3f" % (mse, baseline, acc.min().item(), acc.max().item()))
assert mse < 0.5 * baseline and float(acc.max()) <= 1.0 + 1e-3
