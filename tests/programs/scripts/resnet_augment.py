"""A small ResNet on synthetic 3x16x16 images: a map-style Dataset with random-crop (F.pad +
slicing) and horizontal-flip (torch.flip) augmentation, BasicBlocks with a 1x1 projection
shortcut, AdaptiveAvgPool2d, label smoothing, SGD with Nesterov momentum and MultiStepLR, and
the weights saved to a file and loaded back with torch.load(weights_only=True)."""
import os
import tempfile
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, Dataset

torch.manual_seed(0)


class Shapes(Dataset):
    """Class 0: a bright square; class 1: a bright cross; class 2: a horizontal band; on noise."""

    def __init__(self, n, train=True):
        self.labels = torch.randint(0, 3, (n,))
        self.images = 0.3 * torch.randn(n, 3, 16, 16)
        for i, c in enumerate(self.labels.tolist()):
            r, q = torch.randint(3, 9, (2,)).tolist()
            if c == 0:
                self.images[i, :, r : r + 5, q : q + 5] += 1.0
            elif c == 1:
                self.images[i, :, r + 2, q : q + 5] += 1.0
                self.images[i, :, r : r + 5, q + 2] += 1.0
            else:
                self.images[i, :, r : r + 2, :] += 1.0
        self.train = train

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        if self.train:
            img = F.pad(img, (2, 2, 2, 2), mode="reflect")
            top, left = torch.randint(0, 5, (2,)).tolist()
            img = img[:, top : top + 16, left : left + 16]
            if torch.rand(1).item() < 0.5:
                img = torch.flip(img, dims=[2])
        return img, self.labels[idx]


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = torch.flatten(self.avgpool(out), 1)
        return self.fc(out)


train_loader = DataLoader(Shapes(384), batch_size=32, shuffle=True)
test_set = Shapes(128, train=False)
test_loader = DataLoader(test_set, batch_size=64)
model = ResNet()
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 5], gamma=0.1)
for epoch in range(6):
    model.train()
    for images, labels in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
    scheduler.step()
    print(f"epoch {epoch} loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.4f}")


def accuracy(net):
    net.eval()
    correct = 0
    with torch.no_grad():
        for images, labels in test_loader:
            correct += (net(images).argmax(1) == labels).sum().item()
    return correct / len(test_set)


acc = accuracy(model)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "resnet.pt")
    torch.save(model.state_dict(), path)
    restored = ResNet()
    restored.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
assert torch.equal(restored.bn1.running_mean, model.bn1.running_mean)
assert restored.layer2.shortcut[1].num_batches_tracked.item() == 6 * (384 // 32)
assert accuracy(restored) == acc
assert abs(scheduler.get_last_lr()[0] - 5e-4) < 1e-12  # two milestones passed
print(f"test accuracy {acc:.3f}")
assert acc > 0.85
