"""Comparing optimizers on the Rosenbrock function f(x, y) = (1 - x)^2 + 100 (y - x^2)^2 from
(-1.5, 2), as optimisation blog posts do: one tensor parameter, each of SGD (Nesterov), RMSprop,
Adagrad, Adadelta, Adam (amsgrad), AdamW, Adamax, NAdam, RAdam, ASGD and Rprop for a fixed
number of steps, the gradient checked against the closed form, and each getting closer to the
minimum (1, 1) than it started."""
import minigenesis as torch


def rosenbrock(p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x**2) ** 2


p = torch.tensor([-1.5, 2.0], requires_grad=True)
rosenbrock(p).backward()
x, y = -1.5, 2.0
assert torch.allclose(p.grad, torch.tensor([-2 * (1 - x) - 400 * x * (y - x * x), 200 * (y - x * x)]))

configs = {
    "SGD": (torch.optim.SGD, dict(lr=1e-4, momentum=0.9, nesterov=True)),
    "RMSprop": (torch.optim.RMSprop, dict(lr=1e-2, alpha=0.9, centered=True)),
    "Adagrad": (torch.optim.Adagrad, dict(lr=0.5, lr_decay=1e-4)),
    "Adadelta": (torch.optim.Adadelta, dict(lr=1.0, rho=0.95)),
    "Adam": (torch.optim.Adam, dict(lr=5e-2, amsgrad=True)),
    "AdamW": (torch.optim.AdamW, dict(lr=5e-2, weight_decay=1e-3)),
    "Adamax": (torch.optim.Adamax, dict(lr=5e-2)),
    "NAdam": (torch.optim.NAdam, dict(lr=5e-2)),
    "RAdam": (torch.optim.RAdam, dict(lr=1e-3)),
    "ASGD": (torch.optim.ASGD, dict(lr=1e-4, t0=100)),
    "Rprop": (torch.optim.Rprop, dict(lr=1e-3)),
}
start_dist = torch.dist(torch.tensor([-1.5, 2.0]), torch.ones(2)).item()
results = {}
for name, (cls, kw) in configs.items():
    p = torch.tensor([-1.5, 2.0], requires_grad=True)
    opt = cls([p], **kw)
    for _ in range(500):
        opt.zero_grad()
        loss = rosenbrock(p)
        loss.backward()
        opt.step()
    results[name] = (rosenbrock(p).item(), torch.dist(p.detach(), torch.ones(2)).item(), p.detach().clone())
for name, (f, d, pt) in results.items():
    print(f"{name:9s} f = {f:10.6f}  |p - (1,1)| = {d:.4f}  p = ({pt[0].item():.5f}, {pt[1].item():.5f})")
    assert torch.isfinite(pt).all()
    assert d < start_dist, name
assert min(r[0] for r in results.values()) < 0.1
