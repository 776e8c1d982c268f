"""A restricted Boltzmann machine trained by contrastive divergence (CD-k) as in the classic
tutorials, with no autograd for the weights: Gibbs steps with torch.bernoulli of sigmoids, the
positive and negative phase statistics from outer products (torch.matmul of transposes), the
parameters updated in place with momentum; the free energy F(v) = -v.b - sum softplus(vW + c)
from F.softplus, and its autograd gradient equal to the CD positive-phase statistics."""
import minigenesis as torch
from minigenesis.nn import functional as F

torch.manual_seed(0)
n_vis, n_hid = 12, 8
prototypes = torch.tensor([[1.0] * 6 + [0.0] * 6, [0.0] * 6 + [1.0] * 6, [1.0, 0.0] * 6])


def data(n):
    v = prototypes[torch.randint(0, 3, (n,))]
    flip = torch.rand(n, n_vis) < 0.05
    return torch.where(flip, 1 - v, v)


W = 0.01 * torch.randn(n_vis, n_hid)
b = torch.zeros(n_vis)
c = torch.zeros(n_hid)


def sample_h(v):
    p = torch.sigmoid(v @ W + c)
    return p, torch.bernoulli(p)


def sample_v(h):
    p = torch.sigmoid(h @ W.t() + b)
    return p, torch.bernoulli(p)


def free_energy(v, W, b, c):
    return -(v @ b) - F.softplus(v @ W + c).sum(dim=1)


# dF/dW = -v^T sigmoid(vW + c): the positive phase of CD is minus the free energy's gradient
v0 = data(16)
Wg = W.clone().requires_grad_()
free_energy(v0, Wg, b, c).sum().backward()
assert torch.allclose(-Wg.grad, v0.t() @ torch.sigmoid(v0 @ W + c), atol=1e-6)

lr, mom, k = 0.1, 0.5, 1
dW, db, dc = torch.zeros_like(W), torch.zeros_like(b), torch.zeros_like(c)
errors = []
for epoch in range(300):
    v0 = data(32)
    ph0, h = sample_h(v0)
    for _ in range(k):
        pv, v = sample_v(h)
        ph, h = sample_h(v)
    dW.mul_(mom).add_((v0.t() @ ph0 - v.t() @ ph) / v0.size(0))
    db.mul_(mom).add_((v0 - v).mean(0))
    dc.mul_(mom).add_((ph0 - ph).mean(0))
    W += lr * dW
    b += lr * db
    c += lr * dc
    errors.append(((v0 - pv) ** 2).mean().item())

clean = prototypes
recon = sample_v(sample_h(clean)[0])[0]
fe_data = free_energy(prototypes, W, b, c).mean().item()
fe_noise = free_energy((torch.rand(200, n_vis) < 0.5).float(), W, b, c).mean().item()
print(f"reconstruction error {sum(errors[:20]) / 20:.3f} -> {sum(errors[-20:]) / 20:.3f}; free energy data {fe_data:.2f} noise {fe_noise:.2f}")
assert sum(errors[-20:]) < 0.5 * sum(errors[:20])
assert ((recon > 0.5).float() == prototypes).float().mean() > 0.9
assert fe_data < fe_noise - 2
