"""Hamiltonian Monte Carlo for Bayesian logistic regression: the potential's gradient by
torch.autograd.grad, leapfrog integration, Metropolis acceptance in log space; the posterior
mean is checked against a Laplace approximation (MAP by LBFGS, Hessian by
torch.autograd.functional.hessian)."""
import minigenesis as torch
import minigenesis.nn.functional as F

torch.manual_seed(0)
n, d = 200, 3
X = torch.cat([torch.ones(n, 1), torch.randn(n, d - 1)], 1).double()
w_true = torch.tensor([-0.5, 1.5, -1.0], dtype=torch.float64)
y = torch.bernoulli(torch.sigmoid(X @ w_true))
prior_var = 4.0


def potential(w):
    ll = -F.binary_cross_entropy_with_logits(X @ w, y, reduction="sum")
    return -(ll - 0.5 * (w ** 2).sum() / prior_var)


def grad_u(w):
    w = w.detach().requires_grad_(True)
    (g,) = torch.autograd.grad(potential(w), w)
    return g


def hmc_step(w, eps=0.08, L=8):
    p0 = torch.randn_like(w)
    q, p = w.clone(), p0 - 0.5 * eps * grad_u(w)
    for i in range(L):
        q = q + eps * p
        if i < L - 1:
            p = p - eps * grad_u(q)
    p = p - 0.5 * eps * grad_u(q)
    with torch.no_grad():
        h0 = potential(w) + 0.5 * (p0 ** 2).sum()
        h1 = potential(q) + 0.5 * (p ** 2).sum()
    if torch.log(torch.rand(())) < (h0 - h1):
        return q, True
    return w, False


w = torch.zeros(d, dtype=torch.float64)
samples, accepted = [], 0
for it in range(300):
    w, acc = hmc_step(w)
    accepted += acc
    if it >= 50:
        samples.append(w)
samples = torch.stack(samples)
rate = accepted / 300

w_map = torch.zeros(d, dtype=torch.float64, requires_grad=True)
opt = torch.optim.LBFGS([w_map], max_iter=100, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    u = potential(w_map)
    u.backward()
    return u


opt.step(closure)
Hs = torch.autograd.functional.hessian(potential, w_map.detach())
laplace_cov = torch.linalg.inv(Hs)
print("acceptance", round(rate, 2))
print("HMC mean   ", [round(v, 3) for v in samples.mean(0).tolist()])
print("MAP        ", [round(v, 3) for v in w_map.tolist()])
print("HMC std    ", [round(v, 3) for v in samples.std(0).tolist()])
print("Laplace std", [round(v, 3) for v in laplace_cov.diagonal().sqrt().tolist()])
assert rate > 0.6
assert (samples.mean(0) - w_map).abs().max() < 0.15
assert torch.allclose(samples.std(0), laplace_cov.diagonal().sqrt(), rtol=0.35)
