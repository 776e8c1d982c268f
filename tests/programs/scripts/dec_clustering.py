"""Deep embedded clustering (DEC): an autoencoder pretrained on reconstruction, cluster centres
initialised by k-means in the latent space (torch.cdist, argmin, index_add_), then joint
refinement by KL(P || Q) between the Student-t soft assignment Q and the sharpened target P
(recomputed every few steps, detached); clustering accuracy is scored by the best label
permutation (itertools.permutations)."""
import itertools
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
k, per, dim = 4, 150, 20
basis = torch.randn(3, dim)
centers = torch.randn(k, 3) * 3
labels = torch.arange(k).repeat_interleave(per)
x = torch.tanh((centers[labels] + torch.randn(k * per, 3)) @ basis / 3) + 0.05 * torch.randn(k * per, dim)

enc = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 3))
dec = nn.Sequential(nn.Linear(3, 64), nn.ReLU(), nn.Linear(64, dim))
opt = torch.optim.Adam([*enc.parameters(), *dec.parameters()], lr=3e-3)
for epoch in range(40):
    for idx in torch.randperm(len(x)).split(64):
        loss = F.mse_loss(dec(enc(x[idx])), x[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
print(f"autoencoder reconstruction mse {loss.item():.4f}")


def kmeans(z, k, iters=30, restarts=5):
    best, best_inertia = None, float("inf")
    for r in range(restarts):
        c = z[torch.randperm(len(z))[:k]].clone()
        for _ in range(iters):
            assign = torch.cdist(z, c).argmin(1)
            sums = torch.zeros_like(c).index_add_(0, assign, z)
            counts = torch.bincount(assign, minlength=k).clamp_min(1).unsqueeze(1)
            c = sums / counts
        inertia = (torch.cdist(z, c).min(1).values ** 2).sum().item()
        if inertia < best_inertia:
            best, best_inertia = c, inertia
    return best


def cluster_accuracy(pred, truth):
    return max((torch.tensor(perm)[pred] == truth).float().mean().item() for perm in itertools.permutations(range(k)))


with torch.no_grad():
    z = enc(x)
mu = nn.Parameter(kmeans(z, k))
acc_kmeans = cluster_accuracy(torch.cdist(z, mu).argmin(1), labels)


def soft_assign(z, mu, alpha=1.0):
    q = (1 + torch.cdist(z, mu) ** 2 / alpha) ** (-(alpha + 1) / 2)
    return q / q.sum(1, keepdim=True)


def target_distribution(q):
    w = q ** 2 / q.sum(0)
    return (w.t() / w.sum(1)).t()


opt = torch.optim.SGD([*enc.parameters(), mu], lr=0.01, momentum=0.9)
for it in range(60):
    if it % 10 == 0:
        with torch.no_grad():
            p = target_distribution(soft_assign(enc(x), mu))
    q = soft_assign(enc(x), mu)
    loss = F.kl_div(q.log(), p, reduction="batchmean")
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    q = soft_assign(enc(x), mu)
    assert torch.allclose(q.sum(1), torch.ones(len(x)))
acc_dec = cluster_accuracy(q.argmax(1), labels)
print(f"cluster accuracy: k-means on the codes {acc_kmeans:.3f}, after DEC {acc_dec:.3f}; KL {loss.item():.4f}")
assert acc_dec > 0.9 and acc_dec >= acc_kmeans - 0.02
