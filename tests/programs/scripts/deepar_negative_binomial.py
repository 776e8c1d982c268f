"""DeepAR-style probabilistic forecasting of count data: an LSTM reads the previous value (scaled
by the series' mean, as DeepAR does) and a seasonal covariate, and emits the parameters of a
torch.distributions.NegativeBinomial (total_count through softplus, logits); the loss is the
negative log_prob of the observed counts. Forecasts are Monte-Carlo sample paths drawn
autoregressively; their quantiles give a prediction interval whose coverage is reported."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.distributions import NegativeBinomial

torch.manual_seed(0)
n_series, T, horizon = 32, 60, 12
t = torch.arange(T + horizon, dtype=torch.float32)
level = torch.exp(torch.randn(n_series, 1) * 0.5 + 2.0)
rate = level * (1.0 + 0.6 * torch.sin(2 * math.pi * t / 12))
counts = torch.poisson(rate)  # (series, time)
season = torch.stack([torch.sin(2 * math.pi * t / 12), torch.cos(2 * math.pi * t / 12)], -1)


class DeepAR(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.rnn = nn.LSTM(3, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, 2)

    def forward(self, prev, cov, state=None):
        out, state = self.rnn(torch.cat([prev.unsqueeze(-1), cov], -1), state)
        total_count, logits = self.proj(out).unbind(-1)
        return F.softplus(total_count) + 1e-3, logits, state


def scale_of(y):
    return y.mean(1, keepdim=True) + 1.0


model = DeepAR()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
train = counts[:, :T]
scale = scale_of(train)
cov = season[None, 1:T].expand(n_series, -1, -1)
for epoch in range(80):
    total_count, logits, _ = model(train[:, :-1] / scale, cov)
    dist = NegativeBinomial(total_count=total_count, logits=logits + torch.log(scale))  # mean scales with the series
    loss = -dist.log_prob(train[:, 1:]).mean()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if epoch % 20 == 0:
        print("epoch %2d NLL %.4f" % (epoch, loss.item()))

n_paths = 100
with torch.no_grad():
    _, _, state = model(train[:, :-1] / scale, cov)
    h, c = (s.repeat_interleave(n_paths, dim=1) for s in state)
    prev = train[:, -1].repeat_interleave(n_paths)
    sc = scale.repeat_interleave(n_paths, dim=0).squeeze(1)
    paths = []
    for k in range(horizon):
        cv = season[T + k].expand(n_series * n_paths, 1, 2)
        total_count, logits, (h, c) = model((prev / sc).view(-1, 1), cv, (h, c))
        prev = NegativeBinomial(total_count=total_count.squeeze(1), logits=logits.squeeze(1) + torch.log(sc)).sample()
        paths.append(prev)
    paths = torch.stack(paths, 1).view(n_series, n_paths, horizon)
lo, hi = torch.quantile(paths, 0.05, dim=1), torch.quantile(paths, 0.95, dim=1)
actual = counts[:, T:]
coverage = ((actual >= lo) & (actual <= hi)).float().mean().item()
mae = (paths.median(dim=1).values - actual).abs().mean().item()
print("final NLL %.4f, 90%% interval coverage %.3f, median-forecast MAE %.3f" % (loss.item(), coverage, mae))
assert 0.7 < coverage <= 1.0 and mae < (actual - actual.mean()).abs().mean().item()
