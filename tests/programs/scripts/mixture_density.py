"""A mixture density network for an inverse (multi-valued) problem: the network outputs a
MixtureSameFamily of Normals, trained by negative log-likelihood with torch.distributions."""
import math
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.distributions import Categorical, MixtureSameFamily, Normal

torch.manual_seed(0)
# the forward problem x = y + 0.3 sin(2 pi y) + noise; we learn p(y | x), which has several branches
y = torch.rand(1000, 1)
x = y + 0.3 * torch.sin(2 * math.pi * y) + 0.02 * torch.randn_like(y)


class MDN(nn.Module):
    def __init__(self, n_components=5, hidden=32):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_components)
        self.mu = nn.Linear(hidden, n_components)
        self.log_sigma = nn.Linear(hidden, n_components)

    def forward(self, x):
        h = self.trunk(x)
        mix = Categorical(logits=self.pi(h))
        comp = Normal(self.mu(h), F.softplus(self.log_sigma(h)) + 1e-3)
        return MixtureSameFamily(mix, comp)


model = MDN()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(300):
    dist = model(x)
    nll = -dist.log_prob(y.squeeze(1)).mean()
    optimizer.zero_grad()
    nll.backward()
    optimizer.step()
    if epoch % 100 == 0:
        print(f"epoch {epoch} nll {nll.item():.4f}")

with torch.no_grad():
    dist = model(x)
    # the mixture's log-density by hand: logsumexp over components of log pi + log N(y; mu, sigma)
    comp = dist.component_distribution
    log_pi = torch.log_softmax(dist.mixture_distribution.logits, dim=-1)
    z = (y - comp.loc) / comp.scale
    by_hand = torch.logsumexp(log_pi - 0.5 * z**2 - comp.scale.log() - 0.5 * math.log(2 * math.pi), dim=-1)
    assert torch.allclose(dist.log_prob(y.squeeze(1)), by_hand, atol=1e-4)
    # mean and variance of a mixture: law of total expectation and variance
    probs = dist.mixture_distribution.probs
    mean = (probs * comp.mean).sum(-1)
    var = (probs * (comp.variance + comp.mean**2)).sum(-1) - mean**2
    assert torch.allclose(dist.mean, mean, atol=1e-5) and torch.allclose(dist.variance, var, atol=1e-5)
    samples = dist.sample((4,))
    assert samples.shape == (4, 1000)
    # at x = 0.5 the inverse has three branches; a good MDN puts weight on more than one of them
    x0 = torch.tensor([[0.5]])
    d0 = model(x0)
    grid = torch.linspace(0, 1, 201)
    density = d0.log_prob(grid.unsqueeze(1)).exp()
    peaks = ((density[1:-1] > density[:-2]) & (density[1:-1] > density[2:]) & (density[1:-1] > 0.5)).sum().item()
final_nll = -model(x).log_prob(y.squeeze(1)).mean().item()
print(f"final nll {final_nll:.4f}, modes of p(y | x=0.5): {peaks}")
assert final_nll < -1.0
assert peaks >= 2
