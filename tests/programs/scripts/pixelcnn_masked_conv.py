"""PixelCNN (van den Oord et al. 2016) as the classic PyTorch gist writes it: a MaskedConv2d
subclass of nn.Conv2d that registers a mask buffer from self.weight.data.clone(), zeroes the
centre-right and lower rows (type 'A' also the centre), and multiplies self.weight.data by it
before calling super().forward; a stack of masked convolutions with BatchNorm and ReLU predicting
each binary pixel from those above and to its left. The receptive field is checked by autograd,
the model beats the per-pixel marginal in bits per dimension, and samples are drawn pixel by
pixel."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super(MaskedConv2d, self).__init__(*args, **kwargs)
        assert mask_type in {'A', 'B'}
        self.register_buffer('mask', self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == 'B'):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super(MaskedConv2d, self).forward(x)


fm = 16
net = nn.Sequential(
    MaskedConv2d('A', 1, fm, 5, 1, 2, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
    MaskedConv2d('B', fm, fm, 3, 1, 1, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
    MaskedConv2d('B', fm, fm, 3, 1, 1, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
    nn.Conv2d(fm, 1, 1))
H = W = 8


def make_images(n):
    """Diagonal stripes with a random phase and period 3 or 4: each pixel is predictable from
    the row above."""
    ii, jj = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
    period = torch.randint(3, 5, (n, 1, 1))
    phase = torch.randint(0, 4, (n, 1, 1))
    return (((ii + jj + phase) % period) == 0).float().unsqueeze(1)


# causality: pixel (r, c) of the output depends on no pixel at or after (r, c) in raster order
net.eval()
x = torch.rand(1, 1, H, W, requires_grad=True)
net(x)[0, 0, 4, 3].backward()
g = x.grad[0, 0].abs()
assert g[4, 3:].sum() == 0 and g[5:].sum() == 0
assert g[4, :3].sum() > 0 and g[3].sum() > 0
net.train()

optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(80):
    images = make_images(32)
    logits = net(images)
    loss = F.binary_cross_entropy_with_logits(logits, images)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 40 == 0:
        print(f"step {step}  {loss.item() / math.log(2):.3f} bits/dim")

net.eval()
test = make_images(256)
with torch.no_grad():
    bits = F.binary_cross_entropy_with_logits(net(test), test).item() / math.log(2)
    p = test.mean()
    marginal = -(p * torch.log2(p) + (1 - p) * torch.log2(1 - p)).item()
print(f"test {bits:.3f} bits/dim, per-pixel marginal {marginal:.3f}")
assert bits < 0.6 * marginal
# the masks survived the training steps: masked weights are still zero
for m in net.modules():
    if isinstance(m, MaskedConv2d):
        assert torch.all(m.weight.data[m.mask == 0] == 0)

sample = torch.zeros(4, 1, H, W)
with torch.no_grad():
    for i in range(H):
        for j in range(W):
            probs = torch.sigmoid(net(sample)[:, :, i, j])
            sample[:, :, i, j] = torch.bernoulli(probs)
with torch.no_grad():
    sample_bits = F.binary_cross_entropy_with_logits(net(sample), sample).item() / math.log(2)
print(f"sampled images: {sample_bits:.3f} bits/dim under the model, ink {sample.mean().item():.2f}")
assert sample_bits < marginal
