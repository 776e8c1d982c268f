"""WGAN-GP on a 2-d ring of Gaussians: a critic without sigmoid, the gradient penalty on random
interpolates through torch.autograd.grad(create_graph=True), n_critic critic steps per
generator step, Adam with betas (0.5, 0.9), and requires_grad_ toggling to freeze the critic."""
import math
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis import autograd

torch.manual_seed(0)
angles = torch.arange(8) * 2 * math.pi / 8
modes = torch.stack([torch.cos(angles), torch.sin(angles)], dim=1) * 2


def real_batch(n):
    return modes[torch.randint(0, 8, (n,))] + 0.05 * torch.randn(n, 2)


generator = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
critic = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1).expand_as(real)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    grads = autograd.grad(outputs=scores, inputs=interpolates, grad_outputs=torch.ones_like(scores),
                          create_graph=True, retain_graph=True, only_inputs=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


batch_size, n_critic, lambda_gp = 128, 5, 0.1
for it in range(150):
    for p in critic.parameters():
        p.requires_grad_(True)
    for _ in range(n_critic):
        real = real_batch(batch_size)
        fake = generator(torch.randn(batch_size, 4)).detach()
        loss_c = critic(fake).mean() - critic(real).mean() + lambda_gp * gradient_penalty(critic, real, fake)
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()
    for p in critic.parameters():
        p.requires_grad_(False)
    loss_g = -critic(generator(torch.randn(batch_size, 4))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if it % 50 == 0:
        print(f"iter {it} critic {loss_c.item():.4f} generator {loss_g.item():.4f}")

assert all(p.grad is None or not p.requires_grad for p in critic.parameters())
# the penalty is zero for a critic with unit gradient norm everywhere (a linear map of norm 1)
unit = nn.Linear(2, 1, bias=False)
with torch.no_grad():
    unit.weight.copy_(torch.tensor([[0.6, 0.8]]))
assert gradient_penalty(unit, real_batch(16), real_batch(16)).item() < 1e-10
with torch.no_grad():
    samples = generator(torch.randn(2000, 4))
radius = samples.norm(dim=1)
nearest = torch.cdist(samples, modes).argmin(1)
covered = torch.bincount(nearest, minlength=8)
print(f"mean radius {radius.mean().item():.3f} (real 2.0), samples per mode {covered.tolist()}")
assert abs(radius.mean().item() - 2.0) < 0.4
assert (covered > 50).sum().item() >= 4  # several modes, not a collapse onto one
