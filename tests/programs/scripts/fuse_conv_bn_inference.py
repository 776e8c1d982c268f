"""Fusing Conv2d and BatchNorm2d for inference as the FX fusion tutorial's fuse_conv_bn_eval does:
a trained small CNN in eval mode, each BatchNorm folded into the preceding convolution's weight
(W * gamma / sqrt(running_var + eps), reshaped over output channels) and bias
((b - running_mean) * gamma / sqrt(var + eps) + beta), the fused model (nn.Identity in the BN's
place via setattr on named children) giving the same outputs, with fewer modules; and the same
fold for Linear + BatchNorm1d."""
import copy

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)
        self.bn3 = nn.BatchNorm1d(4)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.bn3(self.fc(x))


def fuse_conv_bn_weights(conv_w, conv_b, bn_rm, bn_rv, bn_eps, bn_w, bn_b):
    if conv_b is None:
        conv_b = torch.zeros_like(bn_rm)
    bn_var_rsqrt = torch.rsqrt(bn_rv + bn_eps)
    conv_w = conv_w * (bn_w * bn_var_rsqrt).reshape([-1] + [1] * (len(conv_w.shape) - 1))
    conv_b = (conv_b - bn_rm) * bn_var_rsqrt * bn_w + bn_b
    return torch.nn.Parameter(conv_w), torch.nn.Parameter(conv_b)


def fuse_conv_bn_eval(conv, bn):
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused_conv = copy.deepcopy(conv)
    fused_conv.weight, fused_conv.bias = fuse_conv_bn_weights(
        fused_conv.weight, fused_conv.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    return fused_conv


model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(32, 3, 6, 6)
target = torch.randint(0, 4, (32,))
for _ in range(20):  # training moves gamma, beta and the running statistics away from their defaults
    opt.zero_grad()
    F.cross_entropy(model(x), target).backward()
    opt.step()
model.eval()
assert not torch.allclose(model.bn1.running_var, torch.ones(8))

fused = copy.deepcopy(model)
with torch.no_grad():
    for conv_name, bn_name in [("conv1", "bn1"), ("conv2", "bn2"), ("fc", "bn3")]:
        conv, bn = getattr(fused, conv_name), getattr(fused, bn_name)
        setattr(fused, conv_name, fuse_conv_bn_eval(conv, bn))
        setattr(fused, bn_name, nn.Identity())
assert fused.conv1.bias is not None and fused.conv1.bias.shape == (8,)
assert sum(isinstance(m, nn.modules.batchnorm._BatchNorm) for m in fused.modules()) == 0

test = torch.randn(5, 3, 6, 6)
with torch.no_grad():
    ref = model(test)
    out = fused(test)
err = (ref - out).abs().max().item()
print(f"max |fused - unfused| = {err:.2e}; parameters {sum(p.numel() for p in model.parameters())} -> "
      f"{sum(p.numel() for p in fused.parameters())}")
assert err < 1e-10
# the fold by hand for one channel: y = gamma (conv(x) - mean) / sqrt(var + eps) + beta
c = 3
with torch.no_grad():
    conv_out = model.conv1(test)[:, c]
    manual = model.bn1.weight[c] * (conv_out - model.bn1.running_mean[c]) / (model.bn1.running_var[c] + model.bn1.eps).sqrt() + model.bn1.bias[c]
    assert torch.allclose(manual, fused.conv1(test)[:, c])
