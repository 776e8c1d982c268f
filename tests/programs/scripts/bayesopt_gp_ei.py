"""Bayesian optimisation of a 1-d function: an exact Gaussian process (RBF kernel, Cholesky by
torch.linalg.cholesky and torch.cholesky_solve), hyperparameters fitted by maximising the log
marginal likelihood with Adam through softplus, and the expected-improvement acquisition from
torch.distributions.Normal's cdf and log_prob; finds the global minimum in a few evaluations.
The posterior mean is checked against the closed form by torch.linalg.solve."""
import math
import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis.distributions import Normal

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)


def f(x):
    return torch.sin(3 * x) + 0.3 * (x - 0.5) ** 2 - 0.5 * torch.exp(-((x - 2.2) ** 2) / 0.02)


grid = torch.linspace(-2, 3, 501).unsqueeze(1)
true_min = f(grid).min().item()
raw = {"ls": torch.tensor(0.0, requires_grad=True), "sf": torch.tensor(0.5, requires_grad=True),
       "sn": torch.tensor(-4.0, requires_grad=True)}


def kernel(a, b, ls, sf):
    return sf ** 2 * torch.exp(-0.5 * torch.cdist(a, b) ** 2 / ls ** 2)


def hypers():
    return F.softplus(raw["ls"]) + 0.05, F.softplus(raw["sf"]), F.softplus(raw["sn"]) + 1e-4


def fit(X, y, steps=100):
    opt = torch.optim.Adam(raw.values(), lr=0.05)
    for _ in range(steps):
        ls, sf, sn = hypers()
        K = kernel(X, X, ls, sf) + sn ** 2 * torch.eye(len(X))
        Lc = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), Lc)
        mll = -0.5 * (y.unsqueeze(1) * alpha).sum() - Lc.diagonal().log().sum() - 0.5 * len(X) * math.log(2 * math.pi)
        opt.zero_grad()
        (-mll).backward()
        opt.step()


def posterior(X, y, Xs):
    with torch.no_grad():
        ls, sf, sn = hypers()
        K = kernel(X, X, ls, sf) + sn ** 2 * torch.eye(len(X))
        Lc = torch.linalg.cholesky(K)
        Ks = kernel(X, Xs, ls, sf)
        mean = (Ks.T @ torch.cholesky_solve(y.unsqueeze(1), Lc)).squeeze(1)
        v = torch.linalg.solve_triangular(Lc, Ks, upper=False)
        var = (sf ** 2 - (v ** 2).sum(0)).clamp_min(1e-12)
        assert torch.allclose(mean, Ks.T @ torch.linalg.solve(K, y), atol=1e-6)
    return mean, var.sqrt()


def expected_improvement(mean, std, best):
    z = (best - mean) / std
    n = Normal(0.0, 1.0)
    return std * (z * n.cdf(z) + n.log_prob(z).exp())


X = torch.tensor([[-1.5], [0.0], [1.0]])
y = f(X).squeeze(1)
for it in range(12):
    fit(X, (y - y.mean()) / y.std())
    mean, std = posterior(X, (y - y.mean()) / y.std(), grid)
    ei = expected_improvement(mean, std, ((y.min() - y.mean()) / y.std()))
    x_next = grid[ei.argmax()].unsqueeze(0)
    X = torch.cat([X, x_next])
    y = torch.cat([y, f(x_next).squeeze(1)])
best = y.min().item()
print(f"best found {best:.4f} at x={X[y.argmin()].item():.3f}; true minimum {true_min:.4f}; {len(y)} evaluations")
print("lengthscale, signal, noise:", [round(h.item(), 3) for h in hypers()])
assert best - true_min < 0.05
torch.set_default_dtype(torch.float32)
