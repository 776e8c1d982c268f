"""Variational inference with normalising flows (Rezende & Mohamed): planar flows
f(z) = z + u tanh(w^T z + b) with the invertibility fix for u and the log-det
log|1 + u^T psi(z)|, stacked on a torch.distributions base Independent(Normal) and trained by the
reverse KL to an unnormalised two-moon-like energy. The torch.distributions transforms machinery
is exercised alongside: TransformedDistribution with ComposeTransform(AffineTransform,
SigmoidTransform) checked against the change-of-variables formula by hand."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.distributions import Independent, Normal, TransformedDistribution
from minigenesis.distributions.transforms import AffineTransform, ComposeTransform, SigmoidTransform


class PlanarFlow(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.w = nn.Parameter(torch.randn(dim) * 0.1)
        self.u = nn.Parameter(torch.randn(dim) * 0.1)
        self.b = nn.Parameter(torch.zeros(1))

    def forward(self, z):
        wu = self.w @ self.u
        u_hat = self.u + (F.softplus(wu) - 1 - wu) * self.w / (self.w @ self.w)  # keeps w^T u >= -1
        lin = z @ self.w + self.b
        f = z + u_hat * torch.tanh(lin).unsqueeze(-1)
        psi = (1 - torch.tanh(lin) ** 2).unsqueeze(-1) * self.w
        log_det = torch.log(torch.abs(1 + psi @ u_hat) + 1e-8)
        return f, log_det


def energy(z):  # the "U1" density of the paper
    z1, z2 = z[:, 0], z[:, 1]
    norm = torch.linalg.vector_norm(z, dim=1)
    term1 = 0.5 * ((norm - 2) / 0.4) ** 2
    term2 = torch.logsumexp(torch.stack([-0.5 * ((z1 - 2) / 0.6) ** 2, -0.5 * ((z1 + 2) / 0.6) ** 2]), 0)
    return term1 - term2 + 0 * z2


torch.manual_seed(0)
base = Independent(Normal(torch.zeros(2), torch.ones(2)), 1)
flows = nn.ModuleList([PlanarFlow(2) for _ in range(8)])
opt = torch.optim.Adam(flows.parameters(), lr=5e-3)
for step in range(300):
    z0 = base.sample((256,))
    log_q = base.log_prob(z0)
    z = z0
    for flow in flows:
        z, log_det = flow(z)
        log_q = log_q - log_det
    loss = (log_q + energy(z)).mean()  # KL(q || p) up to log Z
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print("step %3d reverse KL + log Z %.4f" % (step, loss.item()))
radius = torch.linalg.vector_norm(z, dim=1).mean().item()
print("final %.4f, mean radius of samples %.3f (the ring is at 2)" % (loss.item(), radius))
assert loss.item() < 0.5 and 1.5 < radius < 2.6

# TransformedDistribution: y = sigmoid(2 x + 1), x ~ N(0, 1); log p(y) = log N(x) - log|dy/dx|
td = TransformedDistribution(Normal(0.0, 1.0), ComposeTransform([AffineTransform(1.0, 2.0), SigmoidTransform()]))
y = td.sample((5,))
x = (torch.log(y) - torch.log1p(-y) - 1.0) / 2.0
s = torch.sigmoid(2 * x + 1)
by_hand = Normal(0.0, 1.0).log_prob(x) - torch.log(2 * s * (1 - s))
print("TransformedDistribution log_prob vs by hand: %.2e" % (td.log_prob(y) - by_hand).abs().max().item())
assert torch.allclose(td.log_prob(y), by_hand, atol=1e-4) and bool(((y > 0) & (y < 1)).all())
assert abs(math.exp(td.log_prob(torch.tensor(0.5)).item()) - math.exp(-0.125) / math.sqrt(2 * math.pi) / 0.5) < 1e-5
