"""The "what is a state_dict" and "zeroing out gradients" recipes: the keys and sizes of a CNN's
and an SGD optimizer's state_dict (param_groups with the parameter indices, momentum buffers
after a step), gradients accumulating until zeroed, zero_grad() setting them to None by default,
zero_grad(set_to_none=False) filling zeros, and model.zero_grad() for a model without an
optimizer."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.bn = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 5 * 5, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.bn(self.conv2(x))))
        return self.fc1(x.view(-1, 16 * 5 * 5))


net = Net()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
keys = list(net.state_dict())
assert keys == [
    "conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "bn.weight", "bn.bias",
    "bn.running_mean", "bn.running_var", "bn.num_batches_tracked", "fc1.weight", "fc1.bias",
]  # fmt: skip
assert net.state_dict()["bn.num_batches_tracked"].dtype == torch.int64
assert net.state_dict()["conv2.weight"].size() == torch.Size([16, 6, 5, 5])
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
sd = optimizer.state_dict()
assert sd["state"] == {} and sd["param_groups"][0]["params"] == list(range(8))
assert sd["param_groups"][0]["momentum"] == 0.9 and sd["param_groups"][0]["nesterov"] is False

inputs, labels = torch.randn(4, 3, 32, 32), torch.randint(0, 10, (4,))
criterion = nn.CrossEntropyLoss()
criterion(net(inputs), labels).backward()
g1 = net.fc1.weight.grad.clone()
criterion(net(inputs), labels).backward()
assert not torch.allclose(net.fc1.weight.grad, g1)  # accumulated (batch norm stats moved a bit)
optimizer.step()
assert set(optimizer.state_dict()["state"]) == set(range(8))
assert "momentum_buffer" in optimizer.state_dict()["state"][0]

optimizer.zero_grad()
assert all(p.grad is None for p in net.parameters())
for epoch in range(2):
    running_loss = 0.0
    for i in range(3):
        optimizer.zero_grad(set_to_none=False)
        assert (i == 0 and epoch == 0) or all(torch.count_nonzero(p.grad) == 0 for p in net.parameters())
        loss = criterion(net(inputs), labels)
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f"epoch {epoch}: loss {running_loss / 3:.4f}")
net.zero_grad()
assert net.conv1.weight.grad is None
net.zero_grad(set_to_none=False)
