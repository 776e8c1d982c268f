"""A variational autoencoder: reparameterization, Normal distributions and kl_divergence."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.distributions import Normal, kl_divergence

class VAE(nn.Module):
    def __init__(self, d=8, z=2):
        super().__init__()
        self.enc = nn.Linear(d, 32)
        self.mu = nn.Linear(32, z)
        self.logvar = nn.Linear(32, z)
        self.dec = nn.Sequential(nn.Linear(z, 32), nn.Tanh(), nn.Linear(32, d))

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar

torch.manual_seed(0)
data = torch.randn(256, 2) @ torch.randn(2, 8)
vae = VAE()
opt = torch.optim.Adam(vae.parameters(), lr=1e-2)
for epoch in range(200):
    recon, mu, logvar = vae(data)
    rec = F.mse_loss(recon, data, reduction="sum") / data.size(0)
    q = Normal(mu, torch.exp(0.5 * logvar))
    p = Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kld = kl_divergence(q, p).sum(1).mean()
    kld_manual = -0.5 * torch.mean(torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1))
    assert torch.allclose(kld, kld_manual, atol=1e-5)
    loss = rec + kld
    opt.zero_grad(); loss.backward(); opt.step()
print("rec", rec.item(), "kl", kld.item())
assert rec.item() < 4.0
