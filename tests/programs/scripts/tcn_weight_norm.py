"""A temporal convolutional network as in the TCN paper's code: causal dilated Conv1d layers
(left padding, then a Chomp1d slicing off the right), weight normalisation by
torch.nn.utils.parametrizations.weight_norm, residual blocks with a 1x1 downsample, and a
causality check by gradients (no output sees a later input); trained to output the input
delayed by 5 steps."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.nn.utils.parametrizations import weight_norm

torch.manual_seed(0)


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super().__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, : -self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_in, n_out, kernel_size, dilation):
        super().__init__()
        padding = (kernel_size - 1) * dilation
        self.conv1 = weight_norm(nn.Conv1d(n_in, n_out, kernel_size, padding=padding, dilation=dilation))
        self.conv2 = weight_norm(nn.Conv1d(n_out, n_out, kernel_size, padding=padding, dilation=dilation))
        self.net = nn.Sequential(self.conv1, Chomp1d(padding), nn.ReLU(), self.conv2, Chomp1d(padding), nn.ReLU())
        self.downsample = nn.Conv1d(n_in, n_out, 1) if n_in != n_out else None

    def forward(self, x):
        res = x if self.downsample is None else self.downsample(x)
        return F.relu(self.net(x) + res)


class TCN(nn.Module):
    def __init__(self, channels=(16, 16, 16), kernel_size=2):
        super().__init__()
        layers, n_in = [], 1
        for i, c in enumerate(channels):
            layers.append(TemporalBlock(n_in, c, kernel_size, dilation=2**i))
            n_in = c
        self.network = nn.Sequential(*layers)
        self.linear = nn.Linear(n_in, 1)

    def forward(self, x):  # x: B, 1, T
        return self.linear(self.network(x).transpose(1, 2)).transpose(1, 2)


model = TCN()
conv = model.network[0].conv1
assert hasattr(conv.parametrizations.weight, "original0") and hasattr(conv.parametrizations.weight, "original1")
g, v = conv.parametrizations.weight.original0, conv.parametrizations.weight.original1
assert torch.allclose(conv.weight, g * v / v.norm(dim=(1, 2), keepdim=True), atol=1e-6)

x = torch.randn(1, 1, 30, requires_grad=True)
model(x)[0, 0, 12].backward()
assert torch.all(x.grad[0, 0, 13:] == 0) and x.grad[0, 0, 12] != 0

delay = 5
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(150):
    xb = torch.randn(16, 1, 40)
    target = F.pad(xb, (delay, 0))[:, :, :40]
    loss = F.mse_loss(model(xb)[:, :, delay:], target[:, :, delay:])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"receptive field {1 + sum(2 ** i for i in range(3)) * 2}, delayed-copy mse {loss.item():.4f}")
assert loss.item() < 0.1
assert torch.allclose(conv.weight, conv.parametrizations.weight.original0 * conv.parametrizations.weight.original1 / conv.parametrizations.weight.original1.norm(dim=(1, 2), keepdim=True), atol=1e-6)
