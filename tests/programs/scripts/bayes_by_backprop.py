"""Bayes by backprop: a Bayesian linear layer with a factorized Gaussian posterior over weights
(rsample, the reparameterization trick), an ELBO with kl_divergence to the prior, OneCycleLR,
and predictive uncertainty that grows away from the data."""
import math
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.distributions import Normal, kl_divergence

torch.manual_seed(0)
x = torch.cat([torch.empty(60).uniform_(-3, -1), torch.empty(60).uniform_(1, 3)]).unsqueeze(1)
y = torch.sin(x) + 0.1 * torch.randn_like(x)


class BayesLinear(nn.Module):
    def __init__(self, n_in, n_out, prior_std=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.empty(n_out, n_in).normal_(0, 0.1))
        self.w_rho = nn.Parameter(torch.full((n_out, n_in), -5.0))
        self.b_mu = nn.Parameter(torch.zeros(n_out))
        self.b_rho = nn.Parameter(torch.full((n_out,), -5.0))
        self.prior = Normal(0.0, prior_std)

    def posterior(self):
        return Normal(self.w_mu, F.softplus(self.w_rho)), Normal(self.b_mu, F.softplus(self.b_rho))

    def forward(self, x):
        qw, qb = self.posterior()
        return F.linear(x, qw.rsample(), qb.rsample())

    def kl(self):
        qw, qb = self.posterior()
        return kl_divergence(qw, self.prior).sum() + kl_divergence(qb, self.prior).sum()


class BNN(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.l1, self.l2 = BayesLinear(1, hidden), BayesLinear(hidden, 1)
        self.log_noise = nn.Parameter(torch.tensor(math.log(0.1)))

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))

    def kl(self):
        return sum(m.kl() for m in self.modules() if isinstance(m, BayesLinear))


model = BNN()
steps = 600
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-2, total_steps=steps)
lrs = []
for step in range(steps):
    optimizer.zero_grad()
    likelihood = Normal(model(x), model.log_noise.exp())
    nll = -likelihood.log_prob(y).sum()
    loss = (nll + model.kl()) / len(x)  # the negative ELBO per data point
    loss.backward()
    optimizer.step()
    scheduler.step()
    lrs.append(scheduler.get_last_lr()[0])
    if step % 150 == 0:
        print(f"step {step} -ELBO {loss.item():.4f} kl {model.kl().item():.1f} lr {lrs[-1]:.4f}")

# one-cycle: warm up to max_lr over 30% of the steps, then anneal far below the start
peak = max(range(steps), key=lambda i: lrs[i])
assert abs(peak - 0.3 * steps) <= 2 and abs(max(lrs) - 3e-2) < 1e-4 and lrs[-1] < 1e-5

# closed-form KL(N(m, s^2) || N(0, 1)) = log(1/s) + (s^2 + m^2)/2 - 1/2
qw, _ = model.l1.posterior()
closed = (-qw.scale.log() + (qw.scale**2 + qw.loc**2) / 2 - 0.5).sum()
assert torch.allclose(kl_divergence(qw, Normal(0.0, 1.0)).sum(), closed, rtol=1e-5)

x_grid = torch.tensor([[-2.0], [0.0], [2.0], [6.0]])
with torch.no_grad():
    preds = torch.stack([model(x_grid) for _ in range(200)])
mean, std = preds.mean(0).squeeze(1), preds.std(0).squeeze(1)
print("x =", x_grid.squeeze(1).tolist(), "mean", [round(v, 2) for v in mean.tolist()], "std", [round(v, 3) for v in std.tolist()])
assert torch.allclose(mean[[0, 2]], torch.sin(x_grid[[0, 2], 0]), atol=0.3)
assert min(std[1], std[3]) > std[[0, 2]].max()  # away from the data the model is less sure
