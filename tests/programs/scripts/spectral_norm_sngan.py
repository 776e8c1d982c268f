"""Spectral normalisation as SN-GAN code uses it: the discriminator's layers wrapped in
torch.nn.utils.parametrizations.spectral_norm (and the older torch.nn.utils.spectral_norm), the
power-iteration estimate of sigma checked against torch.linalg.matrix_norm(ord=2) after enough
iterations, eval mode freezing u and v, a hinge-loss GAN (relu(1 - D(x)) + relu(1 + D(G(z))))
on a 2-d mixture with Adam betas (0.0, 0.9), and the discriminator's Lipschitz bound holding
after training."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.nn.utils import parametrizations

torch.manual_seed(0)
lin = parametrizations.spectral_norm(nn.Linear(20, 10), n_power_iterations=1)
lin.train()
for _ in range(60):  # each forward in training mode runs one power iteration
    lin(torch.randn(1, 20))
w_sn = lin.weight
sigma = torch.linalg.matrix_norm(lin.parametrizations.weight.original, ord=2)
print(f"largest singular value: normalised {torch.linalg.matrix_norm(w_sn, ord=2).item():.5f}, original {sigma.item():.4f}")
assert abs(torch.linalg.matrix_norm(w_sn, ord=2).item() - 1) < 1e-3
lin.eval()
assert torch.equal(lin.weight, lin.weight)
u_before = lin.parametrizations.weight[0]._u.clone()
lin(torch.randn(1, 20))
assert torch.equal(u_before, lin.parametrizations.weight[0]._u)

old = nn.utils.spectral_norm(nn.Linear(20, 10))
for _ in range(60):
    old(torch.randn(1, 20))
assert abs(torch.linalg.matrix_norm(old.weight, ord=2).item() - 1) < 1e-3
assert "weight_orig" in dict(old.named_parameters()) and hasattr(old, "weight_u")

SN = parametrizations.spectral_norm
D = nn.Sequential(SN(nn.Linear(2, 64)), nn.LeakyReLU(0.1), SN(nn.Linear(64, 64)), nn.LeakyReLU(0.1), SN(nn.Linear(64, 1)))
G = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4 * 5, betas=(0.0, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4 * 5, betas=(0.0, 0.9))
centers = torch.tensor([[2.0, 0.0], [-2.0, 0.0]])


def real(n):
    return centers[torch.randint(0, 2, (n,))] + 0.1 * torch.randn(n, 2)


for step in range(100):
    x = real(64)
    fake = G(torch.randn(64, 4))
    d_loss = F.relu(1.0 - D(x)).mean() + F.relu(1.0 + D(fake.detach())).mean()
    opt_d.zero_grad()
    d_loss.backward()
    opt_d.step()
    g_loss = -D(G(torch.randn(64, 4))).mean()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    if step % 25 == 0:
        print(f"step {step} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}")

D.eval()
with torch.no_grad():
    a, b = torch.randn(500, 2) * 3, torch.randn(500, 2) * 3
    ratio = ((D(a) - D(b)).abs().squeeze(1) / (a - b).norm(dim=1)).max().item()
    samples = G(torch.randn(400, 4))
near = (torch.cdist(samples, centers).min(1).values < 0.75).float().mean().item()
print(f"max |D(a) - D(b)| / |a - b| = {ratio:.4f}; samples near a mode {near:.3f}")
assert ratio <= 1.0 + 1e-3  # three 1-Lipschitz layers and LeakyReLU: D is 1-Lipschitz
assert all(torch.isfinite(p).all() for p in G.parameters())
