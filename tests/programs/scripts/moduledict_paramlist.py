"""Containers from the nn docs: nn.ModuleDict choosing a layer and an activation by key,
nn.ParameterList of per-step scales, nn.ParameterDict, nn.ModuleList of blocks; named_parameters
lists them all, the optimizer trains all of them, and the choice of key picks the path."""
import minigenesis as torch
import minigenesis.nn as nn


class MyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.choices = nn.ModuleDict({"conv": nn.Conv2d(2, 4, 3, padding=1), "pool": nn.MaxPool2d(3, stride=1, padding=1)})
        self.activations = nn.ModuleDict([["lrelu", nn.LeakyReLU()], ["prelu", nn.PReLU()]])
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(3)])
        self.extra = nn.ParameterDict({"shift": nn.Parameter(torch.zeros(1)), "gain": nn.Parameter(torch.ones(1))})
        self.blocks = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])
        self.inp = nn.Linear(4 * 4 * 4, 8)

    def forward(self, x, choice, act):
        x = self.choices[choice](x)
        if x.size(1) == 2:
            x = torch.cat([x, x], 1)
        x = self.activations[act](x)
        x = self.inp(x.flatten(1))
        for i, block in enumerate(self.blocks):
            x = x + self.scales[i] * torch.tanh(block(x))
        return self.extra["gain"] * x.sum(1) + self.extra["shift"]


torch.manual_seed(0)
m = MyModule()
names = [n for n, _ in m.named_parameters()]
print(len(names), names[:6])
assert "scales.2" in names and "extra.shift" in names and "activations.prelu.weight" in names
assert "choices.pool" not in " ".join(names) and len(m.choices) == 2 and "conv" in m.choices
assert list(m.activations.keys()) == ["lrelu", "prelu"]
x = torch.randn(32, 2, 4, 4)
target = x.mean((1, 2, 3)) * 3
opt = torch.optim.Adam(m.parameters(), lr=0.01)
start = None
for step in range(150):
    choice = "conv" if step % 2 == 0 else "pool"
    loss = ((m(x, choice, "prelu") - target) ** 2).mean()
    start = start if start is not None else loss.item()
    opt.zero_grad()
    loss.backward()
    if choice == "pool":
        assert m.choices["conv"].weight.grad is None or m.choices["conv"].weight.grad.abs().sum() == 0
    opt.step()
    opt.zero_grad(set_to_none=True)
print("loss %.4f -> %.4f" % (start, loss.item()))
assert loss.item() < 0.2 * start
assert m.activations["lrelu"].negative_slope == 0.01
assert all(p.item() != 1.0 for p in m.scales)
m.scales.append(nn.Parameter(torch.zeros(1)))
m.extra.update({"bias": nn.Parameter(torch.zeros(2))})
assert len(list(m.parameters())) == len(names) + 2
