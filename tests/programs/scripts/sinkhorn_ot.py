"""Entropic optimal transport by Sinkhorn iterations in the log domain, as POT-free notebooks and
papers' code (Cuturi 2013; "Sinkhorn distances") write it: a squared-Euclidean cost from
torch.cdist, dual potentials updated with torch.logsumexp, the plan's marginals matching the
weights, the transport cost approaching the exact optimum (every permutation checked by
itertools) as epsilon shrinks, and differentiating the Sinkhorn loss to move a point cloud
onto another with gradient descent."""
import itertools
import math

import minigenesis as torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def sinkhorn(x, y, eps, n_iter=200, a=None, b=None):
    n, m = x.shape[0], y.shape[0]
    C = torch.cdist(x, y) ** 2
    log_a = torch.full((n,), -math.log(n)) if a is None else a.log()
    log_b = torch.full((m,), -math.log(m)) if b is None else b.log()
    f, g = torch.zeros(n), torch.zeros(m)
    for _ in range(n_iter):
        f = -eps * torch.logsumexp((g[None, :] - C) / eps + log_b[None, :], dim=1)
        g = -eps * torch.logsumexp((f[:, None] - C) / eps + log_a[:, None], dim=0)
    log_P = (f[:, None] + g[None, :] - C) / eps + log_a[:, None] + log_b[None, :]
    P = log_P.exp()
    return (P * C).sum(), P


x = torch.randn(6, 2)
y = torch.randn(6, 2) + torch.tensor([2.0, 0.0])
C = torch.cdist(x, y) ** 2
exact = min(sum(C[i, p[i]].item() for i in range(6)) for p in itertools.permutations(range(6))) / 6
costs = []
for eps in (1.0, 0.3, 0.1):
    cost, P = sinkhorn(x, y, eps, n_iter=1000)
    costs.append(cost.item())
    assert torch.allclose(P.sum(1), torch.full((6,), 1 / 6), atol=1e-3)  # f lags one half-step
    assert torch.allclose(P.sum(0), torch.full((6,), 1 / 6), atol=1e-12)  # g's update is last
    assert torch.allclose(P.sum(0), torch.full((6,), 1 / 6), atol=1e-6)
    print(f"eps {eps}: cost {cost.item():.5f} (exact {exact:.5f})")
gaps = [c - exact for c in costs]
assert gaps[0] > gaps[1] > gaps[2] > -1e-9 and gaps[2] < 0.02 * exact  # the gap shrinks with eps

source = torch.randn(40, 2, requires_grad=True)
target = torch.randn(40, 2) * 0.5 + torch.tensor([3.0, -1.0])
opt = torch.optim.Adam([source], lr=0.1)
first = None
for step in range(60):
    loss, _ = sinkhorn(source, target, eps=0.05, n_iter=50)
    first = loss.item() if first is None else first
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} sinkhorn loss {loss.item():.5f}")
print(f"final loss {loss.item():.5f} source mean {source.mean(0).tolist()}")
assert loss.item() < 0.05 * first
assert torch.allclose(source.mean(0), target.mean(0), atol=0.2)
