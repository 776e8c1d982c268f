"""SimCLR-style contrastive pretraining on vectors: two random augmentations per sample, the
NT-Xent loss as cross_entropy over a cosine-similarity matrix with the diagonal masked out,
warmup then cosine decay with SequentialLR(LinearLR, CosineAnnealingLR), then a linear probe
on the frozen encoder."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n_classes, dim = 4, 12
protos = torch.randn(n_classes, dim) * 2
labels_all = torch.randint(0, n_classes, (1000,))
data = protos[labels_all] + torch.randn(1000, dim)


def augment(x):
    mask = (torch.rand_like(x) > 0.2).float()  # feature dropout
    return x * mask + 0.3 * torch.randn_like(x)


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    n = z1.size(0)
    sim = z @ z.T / temperature
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


encoder = nn.Sequential(nn.Linear(dim, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 32))
projector = nn.Sequential(nn.ReLU(), nn.Linear(32, 16))
params = list(encoder.parameters()) + list(projector.parameters())
optimizer = torch.optim.AdamW(params, lr=3e-3, weight_decay=1e-4)
steps = 120
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=10)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps - 10)
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[10])
lrs = []
for step in range(steps):
    x = data[torch.randint(0, len(data), (128,))]
    loss = nt_xent(projector(encoder(augment(x))), projector(encoder(augment(x))))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    lrs.append(scheduler.get_last_lr()[0])
    scheduler.step()
    if step % 40 == 0:
        print(f"step {step} nt-xent {loss.item():.4f}")

# NT-Xent by hand for one anchor: -log(exp(s_pos) / sum_{k != i} exp(s_ik))
z1, z2 = torch.randn(3, 5), torch.randn(3, 5)
z = F.normalize(torch.cat([z1, z2]), dim=1)
s = z @ z.T / 0.5
by_hand = -(s[0, 3] - torch.logsumexp(torch.cat([s[0, 1:]]), dim=0))
assert torch.allclose(F.cross_entropy(s[:1].masked_fill(torch.eye(6, dtype=torch.bool)[:1], float("-inf")), torch.tensor([3])), by_hand)
assert abs(lrs[0] - 3e-4) < 1e-9 and max(lrs) <= 3e-3 + 1e-12 and lrs[-1] < 1e-4

optimizer.zero_grad()
encoder.eval()
for p in encoder.parameters():
    p.requires_grad_(False)
probe = nn.Linear(32, n_classes)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1, momentum=0.9)
with torch.no_grad():
    feats = encoder(data)
train_f, test_f = feats[:800], feats[800:]
train_y, test_y = labels_all[:800], labels_all[800:]
for epoch in range(100):
    probe_opt.zero_grad()
    F.cross_entropy(probe(train_f), train_y).backward()
    probe_opt.step()
acc = (probe(test_f).argmax(1) == test_y).float().mean().item()
print(f"linear probe accuracy {acc:.3f}")
assert all(p.grad is None for p in encoder.parameters())
assert acc > 0.9
