"""A denoising diffusion model (DDPM) on two 2-d clusters: a linear beta schedule, alphas_cumprod,
the closed-form forward noising q(x_t | x_0), a noise-prediction MLP with a sinusoidal time
embedding, and ancestral sampling from pure noise back to the clusters."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
T = 40
betas = torch.linspace(1e-4, 0.25, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_ac = alphas_cumprod.sqrt()
sqrt_1m_ac = (1.0 - alphas_cumprod).sqrt()
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(shape) - 1)))


def timestep_embedding(t, dim=16):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.time_mlp = nn.Sequential(nn.Linear(16, 64), nn.SiLU())
        self.net = nn.Sequential(nn.Linear(2 + 64, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU(), nn.Linear(64, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, self.time_mlp(timestep_embedding(t))], dim=1))


CENTERS = torch.tensor([[-2.0, -2.0], [2.0, 2.0]])


def sample_data(n):
    which = torch.randint(0, 2, (n,))
    return CENTERS[which] + 0.2 * torch.randn(n, 2)


def q_sample(x0, t, noise):
    return extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(400):
    x0 = sample_data(128)
    t = torch.randint(0, T, (x0.shape[0],), dtype=torch.long)
    noise = torch.randn_like(x0)
    loss = F.mse_loss(model(q_sample(x0, t, noise), t), noise)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()


@torch.no_grad()
def p_sample_loop(n):
    x = torch.randn(n, 2)
    for i in reversed(range(T)):
        t = torch.full((n,), i, dtype=torch.long)
        eps = model(x, t)
        mean = (x - extract(betas, t, x.shape) / extract(sqrt_1m_ac, t, x.shape) * eps) / extract(alphas, t, x.shape).sqrt()
        if i > 0:
            x = mean + extract(posterior_variance, t, x.shape).sqrt() * torch.randn_like(x)
        else:
            x = mean
    return x


samples = p_sample_loop(400)
dist = torch.cdist(samples, CENTERS).min(dim=1).values
noise_dist = torch.cdist(torch.randn(400, 2) * 2, CENTERS).min(dim=1).values
print(f"loss {loss.item():.4f} distance to nearest centre {dist.mean().item():.3f} (noise {noise_dist.mean().item():.3f})")
assert torch.allclose(alphas_cumprod[-1], torch.prod(1 - betas))
assert dist.mean().item() < 0.6, dist.mean()
assert (samples[:, 0] > 0).float().mean().item() > 0.25  # both modes are found
assert (samples[:, 0] < 0).float().mean().item() > 0.25
