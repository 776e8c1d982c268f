"""Bayesian updating with conjugate priors as A/B-testing and topic-model notebooks write it:
Beta posteriors for two conversion rates, P(B > A) by Monte Carlo from Beta.sample and by
numerical integration of the two densities (log_prob.exp on a grid, torch.trapezoid), Thompson
sampling on a 3-armed Bernoulli bandit, kl_divergence and entropy of Beta and Dirichlet against
their closed forms with torch.lgamma / torch.digamma, and Dirichlet.rsample gradients that
move a learned concentration towards observed proportions."""
import minigenesis as torch
from minigenesis.distributions import Bernoulli, Beta, Dirichlet, kl_divergence

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
conv_a, n_a, conv_b, n_b = 48, 500, 66, 510
post_a = Beta(1 + torch.tensor(float(conv_a)), 1 + torch.tensor(float(n_a - conv_a)))
post_b = Beta(1 + torch.tensor(float(conv_b)), 1 + torch.tensor(float(n_b - conv_b)))
mc = (post_b.sample((20000,)) > post_a.sample((20000,))).double().mean().item()
p = torch.linspace(1e-4, 0.3, 3000)
pdf_a, pdf_b = post_a.log_prob(p).exp(), post_b.log_prob(p).exp()
cdf_a = torch.cumulative_trapezoid(pdf_a, p, dim=0)
exact = torch.trapezoid(pdf_b[1:] * cdf_a, p[1:]).item()
print(f"P(B > A): monte carlo {mc:.4f}, integration {exact:.4f}; posterior means {post_a.mean.item():.4f} {post_b.mean.item():.4f}")
assert abs(torch.trapezoid(pdf_a, p).item() - 1) < 1e-3
assert abs(mc - exact) < 0.02

true_rates = torch.tensor([0.2, 0.5, 0.35])
alpha, beta = torch.ones(3), torch.ones(3)
pulls = torch.zeros(3)
for t in range(400):
    arm = int(Beta(alpha, beta).sample().argmax())
    reward = Bernoulli(true_rates[arm]).sample()
    alpha[arm] += reward
    beta[arm] += 1 - reward
    pulls[arm] += 1
print("Thompson pulls", pulls.tolist())
assert pulls.argmax().item() == 1 and pulls[1] > 200

a1, b1, a2, b2 = torch.tensor(2.0), torch.tensor(5.0), torch.tensor(3.5), torch.tensor(1.5)
lbeta = lambda a, b: torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)  # noqa: E731
dg = torch.digamma
kl_closed = (lbeta(a2, b2) - lbeta(a1, b1) + (a1 - a2) * dg(a1) + (b1 - b2) * dg(b1)
             + (a2 - a1 + b2 - b1) * dg(a1 + b1))
assert torch.allclose(kl_divergence(Beta(a1, b1), Beta(a2, b2)), kl_closed)
ent_closed = lbeta(a1, b1) - (a1 - 1) * dg(a1) - (b1 - 1) * dg(b1) + (a1 + b1 - 2) * dg(a1 + b1)
assert torch.allclose(Beta(a1, b1).entropy(), ent_closed)
c1, c2 = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0, 2.0, 0.5])
s1, s2 = c1.sum(), c2.sum()
kl_dir = (torch.lgamma(s1) - torch.lgamma(c1).sum() - torch.lgamma(s2) + torch.lgamma(c2).sum()
          + ((c1 - c2) * (dg(c1) - dg(s1))).sum())
assert torch.allclose(kl_divergence(Dirichlet(c1), Dirichlet(c2)), kl_dir)
print(f"KL(Beta) {kl_closed.item():.6f} H(Beta) {ent_closed.item():.6f} KL(Dirichlet) {kl_dir.item():.6f}")

target = torch.tensor([0.6, 0.3, 0.1])
log_conc = torch.zeros(3, requires_grad=True)
opt = torch.optim.Adam([log_conc], lr=0.05)
for step in range(200):
    x = Dirichlet(log_conc.exp()).rsample((64,))
    loss = ((x - target) ** 2).sum(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
mean = log_conc.exp() / log_conc.exp().sum()
print(f"learned Dirichlet mean {[round(v, 3) for v in mean.tolist()]} concentration {log_conc.exp().sum().item():.2f}")
assert torch.allclose(mean, target, atol=0.05)
