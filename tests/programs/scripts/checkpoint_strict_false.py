"""Saving and loading models: state_dict round trips, a checkpoint dict with epoch, model and
optimizer states and the loss, torch.load(map_location='cpu'), resuming bit-for-bit, and
load_state_dict(strict=False) warm-starting a model with an extra head (its missing and
unexpected keys reported)."""
import os
import tempfile

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim

torch.manual_seed(3)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.bn = nn.BatchNorm1d(16)
        self.head = nn.Linear(16, 5)

    def forward(self, x):
        return self.head(torch.relu(self.bn(self.fc1(x))))


x = torch.randn(64, 4)
y = torch.randint(0, 3, (64,))
loss_fn = nn.CrossEntropyLoss()


def train(model, opt, epochs):
    for _ in range(epochs):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return loss


model = Net()
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss = train(model, opt, 5)
print("state_dict keys:", list(model.state_dict().keys()))
assert "bn.running_mean" in model.state_dict() and "bn.num_batches_tracked" in model.state_dict()
assert set(opt.state_dict()) == {"state", "param_groups"}
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "model.pt")
    torch.save({"epoch": 5, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(), "loss": loss}, path)
    torch.save(model.state_dict(), os.path.join(d, "weights.pth"))
    reference = train(model, opt, 5).item()
    model2 = Net()
    opt2 = optim.SGD(model2.parameters(), lr=0.1, momentum=0.9)
    checkpoint = torch.load(path, map_location="cpu")
    model2.load_state_dict(checkpoint["model_state_dict"])
    opt2.load_state_dict(checkpoint["optimizer_state_dict"])
    assert checkpoint["epoch"] == 5 and abs(checkpoint["loss"].item() - loss.item()) < 1e-7
    model2.train()
    resumed = train(model2, opt2, 5).item()
    print("continued %.6f resumed %.6f" % (reference, resumed))
    assert resumed == reference
    for (k, v), v2 in zip(model.state_dict().items(), model2.state_dict().values()):
        assert torch.equal(v, v2), k
    warm = NetB()
    result = warm.load_state_dict(torch.load(os.path.join(d, "weights.pth"), map_location=torch.device("cpu")), strict=False)
    print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
    assert sorted(result.missing_keys) == ["head.bias", "head.weight"]
    assert sorted(result.unexpected_keys) == ["fc2.bias", "fc2.weight"]
    assert torch.equal(warm.fc1.weight, checkpoint["model_state_dict"]["fc1.weight"])
    try:
        warm.load_state_dict(checkpoint["model_state_dict"])
        raise AssertionError("strict loading must fail")
    except RuntimeError as err:
        assert "Missing key" in str(err) and "Unexpected key" in str(err)
model2.eval()
with torch.no_grad():
    assert model2(x[:2]).shape == (2, 3)
