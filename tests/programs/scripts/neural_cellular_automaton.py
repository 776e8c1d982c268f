"""Growing neural cellular automata (Mordvintsev et al., Distill 2020) as the PyTorch ports write
them: a 16-channel grid perceived by fixed identity and Sobel filters as one depthwise
F.conv2d(groups=16), a 1x1-convolution update rule whose last layer starts at zero, a random
per-cell fire mask, living cells by max_pool2d over the alpha channel, and per-parameter gradient
normalisation before Adam; from a single seed cell it learns to grow a disk with a ring."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
CHANNEL_N, SIZE = 16, 16


class CAModel(nn.Module):
    def __init__(self, channel_n=CHANNEL_N, fire_rate=0.5, hidden_size=64):
        super().__init__()
        self.channel_n = channel_n
        self.fire_rate = fire_rate
        self.fc0 = nn.Conv2d(channel_n * 3, hidden_size, kernel_size=1)
        self.fc1 = nn.Conv2d(hidden_size, channel_n, kernel_size=1, bias=False)
        with torch.no_grad():
            self.fc1.weight.zero_()
        ident = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
        sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8.0
        kernel = torch.stack([ident, sobel_x, sobel_x.T])  # (3, 3, 3)
        kernel = kernel.repeat(channel_n, 1, 1).unsqueeze(1)  # (3 * channel_n, 1, 3, 3)
        self.register_buffer("kernel", kernel)

    def alive(self, x):
        return F.max_pool2d(x[:, 3:4, :, :], kernel_size=3, stride=1, padding=1) > 0.1

    def perceive(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1), "circular"), self.kernel, groups=self.channel_n)

    def update(self, x):
        pre_life_mask = self.alive(x)
        dx = self.fc1(F.relu(self.fc0(self.perceive(x))))
        stochastic = torch.rand([x.size(0), 1, x.size(2), x.size(3)]) > self.fire_rate
        x = x + dx * stochastic.float()
        post_life_mask = self.alive(x)
        life_mask = (pre_life_mask & post_life_mask).float()
        return x * life_mask

    def forward(self, x, steps=1):
        for _ in range(steps):
            x = self.update(x)
        return x


def make_seed(n):
    x = torch.zeros(n, CHANNEL_N, SIZE, SIZE)
    x[:, 3:, SIZE // 2, SIZE // 2] = 1.0
    return x


# target: an RGBA ring, premultiplied alpha
yy, xx = torch.meshgrid(torch.arange(SIZE).float(), torch.arange(SIZE).float(), indexing="ij")
r = ((yy - SIZE / 2 + 0.5) ** 2 + (xx - SIZE / 2 + 0.5) ** 2).sqrt()
alpha = (r < 5.5).float()
ring = ((r > 3.0) & (r < 5.5)).float()
target = torch.stack([alpha * 0.9, ring * 0.6, (alpha - ring) * 0.8, alpha]).unsqueeze(0)

ca = CAModel()
# identity: a zero update rule leaves the seed as it is
seed = make_seed(1)
assert torch.equal(ca(seed, steps=5), seed)
perceived = ca.perceive(seed)
assert perceived.shape == (1, 3 * CHANNEL_N, SIZE, SIZE)
assert torch.equal(perceived[:, 0::3], seed)  # the identity filter

optimizer = torch.optim.Adam(ca.parameters(), lr=1e-2, betas=(0.5, 0.5))
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [30], 0.3)
losses = []
for i in range(40):
    x = make_seed(4)
    steps = int(torch.randint(12, 18, ()).item())
    x = ca(x, steps=steps)
    loss = F.mse_loss(x[:, :4], target.expand(4, -1, -1, -1))
    optimizer.zero_grad()
    loss.backward()
    for p in ca.parameters():
        p.grad /= (p.grad.norm() + 1e-8)  # normalize gradients
    optimizer.step()
    scheduler.step()
    losses.append(loss.item())
    if i % 10 == 0:
        print(f"step {i}  loss {loss.item():.5f}  ({steps} CA steps)")

with torch.no_grad():
    grown = ca(make_seed(1), steps=15)[:, :4]
alpha_grown = grown[0, 3].clamp(0, 1)
iou = ((alpha_grown > 0.5) & (alpha > 0.5)).sum() / ((alpha_grown > 0.5) | (alpha > 0.5)).sum()
start, end = sum(losses[:5]) / 5, sum(losses[-5:]) / 5
print(f"loss {start:.4f} -> {end:.4f}, disk IoU {iou.item():.2f}")
assert end < 0.5 * start and iou > 0.5
