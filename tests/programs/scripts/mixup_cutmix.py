"""Mixup and CutMix as data-augmentation recipes write them: lam drawn from
torch.distributions.Beta, partners by torch.randperm, the mixed loss
lam * CE(y_a) + (1 - lam) * CE(y_b) equal to cross_entropy against the mixed probability
targets, and a CutMix box pasted with slicing and lam corrected to the box's area."""
import numpy as np
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.distributions import Beta

torch.manual_seed(0)
np.random.seed(0)
beta = Beta(torch.tensor([0.4]), torch.tensor([0.4]))


def mixup(x, y, n_classes):
    lam = beta.sample().item()
    index = torch.randperm(x.size(0))
    mixed_x = lam * x + (1 - lam) * x[index, :]
    y_soft = lam * F.one_hot(y, n_classes).float() + (1 - lam) * F.one_hot(y[index], n_classes).float()
    return mixed_x, y, y[index], lam, y_soft


def rand_bbox(size, lam):
    W, H = size[2], size[3]
    cut_rat = np.sqrt(1.0 - lam)
    cut_w, cut_h = int(W * cut_rat), int(H * cut_rat)
    cx, cy = np.random.randint(W), np.random.randint(H)
    bbx1, bby1 = np.clip(cx - cut_w // 2, 0, W), np.clip(cy - cut_h // 2, 0, H)
    bbx2, bby2 = np.clip(cx + cut_w // 2, 0, W), np.clip(cy + cut_h // 2, 0, H)
    return bbx1, bby1, bbx2, bby2


def cutmix(x, y):
    lam = np.random.beta(1.0, 1.0)
    index = torch.randperm(x.size(0))
    bbx1, bby1, bbx2, bby2 = rand_bbox(x.size(), lam)
    x = x.clone()
    x[:, :, bbx1:bbx2, bby1:bby2] = x[index, :, bbx1:bbx2, bby1:bby2]
    lam = 1 - ((bbx2 - bbx1) * (bby2 - bby1) / (x.size()[-1] * x.size()[-2]))
    return x, y, y[index], lam


def make_data(n):
    y = torch.randint(0, 3, (n,))
    x = 0.5 * torch.randn(n, 1, 8, 8)
    x[:, :, :, :] += (y.float() - 1).view(-1, 1, 1, 1)  # the class is the mean brightness
    return x, y


model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=5e-4)
for step in range(120):
    x, y = make_data(64)
    if step % 2 == 0:
        mx, ya, yb, lam, y_soft = mixup(x, y, 3)
        out = model(mx)
        loss = lam * F.cross_entropy(out, ya) + (1 - lam) * F.cross_entropy(out, yb)
        assert torch.allclose(loss, F.cross_entropy(out, y_soft), atol=1e-5)
    else:
        cx, ya, yb, lam = cutmix(x, y)
        out = model(cx)
        criterion = nn.CrossEntropyLoss()
        loss = criterion(out, ya) * lam + criterion(out, yb) * (1.0 - lam)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
with torch.no_grad():
    x, y = make_data(300)
    acc = (model(x).argmax(1) == y).float().mean().item()
print(f"last mixed loss {loss.item():.3f}, clean accuracy {acc:.3f}")
assert acc > 0.85
