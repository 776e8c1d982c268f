"""Reproducibility the way people check it: torch.manual_seed and a torch.Generator passed to
DataLoader(generator=...), randperm(generator=...) and random_split; two runs with the same seeds
give identical losses, another generator seed another order; model.eval() turns Dropout off;
evaluation under torch.no_grad() and torch.inference_mode() with argmax accuracy, a per-class
confusion matrix, and the results read with .item(), .tolist() and .numpy()."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.data import DataLoader, TensorDataset, random_split


def make_data():
    g = torch.Generator().manual_seed(2024)
    X = torch.randn(600, 10, generator=g)
    w = torch.randn(10, 3, generator=g)
    y = (X @ w + 0.3 * torch.randn(600, 3, generator=g)).argmax(dim=1)
    return X, y


def run(seed, loader_seed):
    torch.manual_seed(seed)
    X, y = make_data()
    train_set, test_set = random_split(TensorDataset(X, y), [500, 100],
                                       generator=torch.Generator().manual_seed(7))
    g = torch.Generator()
    g.manual_seed(loader_seed)
    loader = DataLoader(train_set, batch_size=50, shuffle=True, generator=g)
    model = nn.Sequential(nn.Linear(10, 64), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(64, 3))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses, first_batch = [], None
    for epoch in range(6):
        model.train()
        for xb, yb in loader:
            if first_batch is None:
                first_batch = yb.tolist()
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return model, losses, first_batch, test_set


model_a, losses_a, first_a, test_set = run(0, 1)
model_b, losses_b, first_b, _ = run(0, 1)
model_c, losses_c, first_c, _ = run(0, 2)
print("final losses: %.6f %.6f %.6f" % (losses_a[-1], losses_b[-1], losses_c[-1]))
assert losses_a == losses_b and first_a == first_b
assert first_a != first_c and losses_a != losses_c
for pa, pb in zip(model_a.parameters(), model_b.parameters()):
    assert torch.equal(pa, pb)

g1 = torch.Generator().manual_seed(5)
g2 = torch.Generator().manual_seed(5)
assert torch.randperm(20, generator=g1).tolist() == torch.randperm(20, generator=g2).tolist()
state = g1.get_state()
a = torch.rand(3, generator=g1)
g1.set_state(state)
assert torch.equal(a, torch.rand(3, generator=g1))
assert g1.initial_seed() == 5

X_test = torch.stack([test_set[i][0] for i in range(len(test_set))])
y_test = torch.stack([test_set[i][1] for i in range(len(test_set))])
model_a.eval()
with torch.no_grad():
    out1 = model_a(X_test)
    out2 = model_a(X_test)
assert torch.equal(out1, out2)  # no dropout in eval mode
assert not out1.requires_grad
with torch.inference_mode():
    preds = model_a(X_test).argmax(dim=1)
accuracy = (preds == y_test).sum().item() / len(y_test)
confusion = torch.zeros(3, 3, dtype=torch.long)
for t, p in zip(y_test.tolist(), preds.tolist()):
    confusion[t, p] += 1
cm = confusion.numpy()
print(f"test accuracy {accuracy:.3f}")
print("confusion matrix:\n", cm)
assert isinstance(cm, np.ndarray) and cm.sum() == 100 and np.trace(cm) == round(accuracy * 100)
model_a.train()
with torch.no_grad():
    assert not torch.equal(model_a(X_test), model_a(X_test))  # dropout is random in train mode
assert accuracy > 0.8
