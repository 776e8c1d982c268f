"""Barlow Twins and VICReg: two self-supervised losses built from batch statistics, the
cross-correlation matrix with its off-diagonal terms, and variance/covariance regularisers;
a linear probe on the frozen features then beats chance."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


def off_diagonal(x):
    n, m = x.shape
    assert n == m
    return x.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


def barlow_twins_loss(z1, z2, lambd=5e-3):
    z1n = (z1 - z1.mean(0)) / z1.std(0, unbiased=False)
    z2n = (z2 - z2.mean(0)) / z2.std(0, unbiased=False)
    c = z1n.T @ z2n / z1.shape[0]
    on_diag = torch.diagonal(c).add_(-1).pow_(2).sum()
    off_diag = off_diagonal(c).pow_(2).sum()
    return on_diag + lambd * off_diag


def vicreg_loss(z1, z2, sim=25.0, var=25.0, cov=1.0):
    inv = F.mse_loss(z1, z2)
    std1 = torch.sqrt(z1.var(dim=0) + 1e-4)
    std2 = torch.sqrt(z2.var(dim=0) + 1e-4)
    var_loss = torch.mean(F.relu(1 - std1)) / 2 + torch.mean(F.relu(1 - std2)) / 2
    z1c, z2c = z1 - z1.mean(0), z2 - z2.mean(0)
    n, d = z1.shape
    cov1 = (z1c.T @ z1c) / (n - 1)
    cov2 = (z2c.T @ z2c) / (n - 1)
    cov_loss = off_diagonal(cov1).pow_(2).sum().div(d) + off_diagonal(cov2).pow_(2).sum().div(d)
    return sim * inv + var * var_loss + cov * cov_loss


# off_diagonal against a mask
m = torch.arange(16.0).view(4, 4)
assert torch.equal(off_diagonal(m), m[~torch.eye(4, dtype=torch.bool)])

torch.manual_seed(0)
n_classes, dim = 4, 16
centers = torch.randn(n_classes, dim) * 2
labels = torch.randint(0, n_classes, (512,))
x = centers[labels] + 0.5 * torch.randn(512, dim)


def augment(x):
    return x * (1 + 0.2 * torch.randn_like(x)) + 0.3 * torch.randn_like(x)


results = {}
for name, criterion in [("barlow", barlow_twins_loss), ("vicreg", vicreg_loss)]:
    torch.manual_seed(1)
    encoder = nn.Sequential(nn.Linear(dim, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32))
    projector = nn.Sequential(nn.Linear(32, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 64))
    opt = torch.optim.Adam(list(encoder.parameters()) + list(projector.parameters()), lr=1e-3)
    losses = []
    for step in range(60):
        idx = torch.randint(0, 512, (64,))
        xb = x[idx]
        z1, z2 = projector(encoder(augment(xb))), projector(encoder(augment(xb)))
        loss = criterion(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    encoder.eval()
    with torch.no_grad():
        feats = encoder(x)
    probe = nn.Linear(32, n_classes)
    popt = torch.optim.LBFGS(probe.parameters(), max_iter=50)

    def closure():
        popt.zero_grad()
        l = F.cross_entropy(probe(feats), labels)
        l.backward()
        return l

    popt.step(closure)
    acc = (probe(feats).argmax(1) == labels).float().mean().item()
    results[name] = acc
    print(f"{name}: loss {losses[0]:.2f} -> {sum(losses[-10:]) / 10:.2f}, probe accuracy {acc:.2f}")
    assert sum(losses[-10:]) / 10 < losses[0]
    assert acc > 0.8
