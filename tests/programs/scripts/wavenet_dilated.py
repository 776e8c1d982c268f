"""A small WaveNet in the style of the many PyTorch re-implementations: mu-law companding and
quantisation of a waveform, a causal 1-d convolution by left padding, a stack of dilated causal
convolutions with gated tanh * sigmoid units, residual and skip 1x1 convolutions, trained with
cross entropy on the next sample; the receptive field is checked by autograd (no output depends
on a later input), then the model generates a continuation by sampling with torch.multinomial."""
import math

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
Q = 32  # quantisation levels


def mu_law_encode(x, mu=Q - 1):
    mu = torch.tensor(float(mu))
    fx = torch.sign(x) * torch.log1p(mu * torch.abs(x)) / torch.log1p(mu)
    return ((fx + 1) / 2 * mu + 0.5).long()


def mu_law_decode(q, mu=Q - 1):
    y = 2 * q.float() / mu - 1
    return torch.sign(y) * (torch.pow(1 + mu, torch.abs(y)) - 1) / mu


class CausalConv1d(nn.Conv1d):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
        super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
        self.left_pad = (kernel_size - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left_pad, 0)))


class ResidualBlock(nn.Module):
    def __init__(self, res_channels, skip_channels, dilation):
        super().__init__()
        self.dilated = CausalConv1d(res_channels, 2 * res_channels, 2, dilation=dilation)
        self.conv_res = nn.Conv1d(res_channels, res_channels, 1)
        self.conv_skip = nn.Conv1d(res_channels, skip_channels, 1)

    def forward(self, x):
        out = self.dilated(x)
        filt, gate = out.chunk(2, dim=1)
        gated = torch.tanh(filt) * torch.sigmoid(gate)
        return self.conv_res(gated) + x, self.conv_skip(gated)


class WaveNet(nn.Module):
    def __init__(self, layers=6, res_channels=16, skip_channels=32, classes=Q):
        super().__init__()
        self.embed = nn.Embedding(classes, res_channels)
        self.causal = CausalConv1d(res_channels, res_channels, 2)
        self.blocks = nn.ModuleList([ResidualBlock(res_channels, skip_channels, 2 ** i)
                                     for i in range(layers)])
        self.head = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_channels, skip_channels, 1),
                                  nn.ReLU(), nn.Conv1d(skip_channels, classes, 1))
        self.receptive_field = 2 + sum(2 ** i for i in range(layers))

    def forward(self, q):  # q: (N, T) class indices -> (N, classes, T) logits
        x = self.causal(self.embed(q).transpose(1, 2))
        skips = 0
        for block in self.blocks:
            x, s = block(x)
            skips = skips + s
        return self.head(skips)


# data: sums of two sines with random frequency and phase, plus a little noise
T, N = 128, 8
t = np.arange(T + 1)[None, :]
freq = np.random.uniform(0.05, 0.15, size=(N, 1))
phase = np.random.uniform(0, 2 * np.pi, size=(N, 1))
wave = 0.6 * np.sin(2 * np.pi * freq * t + phase) + 0.3 * np.sin(4 * np.pi * freq * t)
wave = torch.from_numpy(wave + 0.01 * np.random.randn(N, T + 1)).float()
q = mu_law_encode(wave)
assert q.min() >= 0 and q.max() < Q
assert torch.allclose(mu_law_decode(q), wave, atol=0.15)  # half a level at the peaks
inputs, targets = q[:, :-1], q[:, 1:]

model = WaveNet()
print("receptive field:", model.receptive_field)
# causality: the gradient of output t with respect to the embedded input is zero after t
emb = model.embed(inputs[:1]).detach().transpose(1, 2).requires_grad_()
x = model.causal(emb)
skips = 0
for block in model.blocks:
    x, s = block(x)
    skips = skips + s
logits = model.head(skips)
logits[0, :, 100].sum().backward()
influence = emb.grad.abs().sum(1)[0]
assert influence[101:].sum() == 0
assert influence[100] > 0
first = int(torch.nonzero(influence).min())
assert first == 100 - model.receptive_field + 1, first

optimizer = torch.optim.Adam(model.parameters(), lr=6e-3)
for epoch in range(60):
    logits = model(inputs)
    loss = F.cross_entropy(logits, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 15 == 0:
        print(f"epoch {epoch}  loss {loss.item():.3f}")
acc = (logits.argmax(1) == targets).float().mean().item()
close = ((logits.argmax(1) - targets).abs() <= 1).float().mean().item()
print(f"loss {loss.item():.3f} (uniform {math.log(Q):.3f}), accuracy {acc:.2f}, within one level {close:.2f}")
assert loss.item() < 0.5 * math.log(Q) and close > 0.8

# generation: feed the model's own samples back
model.eval()
generated = q[:1, :model.receptive_field].clone()
with torch.no_grad():
    for _ in range(40):
        logits = model(generated[:, -model.receptive_field:])[:, :, -1]
        probs = F.softmax(logits / 0.5, dim=1)
        nxt = torch.multinomial(probs, 1)
        generated = torch.cat([generated, nxt], dim=1)
audio = mu_law_decode(generated)
print("generated", generated.shape[1], "samples, range", round(audio.min().item(), 2), round(audio.max().item(), 2))
assert generated.shape == (1, model.receptive_field + 40) and audio.abs().max() <= 1
