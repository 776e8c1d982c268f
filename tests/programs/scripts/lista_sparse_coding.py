"""Sparse coding: ISTA minimising 0.5||x - D z||^2 + lam ||z||_1 with F.softshrink as the proximal
step (its objective decreases monotonically and it meets the optimality conditions), then LISTA,
a learned unrolled version with shared weights, which gets closer to ISTA's codes in 5 layers
than 5 ISTA iterations do."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
m, n, lam = 20, 40, 0.1
D = F.normalize(torch.randn(m, n), dim=0)
L = torch.linalg.matrix_norm(D, ord=2) ** 2


def sample_codes(b):
    z = torch.randn(b, n) * (torch.rand(b, n) < 0.1)
    return z


def objective(x, z):
    return 0.5 * ((x - z @ D.T) ** 2).sum(1) + lam * z.abs().sum(1)


def ista(x, iters):
    z = torch.zeros(x.shape[0], n)
    history = []
    for _ in range(iters):
        z = F.softshrink(z + (x - z @ D.T) @ D / L, lambd=(lam / L).item())
        history.append(objective(x, z).mean().item())
    return z, history


x = sample_codes(500) @ D.T + 0.01 * torch.randn(500, m)
z_star, hist = ista(x, 1000)
assert all(a >= b - 1e-5 for a, b in zip(hist, hist[1:])), "ISTA's objective must not increase"
# optimality: |D^T (x - D z)| <= lam, with equality (and matching sign) where z != 0
g = (x - z_star @ D.T) @ D
assert (g.abs() <= lam + 1e-3).all()
nz = z_star != 0
assert torch.allclose(g[nz], lam * torch.sign(z_star[nz]), atol=1e-3)


class LISTA(nn.Module):
    def __init__(self, layers=5):
        super().__init__()
        self.We = nn.Linear(m, n, bias=False)
        self.S = nn.Linear(n, n, bias=False)
        self.theta = nn.Parameter(torch.full((n,), (lam / L).item()))
        self.layers = layers
        with torch.no_grad():
            self.We.weight.copy_(D.T / L)
            self.S.weight.copy_(torch.eye(n) - D.T @ D / L)

    def forward(self, x):
        b = self.We(x)
        z = torch.sign(b) * F.relu(b.abs() - self.theta)
        for _ in range(self.layers - 1):
            c = b + self.S(z)
            z = torch.sign(c) * F.relu(c.abs() - self.theta)
        return z


model = LISTA()
z_ista5, _ = ista(x, 5)
with torch.no_grad():
    assert torch.allclose(model(x), z_ista5, atol=1e-5)  # initialised as ISTA
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
train_x = sample_codes(2000) @ D.T + 0.01 * torch.randn(2000, m)
train_z, _ = ista(train_x, 400)
for epoch in range(12):
    for idx in torch.randperm(2000).split(100):
        loss = F.mse_loss(model(train_x[idx]), train_z[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
with torch.no_grad():
    err_lista = F.mse_loss(model(x), z_star).item()
err_ista = F.mse_loss(z_ista5, z_star).item()
print(f"code error after 5 steps: ISTA {err_ista:.4f}, LISTA {err_lista:.4f}")
assert err_lista < 0.5 * err_ista
