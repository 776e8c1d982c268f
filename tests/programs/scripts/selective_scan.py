"""A Mamba block as mamba-minimal writes it: in_proj into x and a gate, a causal depthwise Conv1d
(groups=d_inner, padding=d_conv-1, cut to the sequence length), an input-dependent delta, B and C
from x_proj, softplus on delta, A = -exp(A_log), discretised by exp(delta A) with einsum, and the
selective scan as a Python loop over time; RMSNorm residual blocks. The loop agrees with a
parallel form (cumulative sums of log decays), and the model learns a delayed-recall task that a
time-invariant averaging cannot solve."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis import einsum

torch.manual_seed(0)


class RMSNorm(nn.Module):
    def __init__(self, d_model: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def selective_scan(u, delta, A, B, C, D):
    (b, l, d_in) = u.shape
    n = A.shape[1]
    deltaA = torch.exp(einsum("b l d, d n -> b l d n", delta, A))
    deltaB_u = einsum("b l d, b l n, b l d -> b l d n", delta, B, u)
    x = torch.zeros((b, d_in, n))
    ys = []
    for i in range(l):
        x = deltaA[:, i] * x + deltaB_u[:, i]
        y = einsum("b d n, b n -> b d", x, C[:, i, :])
        ys.append(y)
    y = torch.stack(ys, dim=1)  # shape (b, l, d_in)
    return y + u * D


def selective_scan_parallel(u, delta, A, B, C, D):
    """h_t = sum_{s<=t} exp(sum_{s<r<=t} delta_r A) delta_s B_s u_s, all t at once."""
    logA = einsum("b l d, d n -> b l d n", delta, A)
    cum = torch.cumsum(logA, dim=1)
    l = u.shape[1]
    causal = torch.tril(torch.ones(l, l, dtype=torch.bool))
    decay = cum.unsqueeze(2) - cum.unsqueeze(1)  # (b, t, s, d, n)
    decay = torch.where(causal[None, :, :, None, None], decay, torch.tensor(float("-inf")))
    dBu = einsum("b l d, b l n, b l d -> b l d n", delta, B, u)
    h = (decay.exp() * dBu.unsqueeze(1)).sum(2)
    return einsum("b l d n, b l n -> b l d", h, C) + u * D


class MambaBlock(nn.Module):
    def __init__(self, d_model, d_state=8, expand=2, d_conv=4):
        super().__init__()
        self.d_inner = d_inner = expand * d_model
        self.dt_rank = dt_rank = math.ceil(d_model / 16)
        self.in_proj = nn.Linear(d_model, d_inner * 2, bias=False)
        self.conv1d = nn.Conv1d(d_inner, d_inner, kernel_size=d_conv, groups=d_inner,
                                padding=d_conv - 1, bias=True)
        self.x_proj = nn.Linear(d_inner, dt_rank + d_state * 2, bias=False)
        self.dt_proj = nn.Linear(dt_rank, d_inner, bias=True)
        A = torch.arange(1, d_state + 1).float().repeat(d_inner, 1)
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(d_inner))
        self.out_proj = nn.Linear(d_inner, d_model, bias=False)
        self.scan = selective_scan

    def forward(self, x):
        (b, l, d) = x.shape
        x_and_res = self.in_proj(x)
        (x, res) = x_and_res.split(split_size=[self.d_inner, self.d_inner], dim=-1)
        x = x.transpose(1, 2)
        x = self.conv1d(x)[:, :, :l]
        x = x.transpose(1, 2)
        x = F.silu(x)
        y = self.ssm(x)
        y = y * F.silu(res)
        return self.out_proj(y)

    def ssm(self, x):
        d_in, n = self.A_log.shape
        A = -torch.exp(self.A_log.float())
        D = self.D.float()
        x_dbl = self.x_proj(x)
        (delta, B, C) = x_dbl.split(split_size=[self.dt_rank, n, n], dim=-1)
        delta = F.softplus(self.dt_proj(delta))
        return self.scan(x, delta, A, B, C, D)


class ResidualBlock(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.mixer = MambaBlock(d_model)
        self.norm = RMSNorm(d_model)

    def forward(self, x):
        return self.mixer(self.norm(x)) + x


class Mamba(nn.Module):
    def __init__(self, vocab, d_model=16, n_layer=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d_model)
        self.layers = nn.ModuleList([ResidualBlock(d_model) for _ in range(n_layer)])
        self.norm_f = RMSNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab, bias=False)
        self.lm_head.weight = self.embedding.weight  # tie output projection to embedding weights

    def forward(self, input_ids):
        x = self.embedding(input_ids)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm_f(x))


# the loop and the parallel form agree
blk = MambaBlock(8)
u = torch.randn(2, 10, blk.d_inner)
delta = F.softplus(torch.randn(2, 10, blk.d_inner))
A = -torch.exp(blk.A_log.detach())
Bm, Cm = torch.randn(2, 10, 8), torch.randn(2, 10, 8)
y_loop = selective_scan(u, delta, A, Bm, Cm, blk.D.detach())
y_par = selective_scan_parallel(u, delta, A, Bm, Cm, blk.D.detach())
print("loop vs parallel max difference", (y_loop - y_par).abs().max().item())
assert torch.allclose(y_loop, y_par, atol=1e-4, rtol=1e-4)

# delayed recall: the token 3 positions back
VOCAB, LEN, DELAY = 6, 16, 3
model = Mamba(VOCAB)
assert model.lm_head.weight is model.embedding.weight
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(80):
    seq = torch.randint(0, VOCAB, (32, LEN))
    logits = model(seq)
    loss = F.cross_entropy(logits[:, DELAY:].reshape(-1, VOCAB), seq[:, :-DELAY].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step}  loss {loss.item():.3f}")
with torch.no_grad():
    seq = torch.randint(0, VOCAB, (64, LEN))
    pred = model(seq)[:, DELAY:].argmax(-1)
    acc = (pred == seq[:, :-DELAY]).float().mean().item()
print(f"recall accuracy {acc:.3f} (chance {1 / VOCAB:.3f})")
assert acc > 0.9
