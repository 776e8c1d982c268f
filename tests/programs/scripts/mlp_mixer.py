"""MLP-Mixer (Tolstikhin et al.) in the way its PyTorch ports write it: patches cut with
Tensor.unfold twice and permuted into tokens, token mixing by an MLP applied across the patch
axis after a transpose, channel mixing across features, pre-LayerNorm residual blocks, GELU,
global average pooling, label smoothing in CrossEntropyLoss, AdamW and a cosine schedule with
warmup from a LambdaLR; the unfold-based patches equal a reshape/permute rearrangement."""
import math

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
IMG, P, C = 16, 4, 1
N = (IMG // P) ** 2


def to_patches(x):  # (B, C, H, W) -> (B, N, P*P*C)
    b = x.size(0)
    p = x.unfold(2, P, P).unfold(3, P, P)  # (B, C, H/P, W/P, P, P)
    return p.permute(0, 2, 3, 1, 4, 5).reshape(b, N, -1)


class MlpBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1, self.act, self.fc2 = nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class MixerBlock(nn.Module):
    def __init__(self, num_tokens, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mixing = MlpBlock(num_tokens, 32)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mixing = MlpBlock(dim, 64)

    def forward(self, x):
        y = self.norm1(x).transpose(1, 2)
        x = x + self.token_mixing(y).transpose(1, 2)
        return x + self.channel_mixing(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, dim=32, depth=2, num_classes=4):
        super().__init__()
        self.stem = nn.Linear(P * P * C, dim)
        self.blocks = nn.Sequential(*[MixerBlock(N, dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.blocks(self.stem(to_patches(x)))
        return self.head(self.norm(x).mean(dim=1))


x = torch.randn(2, C, IMG, IMG)
rearranged = x.reshape(2, C, IMG // P, P, IMG // P, P).permute(0, 2, 4, 3, 5, 1).reshape(2, N, -1)
assert torch.equal(to_patches(x), rearranged)


def data(n):
    y = torch.randint(0, 4, (n,))
    img = 0.3 * torch.randn(n, 1, IMG, IMG)
    for k in range(n):  # a bright bar: horizontal/vertical, top/left half or bottom/right half
        r = 2 + 8 * (y[k] % 2)
        if y[k] < 2:
            img[k, 0, r:r + 3, :] += 1.0
        else:
            img[k, 0, :, r:r + 3] += 1.0
    return img, y


X, Y = data(128)
model = Mixer()
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
total, warmup = 40, 5
sched = torch.optim.lr_scheduler.LambdaLR(
    opt, lambda s: (s + 1) / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * (s - warmup) / (total - warmup))))
for step in range(total):
    idx = torch.randperm(128)[:32]
    loss = criterion(model(X[idx]), Y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.6f}")
with torch.no_grad():
    Xt, Yt = data(64)
    acc = (model(Xt).argmax(1) == Yt).float().mean().item()
print(f"test accuracy {acc:.3f}")
assert acc > 0.8
