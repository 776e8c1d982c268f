"""A siamese embedding network trained with TripletMarginLoss on L2-normalized embeddings,
hardest-negative mining with cdist, then nearest-centroid classification by cosine similarity."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n_classes, dim = 5, 16
prototypes = torch.randn(n_classes, dim) * 1.5


def sample(n):
    labels = torch.randint(0, n_classes, (n,))
    return prototypes[labels] + torch.randn(n, dim), labels


class EmbeddingNet(nn.Module):
    def __init__(self, emb_dim=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 64), nn.PReLU(), nn.LayerNorm(64), nn.Linear(64, emb_dim))

    def forward(self, x):
        return F.normalize(self.body(x), p=2, dim=1)


def mine_triplets(emb, labels):
    """For each anchor: a random positive, and the hardest (closest) negative."""
    with torch.no_grad():
        dist = torch.cdist(emb, emb)
        same = labels.unsqueeze(0) == labels.unsqueeze(1)
        neg_dist = dist.masked_fill(same, float("inf"))
        hardest_neg = neg_dist.argmin(dim=1)
        pos_mask = same & ~torch.eye(len(labels), dtype=torch.bool)
        pos = torch.multinomial(pos_mask.float() + 1e-12, 1).squeeze(1)
    return pos, hardest_neg


model = EmbeddingNet()
criterion = nn.TripletMarginLoss(margin=0.3, p=2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=150, eta_min=1e-3)
for step in range(150):
    x, labels = sample(64)
    emb = model(x)
    pos, neg = mine_triplets(emb, labels)
    loss = criterion(emb, emb[pos], emb[neg])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if step % 50 == 0:
        print(f"step {step} triplet loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.4f}")

model.eval()
with torch.no_grad():
    x_ref, y_ref = sample(500)
    emb_ref = model(x_ref)
    centroids = torch.stack([emb_ref[y_ref == c].mean(0) for c in range(n_classes)])
    centroids = F.normalize(centroids, dim=1)
    x_test, y_test = sample(500)
    emb_test = model(x_test)
    sims = F.cosine_similarity(emb_test.unsqueeze(1), centroids.unsqueeze(0), dim=-1)
    acc = (sims.argmax(1) == y_test).float().mean().item()
    norms = emb_test.norm(dim=1)
    functional = F.triplet_margin_loss(emb_test[:10], emb_test[10:20], emb_test[20:30], margin=0.3)
    by_hand = F.relu((emb_test[:10] - emb_test[10:20] + 1e-6).norm(dim=1) - (emb_test[:10] - emb_test[20:30] + 1e-6).norm(dim=1) + 0.3).mean()
assert torch.allclose(norms, torch.ones_like(norms), atol=1e-5)
assert torch.allclose(functional, by_hand, atol=1e-5)
print(f"nearest-centroid accuracy {acc:.3f}")
assert acc > 0.9
