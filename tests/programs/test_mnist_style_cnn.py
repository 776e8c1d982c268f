"""A PyTorch-style program in the shape of pytorch/examples' MNIST script: a small CNN (two
convolutions, max pooling, dropout, two linear layers, log_softmax + nll_loss) trained with
``optim.Adadelta`` and a ``StepLR`` schedule, ``train()`` and ``test()`` functions over
DataLoaders. The data are synthetic 12x12 images (a bar in one of three orientations, plus
noise), so the test needs no download. Written with PyTorch's names only; with dropout off and
the same initial weights, its first steps match PyTorch's when PyTorch is installed."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis import nn, optim
from minigenesis.optim.lr_scheduler import StepLR
from minigenesis.utils.data import DataLoader, TensorDataset


def make_net(torch, nn, F, dropout: float = 0.25):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 8, 3, 1)
            self.conv2 = nn.Conv2d(8, 16, 3, 1)
            self.dropout1 = nn.Dropout(dropout)
            self.dropout2 = nn.Dropout(2 * dropout)
            self.fc1 = nn.Linear(16 * 4 * 4, 32)
            self.fc2 = nn.Linear(32, 3)

        def forward(self, x):
            x = self.conv1(x)
            x = F.relu(x)
            x = self.conv2(x)
            x = F.relu(x)
            x = F.max_pool2d(x, 2)
            x = self.dropout1(x)
            x = torch.flatten(x, 1)
            x = self.fc1(x)
            x = F.relu(x)
            x = self.dropout2(x)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    return Net()


def synthetic_bars(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """n noisy 1x12x12 images: a horizontal (0), vertical (1) or diagonal (2) bar."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 3, n)
    images = 0.2 * rng.standard_normal((n, 1, 12, 12))
    for i, label in enumerate(labels):
        k = rng.integers(2, 10)
        if label == 0:
            images[i, 0, k, :] += 2.0
        elif label == 1:
            images[i, 0, :, k] += 2.0
        else:
            images[i, 0, np.arange(12), np.arange(12)] += 2.0
    return images.astype(np.float32), labels


def train(model, train_loader, optimizer, epoch):
    model.train()
    losses = []
    for data, target in train_loader:
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def evaluate(model, test_loader):  # the example calls it test(); pytest would collect that
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(test_loader.dataset)
    return test_loss, correct / len(test_loader.dataset)


def test_cnn_with_adadelta_and_steplr_learns_the_bars():
    torch.manual_seed(1)
    x, y = synthetic_bars(240, seed=0)
    xt, yt = synthetic_bars(120, seed=1)
    train_loader = DataLoader(TensorDataset(torch.tensor(x), torch.tensor(y)), batch_size=32,
                              shuffle=True)  # fmt: skip
    test_loader = DataLoader(TensorDataset(torch.tensor(xt), torch.tensor(yt)), batch_size=60)

    model = make_net(torch, nn, F)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    before, _ = evaluate(model, test_loader)
    epoch_losses = []
    for epoch in range(1, 5):
        epoch_losses.append(np.mean(train(model, train_loader, optimizer, epoch)))
        scheduler.step()
    after, accuracy = evaluate(model, test_loader)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(0.7**4)
    assert epoch_losses[-1] < epoch_losses[0] and after < 0.5 * before
    assert accuracy > 0.8


def test_first_steps_match_pytorch_with_the_same_weights():
    real_torch = pytest.importorskip("torch")
    x, y = synthetic_bars(64, seed=2)
    ours = make_net(torch, nn, F, dropout=0.0)
    theirs = make_net(real_torch, real_torch.nn, real_torch.nn.functional, dropout=0.0)
    theirs.load_state_dict({k: real_torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})

    def run(lib, functional, model, steps=4):
        optimizer = lib.optim.Adadelta(model.parameters(), lr=1.0)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.7)
        data, target = lib.tensor(x), lib.tensor(y)
        losses = []
        for _ in range(steps):
            optimizer.zero_grad()
            loss = functional.nll_loss(model(data), target)
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
        return losses

    np.testing.assert_allclose(
        run(torch, F, ours), run(real_torch, real_torch.nn.functional, theirs), rtol=1e-4
    )
