"""A classifier for imbalanced data written as a PyTorch program: a TensorDataset cut by
random_split, a WeightedRandomSampler that draws the rare class as often as the common one,
orthogonal weight initialisation, gradient clipping, evaluation under torch.inference_mode and
the weights' sizes read with torch.linalg.norm; run unchanged on minigenesis. Only PyTorch's names
are used.
"""

from __future__ import annotations

import minigenesis as torch
from minigenesis import nn, optim
from minigenesis.utils.data import DataLoader, TensorDataset, WeightedRandomSampler, random_split


def make_data(n_common=360, n_rare=40):
    g = torch.Generator().manual_seed(0)
    common = torch.randn(n_common, 2, generator=g) + torch.tensor([1.5, 0.0])
    rare = 0.5 * torch.randn(n_rare, 2, generator=g) + torch.tensor([-1.5, 0.0])
    x = torch.cat([common, rare])
    y = torch.cat([torch.zeros(n_common, dtype=torch.long), torch.ones(n_rare, dtype=torch.long)])
    return TensorDataset(x, y)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.orthogonal_(m.weight, gain=nn.init.calculate_gain("tanh"))
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.net(x)


def rare_recall(model, dataset):
    model.eval()
    with torch.inference_mode():
        x, y = dataset[:]
        pred = model(x).argmax(dim=1)
    model.train()
    rare = y == 1
    return (pred[rare] == 1).float().mean().item()


def train(epochs=8):
    torch.manual_seed(0)
    full = make_data()
    train_set, test_set = random_split(
        full, [0.75, 0.25], generator=torch.Generator().manual_seed(1)
    )
    labels = full.tensors[1][train_set.indices]
    counts = [(labels == c).sum().item() for c in (0, 1)]
    weights = [1.0 / counts[int(c)] for c in labels]
    sampler = WeightedRandomSampler(weights, num_samples=len(weights), replacement=True)
    loader = DataLoader(train_set, batch_size=32, sampler=sampler)
    model = Classifier()
    opt = optim.Adam(model.parameters(), lr=0.02)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        total, seen = 0.0, 0
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            opt.step()
            total += loss.item() * len(xb)
            seen += len(xb)
        losses.append(total / seen)
    return model, losses, test_set


def test_balanced_sampling_learns_the_rare_class():
    model, losses, test_set = train()
    assert losses[-1] < 0.5 * losses[0]
    assert rare_recall(model, test_set) > 0.8
    w = model.net[0].weight
    assert torch.linalg.norm(w).item() > 0
    assert not torch.is_inference_mode_enabled()
