"""Continual learning with elastic weight consolidation: train on task A, estimate the diagonal
Fisher information from squared per-sample gradients, keep a copy of the weights
({n: p.detach().clone()}), then train on task B with the EWC penalty. EWC forgets task A less
than plain fine-tuning."""
import copy
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


def make_task(seed, n=600):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(10, 2, generator=g)
    x = torch.randn(n, 10, generator=g)
    return x, (x @ w).argmax(1)


xa, ya = make_task(1)
xb, yb = make_task(2)


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def train(model, x, y, steps=150, penalty=None):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for step in range(steps):
        idx = torch.randint(0, len(x), (64,))
        loss = F.cross_entropy(model(x[idx]), y[idx])
        if penalty is not None:
            loss = loss + penalty(model)
        opt.zero_grad()
        loss.backward()
        opt.step()


def fisher_diagonal(model, x, y, batches=200):
    fisher = {n: torch.zeros_like(p) for n, p in model.named_parameters()}
    model.eval()
    for i in range(batches):
        model.zero_grad()
        xb_ = x[i:i + 1]  # one sample per backward: E[g g^T], not (E g)^2
        logp = F.log_softmax(model(xb_), 1)
        sampled = torch.multinomial(logp.exp(), 1).squeeze(1)
        F.nll_loss(logp, sampled).backward()
        for n, p in model.named_parameters():
            fisher[n] += p.grad.detach() ** 2 / batches
    return fisher


base = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Linear(64, 2))
train(base, xa, ya)
acc_a = accuracy(base, xa, ya)
fisher = fisher_diagonal(base, xa, ya)
star = {n: p.detach().clone() for n, p in base.named_parameters()}


def ewc_penalty(model, lam=3000.0):
    return lam / 2 * sum((fisher[n] * (p - star[n]) ** 2).sum() for n, p in model.named_parameters())


plain = copy.deepcopy(base)
train(plain, xb, yb)
ewc = copy.deepcopy(base)
train(ewc, xb, yb, penalty=ewc_penalty)
print(f"task A after A: {acc_a:.2f}")
print(f"fine-tune: A {accuracy(plain, xa, ya):.2f} B {accuracy(plain, xb, yb):.2f}")
print(f"EWC:       A {accuracy(ewc, xa, ya):.2f} B {accuracy(ewc, xb, yb):.2f}")
assert acc_a > 0.9
with torch.no_grad():
    loss_a = {name: F.cross_entropy(m(xa), ya).item() for name, m in [("plain", plain), ("ewc", ewc)]}
print("task A loss after B:", {k: round(v, 3) for k, v in loss_a.items()})
assert loss_a["ewc"] < 0.8 * loss_a["plain"]
assert accuracy(ewc, xa, ya) >= accuracy(plain, xa, ya)
assert accuracy(ewc, xb, yb) > 0.75
assert all(f.min() >= 0 for f in fisher.values())
