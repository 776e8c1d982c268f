"""Model surgery as people do it on pretrained networks: walk named_modules() and replace every
ReLU by a GELU through setattr on the parent found with get_submodule, swap the classifier head
for a new nn.Linear, freeze BatchNorm layers (eval() and requires_grad_(False)) while the rest
trains, count trainable and total parameters with numel(), fold a Conv2d-BatchNorm2d pair into
one convolution by hand, and check with torch.allclose that folding changes nothing. The weights
come from NumPy, so the printed numbers are PyTorch's."""
import numpy as np

import minigenesis as torch
import minigenesis.nn as nn


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def replace_modules(model, old_type, factory):
    for name, module in list(model.named_modules()):
        if isinstance(module, old_type):
            parent_name, _, child = name.rpartition(".")
            parent = model.get_submodule(parent_name) if parent_name else model
            setattr(parent, child, factory(module))


def fold_conv_bn(conv, bn):
    std = (bn.running_var + bn.eps).sqrt()
    fused = nn.Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding, bias=True)
    fused.weight.data = conv.weight * (bn.weight / std).reshape(-1, 1, 1, 1)
    fused.bias.data = bn.bias - bn.weight * bn.running_mean / std
    return fused


rng = np.random.default_rng(0)
model = SmallNet()
with torch.no_grad():
    for name, t in list(model.named_parameters()) + list(model.named_buffers()):
        if t.dtype.is_floating_point:
            vals = rng.uniform(0.5, 1.5, tuple(t.shape)) if "running_var" in name else rng.standard_normal(tuple(t.shape)) * 0.3
            t.copy_(torch.from_numpy(vals.astype(np.float32)))
x = torch.from_numpy(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))

replace_modules(model, nn.ReLU, lambda m: nn.GELU())
assert not any(isinstance(m, nn.ReLU) for m in model.modules())
model.fc = nn.Linear(model.fc.in_features, 4)
with torch.no_grad():
    model.fc.weight.copy_(torch.from_numpy(rng.standard_normal((4, 8)).astype(np.float32)))
    model.fc.bias.zero_()

for m in model.modules():
    if isinstance(m, nn.BatchNorm2d):
        m.requires_grad_(False)
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("parameters: total %d, trainable %d" % (total, trainable))
assert total - trainable == 32

model.train()
model.apply(lambda m: m.eval() if isinstance(m, nn.BatchNorm2d) else None)
before = {k: v.clone() for k, v in model.state_dict().items() if "running" in k}
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
loss = nn.functional.cross_entropy(model(x), torch.tensor([0, 1, 2, 3]))
loss.backward()
opt.step()
assert all(torch.equal(before[k], model.state_dict()[k]) for k in before)
assert model.features[1].weight.grad is None
print("loss %.6f, grad norm of conv1 %.6f" % (loss.item(), model.features[0].weight.grad.norm().item()))

model.eval()
ref = model(x)
fused = nn.Sequential(fold_conv_bn(model.features[0], model.features[1]), model.features[2],
                      fold_conv_bn(model.features[3], model.features[4]), model.features[5], model.features[6])
out = model.fc(torch.flatten(fused(x), 1))
print("folded network: max difference %.2e, output sum %.6f" % ((out - ref).abs().max().item(), ref.sum().item()))
assert torch.allclose(out, ref, atol=1e-5)
