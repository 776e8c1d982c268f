"""Uncertainty the way deep-ensemble tutorials model it: networks predicting a mean and a
variance (softplus + eps) trained with nn.GaussianNLLLoss, an ensemble of three combined as a
mixture (mean of means, mean of variances plus variance of means), the loss equal to
-Normal(mu, sigma).log_prob up to the constant; and count data with nn.PoissonNLLLoss
(log_input=True) matching -Poisson(rate).log_prob up to log(y!)."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.distributions import Normal, Poisson

torch.manual_seed(0)
x = torch.linspace(-3, 3, 400).unsqueeze(1)
noise_std = 0.1 + 0.3 * (x + 3) / 6  # noise grows with x
y = torch.sin(x) + noise_std * torch.randn_like(x)


class MeanVar(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh())
        self.mean = nn.Linear(64, 1)
        self.var = nn.Linear(64, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), F.softplus(self.var(h)) + 1e-6


gnll = nn.GaussianNLLLoss()
ensemble = [MeanVar() for _ in range(3)]
for net in ensemble:
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(250):
        mu, var = net(x)
        loss = gnll(mu, y, var)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        mu, var = net(x)
        by_dist = -Normal(mu, var.sqrt()).log_prob(y).mean() - 0.5 * math.log(2 * math.pi)
        assert torch.allclose(gnll(mu, y, var), by_dist, atol=1e-5)

with torch.no_grad():
    mus, vars_ = zip(*[net(x) for net in ensemble])
    mus, vars_ = torch.stack(mus), torch.stack(vars_)
    mean = mus.mean(0)
    total_var = vars_.mean(0) + mus.var(0, unbiased=False)
pred_std = total_var.sqrt()
lo, hi = pred_std[:50].mean().item(), pred_std[-50:].mean().item()
coverage = ((y - mean).abs() < 1.96 * pred_std).float().mean().item()
print(f"predicted std left {lo:.3f} right {hi:.3f} (true 0.1..0.4), 95% interval coverage {coverage:.3f}")
assert hi > 2 * lo
assert 0.85 < coverage < 0.99

counts_x = torch.rand(500, 1) * 2
counts = torch.poisson(torch.exp(0.5 + 1.2 * counts_x))
glm = nn.Linear(1, 1)
pnll = nn.PoissonNLLLoss(log_input=True)
opt = torch.optim.LBFGS(glm.parameters(), lr=1, max_iter=100, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = pnll(glm(counts_x), counts)
    loss.backward()
    return loss


opt.step(closure)
with torch.no_grad():
    log_rate = glm(counts_x)
    by_dist = -(Poisson(log_rate.exp()).log_prob(counts) + torch.lgamma(counts + 1)).mean()
    assert torch.allclose(pnll(log_rate, counts), by_dist, atol=1e-4)
print(f"Poisson GLM: intercept {glm.bias.item():.3f} slope {glm.weight.item():.3f} (true 0.5, 1.2)")
assert abs(glm.weight.item() - 1.2) < 0.15 and abs(glm.bias.item() - 0.5) < 0.15
