"""Sliced score matching (Song et al. 2019) the way its reference code writes the variance-reduced
loss: project the score's Jacobian on random Gaussian directions v by one autograd.grad with
create_graph=True, loss = v^T (d/dx)(v^T s(x)) + 0.5 |s(x)|^2. A linear score model on Gaussian
data recovers the closed form s(x) = -Sigma^-1 (x - mu); an MLP's score on a two-moon-like mixture
then drives annealed-free Langevin dynamics whose samples have the data's moments."""
import minigenesis as torch
import minigenesis.autograd as autograd
import minigenesis.nn as nn

torch.manual_seed(0)


def sliced_score_estimation_vr(score_net, samples, n_particles=1):
    dup_samples = samples.unsqueeze(0).expand(n_particles, *samples.shape).contiguous().view(-1, *samples.shape[1:])
    dup_samples.requires_grad_(True)
    vectors = torch.randn_like(dup_samples)

    grad1 = score_net(dup_samples)
    gradv = torch.sum(grad1 * vectors)
    grad2 = autograd.grad(gradv, dup_samples, create_graph=True)[0]

    grad1 = grad1.view(dup_samples.shape[0], -1)
    loss1 = torch.sum(grad1 * grad1, dim=-1) / 2.
    loss2 = torch.sum((vectors * grad2).view(dup_samples.shape[0], -1), dim=-1)

    loss1 = loss1.view(n_particles, -1).mean(dim=0)
    loss2 = loss2.view(n_particles, -1).mean(dim=0)
    loss = loss1 + loss2
    return loss.mean(), loss1.mean(), loss2.mean()


# 1. a Gaussian with known mean and covariance: the optimum of the linear model is -Sigma^-1
mu = torch.tensor([1.0, -2.0])
L = torch.tensor([[1.0, 0.0], [0.5, 0.8]])
Sigma = L @ L.t()
data = mu + torch.randn(20000, 2) @ L.t()
linear = nn.Linear(2, 2)
opt = torch.optim.Adam(linear.parameters(), lr=5e-2)
for step in range(300):
    idx = torch.randint(0, len(data), (512,))
    loss, _, _ = sliced_score_estimation_vr(linear, data[idx], n_particles=4)
    opt.zero_grad()
    loss.backward()
    opt.step()
precision = torch.linalg.inv(Sigma)
print("learned W\n", linear.weight.data, "\n-Sigma^-1\n", -precision)
rel = (linear.weight.data + precision).norm() / precision.norm()
print(f"relative error {rel.item():.3f}")
assert rel < 0.15
assert torch.allclose(linear.bias.data, precision @ mu, rtol=0.2, atol=0.3)

# 2. a mixture: an MLP score and Langevin sampling


def mixture(n):
    which = torch.rand(n) < 0.5
    return torch.where(which[:, None], torch.tensor([-1.5, 0.0]), torch.tensor([1.5, 0.0])) + 0.4 * torch.randn(n, 2)


score = nn.Sequential(nn.Linear(2, 64), nn.Softplus(), nn.Linear(64, 64), nn.Softplus(), nn.Linear(64, 2))
opt = torch.optim.Adam(score.parameters(), lr=1e-3)
for step in range(200):
    loss, l1, l2 = sliced_score_estimation_vr(score, mixture(256))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(f"step {step}  loss {loss.item():.3f} (|s|^2/2 {l1.item():.3f}, trace term {l2.item():.3f})")
assert loss.item() < -1.0

x = torch.rand(2000, 2) * 6 - 3
eps = 0.02
with torch.no_grad():
    for _ in range(200):
        x = x + eps / 2 * score(x) + eps ** 0.5 * torch.randn_like(x)
print("sample mean", x.mean(0).tolist(), "std", x.std(0).tolist())
assert x.mean(0).abs().max() < 0.3
assert abs(x[:, 0].std() - (1.5 ** 2 + 0.16) ** 0.5) < 0.3 and abs(x[:, 1].std() - 0.4) < 0.15
