"""The learning-rate range test ("LR finder") as fast.ai-style notebooks write it: the model and
optimizer state saved with copy.deepcopy of their state_dicts, the rate raised exponentially each
batch by writing param_group["lr"], the loss smoothed by an exponential average with bias
correction, stopped when it diverges, the state restored, and training at the rate found."""
import copy
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(1024, 20)
y = (X[:, :5].sum(1) > 0).long() + (X[:, 5:10].sum(1) > 0).long()
loader = DataLoader(TensorDataset(X, y), batch_size=32, shuffle=True, drop_last=True)
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9)
saved_model, saved_opt = copy.deepcopy(model.state_dict()), copy.deepcopy(opt.state_dict())


def find_lr(start_lr=1e-5, end_lr=10.0, num_iter=80, beta=0.98):
    mult = (end_lr / start_lr) ** (1 / (num_iter - 1))
    lr, avg, best = start_lr, 0.0, float("inf")
    lrs, losses = [], []
    it = iter(loader)
    for i in range(num_iter):
        try:
            xb, yb = next(it)
        except StopIteration:
            it = iter(loader)
            xb, yb = next(it)
        for g in opt.param_groups:
            g["lr"] = lr
        loss = F.cross_entropy(model(xb), yb)
        avg = beta * avg + (1 - beta) * loss.item()
        smoothed = avg / (1 - beta ** (i + 1))
        if i > 10 and (smoothed > 4 * best or math.isnan(smoothed)):
            break
        best = min(best, smoothed)
        lrs.append(lr)
        losses.append(smoothed)
        opt.zero_grad()
        loss.backward()
        opt.step()
        lr *= mult
    return lrs, losses


lrs, losses = find_lr()
assert len(lrs) < 80, "the loss should blow up before lr = 10"
steepest = min(range(10, len(losses)), key=lambda i: losses[i] - losses[i - 1])
suggested = lrs[steepest]
min_lr = lrs[losses.index(min(losses))]
model.load_state_dict(saved_model)
opt.load_state_dict(saved_opt)
assert opt.param_groups[0]["lr"] == 1e-5 and not opt.state
for g in opt.param_groups:
    g["lr"] = min_lr / 10  # the rule of thumb: a tenth of the rate at the loss's minimum
for epoch in range(5):
    for xb, yb in loader:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
with torch.no_grad():
    acc = (model(X).argmax(1) == y).float().mean().item()
print(f"range test stopped after {len(lrs)} steps; steepest at lr {suggested:.2e}, min at {min_lr:.2e}; trained with {opt.param_groups[0]['lr']:.2e}: accuracy {acc:.3f}")
assert 1e-3 < opt.param_groups[0]["lr"] < 1.0 and suggested < min_lr
assert acc > 0.85
