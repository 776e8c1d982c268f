"""k-nearest neighbours in plain tensor ops, the way blog posts write it on GPU-ready code:
torch.cdist for the pairwise distances (checked against the expanded ||a||^2 - 2ab + ||b||^2
form and a broadcast (a[:, None] - b[None]).norm(dim=-1)), topk(largest=False) for the k nearest,
torch.mode over their labels for the vote, distance-weighted votes by scatter_add_ into one-hot
counts, p=1 (Manhattan) distances, and accuracy on three overlapping Gaussian blobs well above chance."""
import minigenesis as torch

torch.manual_seed(0)
n_per = 60
centers = torch.tensor([[0.0, 0.0], [2.5, 2.5], [0.0, 3.0]])
X = torch.cat([torch.randn(n_per, 2) + c for c in centers])
y = torch.arange(3).repeat_interleave(n_per)
perm = torch.randperm(len(X))
X, y = X[perm], y[perm]
X_train, y_train, X_test, y_test = X[:150], y[:150], X[150:], y[150:]

d = torch.cdist(X_test, X_train)
assert d.shape == (30, 150)
sq = (X_test**2).sum(1, keepdim=True) - 2 * X_test @ X_train.T + (X_train**2).sum(1)
assert torch.allclose(d, sq.clamp_min(0).sqrt(), atol=1e-4)
assert torch.allclose(d, (X_test[:, None] - X_train[None]).norm(dim=-1), atol=1e-4)  # matmul form: ~1e-5 off
d1 = torch.cdist(X_test, X_train, p=1)
assert torch.allclose(d1, (X_test[:, None] - X_train[None]).abs().sum(-1), atol=1e-5)

k = 7
dist, idx = d.topk(k, dim=1, largest=False)
assert torch.all(dist[:, :-1] <= dist[:, 1:])  # sorted ascending
assert torch.allclose(dist[:, 0], d.min(dim=1).values)
neighbour_labels = y_train[idx]
pred = torch.mode(neighbour_labels, dim=1).values
acc = (pred == y_test).float().mean().item()

# distance-weighted vote
weights = 1.0 / (dist + 1e-8)
votes = torch.zeros(len(X_test), 3).scatter_add_(1, neighbour_labels, weights)
pred_w = votes.argmax(1)
acc_w = (pred_w == y_test).float().mean().item()
# the same counts by a loop
counts = torch.zeros(len(X_test), 3)
for i in range(len(X_test)):
    for j in range(k):
        counts[i, neighbour_labels[i, j]] += 1
assert torch.equal(counts.argmax(1)[counts.max(1).values > k / 2], pred[counts.max(1).values > k / 2])
print(f"kNN accuracy {acc:.3f}, distance-weighted {acc_w:.3f}")
assert acc > 0.7 and acc_w > 0.7  # chance is 1/3; the blobs overlap
# batched cdist over a leading dim
B = torch.randn(4, 5, 3)
C = torch.randn(4, 6, 3)
assert torch.allclose(torch.cdist(B, C), torch.stack([torch.cdist(b, c) for b, c in zip(B, C)]))
