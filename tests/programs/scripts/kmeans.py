"""k-means with cdist, argmin, index_add_, bincount and scatter_add_."""
import minigenesis as torch

torch.manual_seed(0)
centers_true = torch.tensor([[0.0, 0.0], [5.0, 5.0], [0.0, 5.0]])
X = torch.cat([c + torch.randn(100, 2) * 0.5 for c in centers_true])
k = 3
centroids = X[torch.randperm(len(X))[:k]].clone()
for it in range(20):
    d = torch.cdist(X, centroids)
    assign = d.argmin(dim=1)
    sums = torch.zeros(k, 2).index_add_(0, assign, X)
    counts = torch.bincount(assign, minlength=k).clamp(min=1).unsqueeze(1)
    new = sums / counts
    if torch.allclose(new, centroids):
        break
    centroids = new
order = centroids.sum(1).argsort()
print(centroids[order])
sizes = torch.zeros(k, dtype=torch.long).scatter_add_(0, assign, torch.ones_like(assign))
print(sizes.tolist())
assert sorted(sizes.tolist()) == [100, 100, 100]
