"""A Siamese network on pairs: a Dataset yielding (x1, x2, same) with same = 1 or -1, one shared
tower applied to both inputs, nn.CosineEmbeddingLoss(margin=0.3) plus the classic contrastive
loss written with F.pairwise_distance and torch.clamp, then verification by thresholding the
cosine similarity (the threshold picked on the training pairs by a sweep)."""
import random
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import Dataset, DataLoader

random.seed(0)
torch.manual_seed(0)
n_classes, dim = 6, 10
centers = torch.randn(n_classes, dim)


class PairDataset(Dataset):
    def __init__(self, n_pairs):
        self.pairs = []
        for _ in range(n_pairs):
            a = random.randrange(n_classes)
            b = a if random.random() < 0.5 else random.choice([c for c in range(n_classes) if c != a])
            self.pairs.append((a, b))
        self.noise = torch.randn(n_pairs, 2, dim) * 0.6

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, idx):
        a, b = self.pairs[idx]
        x1 = centers[a] + self.noise[idx, 0]
        x2 = centers[b] + self.noise[idx, 1]
        target = torch.tensor(1.0 if a == b else -1.0)
        return x1, x2, target


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.fc = nn.Sequential(nn.Linear(dim, 32), nn.PReLU(), nn.Linear(32, 32), nn.PReLU(), nn.Linear(32, 8))

    def forward_once(self, x):
        return self.fc(x)

    def forward(self, input1, input2):
        return self.forward_once(input1), self.forward_once(input2)


def contrastive_loss(out1, out2, label, margin=2.0):
    """label 0 for a similar pair, 1 for a dissimilar one (Hadsell et al. 2006)."""
    euclidean_distance = F.pairwise_distance(out1, out2, keepdim=True)
    return torch.mean((1 - label) * torch.pow(euclidean_distance, 2) +
                      label * torch.pow(torch.clamp(margin - euclidean_distance, min=0.0), 2))


train_loader = DataLoader(PairDataset(1024), batch_size=64, shuffle=True)
test_set = PairDataset(400)
net = SiameseNetwork()
cosine_loss = nn.CosineEmbeddingLoss(margin=0.3)
optimizer = torch.optim.RMSprop(net.parameters(), lr=3e-3, alpha=0.9)

for epoch in range(5):
    running = 0.0
    for x1, x2, target in train_loader:
        optimizer.zero_grad()
        out1, out2 = net(x1, x2)
        dissimilar = (target < 0).float().unsqueeze(1)
        loss = cosine_loss(out1, out2, target) + 0.1 * contrastive_loss(out1, out2, dissimilar)
        loss.backward()
        optimizer.step()
        running += loss.item()
    print(f"epoch {epoch}: loss {running / len(train_loader):.4f}")

# CosineEmbeddingLoss is 1 - cos for similar pairs and max(0, cos - margin) for dissimilar ones
o1, o2 = torch.randn(5, 8), torch.randn(5, 8)
t = torch.tensor([1.0, -1.0, 1.0, -1.0, -1.0])
cos = F.cosine_similarity(o1, o2)
manual = torch.where(t > 0, 1 - cos, (cos - 0.3).clamp(min=0)).mean()
assert torch.allclose(cosine_loss(o1, o2, t), manual, atol=1e-6)


def similarities(ds):
    x1 = torch.stack([ds[i][0] for i in range(len(ds))])
    x2 = torch.stack([ds[i][1] for i in range(len(ds))])
    same = torch.stack([ds[i][2] for i in range(len(ds))]) > 0
    with torch.no_grad():
        e1, e2 = net(x1, x2)
    return F.cosine_similarity(e1, e2, dim=1), same


train_sim, train_same = similarities(train_loader.dataset)
thresholds = torch.linspace(-1, 1, 81)
accs = torch.stack([((train_sim > th) == train_same).float().mean() for th in thresholds])
best = thresholds[accs.argmax()].item()
test_sim, test_same = similarities(test_set)
test_acc = ((test_sim > best) == test_same).float().mean().item()
print(f"threshold {best:.3f}: train verification {accs.max().item():.3f}, test {test_acc:.3f}")
print("mean cosine similar %.3f, dissimilar %.3f" % (test_sim[test_same].mean().item(), test_sim[~test_same].mean().item()))
assert test_acc > 0.9, test_acc
