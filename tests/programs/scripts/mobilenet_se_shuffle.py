"""Efficient-CNN building blocks as the MobileNetV2/V3 and ShuffleNet reference code writes them:
an inverted residual with a 1x1 expansion, a depthwise 3x3 Conv2d(groups=hidden), a
squeeze-and-excitation gate (AdaptiveAvgPool2d(1), 1x1 convs, Hardsigmoid), Hardswish and
ReLU6, _make_divisible for channel counts, ShuffleNet's channel_shuffle by view/transpose/
contiguous, parameter counts compared with a dense convolution, and a few training steps."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def _make_divisible(v, divisor=8, min_value=None):
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def channel_shuffle(x, groups):
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = torch.transpose(x, 1, 2).contiguous()
    return x.view(batchsize, -1, height, width)


class SqueezeExcitation(nn.Module):
    def __init__(self, input_channels, squeeze_channels):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = nn.ReLU()
        self.scale_activation = nn.Hardsigmoid()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio, use_se):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = [nn.Conv2d(inp, hidden_dim, 1, bias=False), nn.BatchNorm2d(hidden_dim), nn.ReLU6(inplace=True),
                  nn.Conv2d(hidden_dim, hidden_dim, 3, stride, 1, groups=hidden_dim, bias=False),
                  nn.BatchNorm2d(hidden_dim), nn.Hardswish(inplace=True)]
        if use_se:
            layers.append(SqueezeExcitation(hidden_dim, _make_divisible(hidden_dim // 4)))
        layers += [nn.Conv2d(hidden_dim, oup, 1, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


assert [_make_divisible(v) for v in (3, 16, 23.5, 36, 100)] == [8, 16, 24, 40, 104]
x = torch.arange(2 * 6 * 1 * 1, dtype=torch.float32).view(2, 6, 1, 1)
assert channel_shuffle(x, 3)[0, :, 0, 0].tolist() == [0, 2, 4, 1, 3, 5]
dw = nn.Conv2d(32, 32, 3, padding=1, groups=32, bias=False)
dense = nn.Conv2d(32, 32, 3, padding=1, bias=False)
n_dw, n_dense = sum(p.numel() for p in dw.parameters()), sum(p.numel() for p in dense.parameters())
assert (n_dw, n_dense) == (288, 9216)
# a depthwise conv is a per-channel conv: channel 5 alone through F.conv2d
inp = torch.randn(1, 32, 6, 6)
assert torch.allclose(dw(inp)[:, 5:6], F.conv2d(inp[:, 5:6], dw.weight[5:6], padding=1), atol=1e-5)

model = nn.Sequential(
    nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish(),
    InvertedResidual(16, 16, 1, 4, use_se=True),
    InvertedResidual(16, 24, 2, 4, use_se=False),
    InvertedResidual(24, 24, 1, 3, use_se=True),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(24, 3))
print("parameters", sum(p.numel() for p in model.parameters() if p.requires_grad))
X = torch.randn(48, 3, 16, 16)
y = torch.arange(48) % 3
X[y == 1, 0] += 1.0
X[y == 2, 2, 4:12, 4:12] -= 1.5
opt = torch.optim.RMSprop(model.parameters(), lr=3e-3, alpha=0.9, eps=0.0316, momentum=0.9, weight_decay=1e-5)
for step in range(15):
    out = model(X)
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    acc = (model(X).argmax(1) == y).float().mean().item()
print(f"train accuracy {acc:.3f}")
assert acc > 0.6
