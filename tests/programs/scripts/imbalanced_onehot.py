"""An imbalanced dataset rebalanced by WeightedRandomSampler, one_hot targets, label smoothing."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, TensorDataset, WeightedRandomSampler

torch.manual_seed(0)
X = torch.randn(1000, 5)
y = (X[:, 0] > 1.2).long()  # about 12% positives
class_counts = torch.bincount(y)
weights = 1.0 / class_counts.float()
sample_weights = weights[y]
sampler = WeightedRandomSampler(sample_weights, num_samples=len(sample_weights), replacement=True)
loader = DataLoader(TensorDataset(X, y), batch_size=100, sampler=sampler)
model = nn.Linear(5, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(5):
    frac = []
    for xb, yb in loader:
        frac.append(yb.float().mean().item())
        target = F.one_hot(yb, num_classes=2).float()
        loss = nn.CrossEntropyLoss(label_smoothing=0.1)(model(xb), yb)
        soft = -(target * F.log_softmax(model(xb), dim=1)).sum(1).mean()
        opt.zero_grad(); loss.backward(); opt.step()
print("positive fraction per batch", sum(frac) / len(frac))
assert 0.35 < sum(frac) / len(frac) < 0.65
