"""The "warmstarting a model using parameters from a different model" recipe: net B with an extra
layer and a renamed head loads net A's state_dict with strict=False, the returned missing_keys and
unexpected_keys, shared layers copied exactly, a strict load failing with the key lists in its
message, and renaming keys by hand to load the remaining layer."""
import io

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class NetB(NetA):
    def __init__(self):
        super().__init__()
        del self.fc3
        self.head = nn.Linear(84, 10)
        self.bn = nn.BatchNorm1d(84)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.relu(self.fc1(x.flatten(1)))
        return self.head(self.bn(F.relu(self.fc2(x))))


netA, netB = NetA(), NetB()
buffer = io.BytesIO()
torch.save(netA.state_dict(), buffer)
buffer.seek(0)
result = netB.load_state_dict(torch.load(buffer, weights_only=True), strict=False)
print(result)
assert sorted(result.unexpected_keys) == ["fc3.bias", "fc3.weight"]
assert sorted(result.missing_keys) == sorted(
    ["head.weight", "head.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var"] # BatchNorm fills a missing num_batches_tracked itself
)
missing, unexpected = result
assert missing == result.missing_keys
assert torch.equal(netB.conv1.weight, netA.conv1.weight) and torch.equal(netB.fc2.bias, netA.fc2.bias)
assert not torch.equal(netB.head.weight, netA.fc3.weight)

try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as e:
    msg = str(e)
assert msg.startswith('Error(s) in loading state_dict for NetB:'), msg
assert 'Missing key(s) in state_dict: "head.weight"' in msg and 'Unexpected key(s) in state_dict: "fc3.weight"' in msg, msg

renamed = {k.replace("fc3", "head"): v for k, v in netA.state_dict().items()}
result = netB.load_state_dict(renamed, strict=False)
assert result.unexpected_keys == [] and all(k.startswith("bn.") for k in result.missing_keys)
assert torch.equal(netB.head.weight, netA.fc3.weight)

bad = dict(renamed)
bad["fc1.weight"] = torch.zeros(3, 3)
try:
    netB.load_state_dict(bad, strict=False)
except RuntimeError as e:
    assert "size mismatch for fc1.weight: copying a param with shape" in str(e) and "Size([3, 3]) from checkpoint, the shape in current model is" in str(e) and str(e).endswith("Size([120, 400])."), str(e)
netB.eval()
x = torch.randn(2, 3, 32, 32)
print("warm-started output", tuple(netB(x).shape))
