"""A top-2 mixture-of-experts regression model and a causal sequence mixer written with the
tensor operations people reach for: topk and scatter_ for the gates, expert weights as stacked
Parameters applied with torch.einsum, torch.where, gather, F.one_hot for the load-balancing loss,
chunk/split/stack, a causal prefix mean by cumsum checked against a triu-masked matmul and
masked_fill, and a causal Conv1d made with F.pad; each path checked against a plain loop."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


class Top2MoE(nn.Module):
    def __init__(self, d, hidden, n_experts):
        super().__init__()
        self.n_experts = n_experts
        self.gate = nn.Linear(d, n_experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(n_experts, d, hidden) * d ** -0.5)
        self.b1 = nn.Parameter(torch.zeros(n_experts, hidden))
        self.w2 = nn.Parameter(torch.randn(n_experts, hidden, 1) * hidden ** -0.5)

    def forward(self, x):
        logits = self.gate(x)                                        # (B, E)
        top_vals, top_idx = logits.topk(2, dim=-1)                   # (B, 2)
        weights = torch.zeros_like(logits).scatter_(-1, top_idx, F.softmax(top_vals, dim=-1))
        h = F.gelu(torch.einsum('bd,edh->beh', x, self.w1) + self.b1)  # every expert, every row
        expert_out = torch.einsum('beh,eho->beo', h, self.w2).squeeze(-1)  # (B, E)
        y = (weights * expert_out).sum(-1)
        # load balancing (Switch Transformer): fraction routed first-choice x mean gate probability
        probs = F.softmax(logits, dim=-1)
        routed = F.one_hot(top_idx[:, 0], num_classes=self.n_experts).float().mean(0)
        aux = self.n_experts * (routed * probs.mean(0)).sum()
        return y, aux, top_idx, weights


def moe_by_loop(m, x):
    out = torch.zeros(x.size(0))
    logits = m.gate(x)
    for b in range(x.size(0)):
        vals, idx = logits[b].topk(2)
        g = F.softmax(vals, dim=0)
        for k in range(2):
            e = idx[k].item()
            h = F.gelu(x[b] @ m.w1[e] + m.b1[e])
            out[b] += g[k] * (h @ m.w2[e]).squeeze()
    return out


# a piecewise target: a different function in each quadrant of the first two inputs
X = torch.rand(512, 4) * 2 - 1
quadrant = (X[:, 0] > 0).long() * 2 + (X[:, 1] > 0).long()
funcs = torch.stack([X[:, 2], -X[:, 3], X[:, 2] * X[:, 3], X[:, 2].abs()], dim=1)
y = funcs.gather(1, quadrant.unsqueeze(1)).squeeze(1)
y = torch.where(quadrant == 3, y + 0.5, y)

moe = Top2MoE(4, 16, 4)
with torch.no_grad():
    assert torch.allclose(moe(X[:8])[0], moe_by_loop(moe, X[:8]), atol=1e-5)
opt = torch.optim.Adam(moe.parameters(), lr=1e-2)
for step in range(200):
    idx = torch.randint(0, 512, (64,))
    pred, aux, top_idx, weights = moe(X[idx])
    loss = F.mse_loss(pred, y[idx]) + 0.01 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
with torch.no_grad():
    pred, aux, top_idx, weights = moe(X)
    mse = F.mse_loss(pred, y).item()
usage = torch.bincount(top_idx[:, 0], minlength=4).tolist()
print(f"MoE mse {mse:.4f} (variance {y.var().item():.4f}), aux {aux.item():.3f}, first-choice usage {usage}")
assert ((weights > 0).sum(dim=1) == 2).all() and torch.allclose(weights.sum(1), torch.ones(512))
assert mse < 0.3 * y.var().item()

# a causal prefix mean: cumsum / count equals a lower-triangular averaging matrix
B, T, C = 2, 6, 4
seq = torch.randn(B, T, C)
prefix_mean = seq.cumsum(dim=1) / torch.arange(1, T + 1).view(1, T, 1)
scores = torch.zeros(T, T).masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1), float('-inf'))
avg = torch.softmax(scores, dim=-1)  # rows of 1/(t+1) on and below the diagonal
assert torch.allclose(prefix_mean, avg @ seq, atol=1e-6)

# a causal Conv1d: pad (kernel_size - 1) on the left only; no output sees the future
conv = nn.Conv1d(C, C, kernel_size=3)
x_ct = seq.transpose(1, 2)
out = conv(F.pad(x_ct, (2, 0)))
assert out.shape == x_ct.shape
future = x_ct.clone()
future[:, :, 4:] += 10.0
assert torch.allclose(conv(F.pad(future, (2, 0)))[:, :, :4], out[:, :, :4])

# chunk / split / stack round trips
q, k, v = torch.randn(B, T, 3 * C).chunk(3, dim=-1)
parts = torch.randn(B, 10).split([3, 3, 4], dim=1)
assert q.shape == (B, T, C) and [p.shape[1] for p in parts] == [3, 3, 4]
assert torch.equal(torch.stack([q, k, v], dim=2).unbind(2)[1], k)
print("prefix mean, causal conv and chunk/split/stack checks passed")
