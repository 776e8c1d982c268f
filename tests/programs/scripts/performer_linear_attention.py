"""Linear attention: Performer's FAVOR+ positive random features approximate softmax attention
(the estimate converges as features grow, checked against exact scaled_dot_product_attention),
the causal form by cumulative sums (torch.cumsum over key-value outer products) equals a masked
quadratic computation, and ALiBi's linear distance bias built from arange is checked against a
loop."""
import math
import minigenesis as torch
import minigenesis.nn.functional as F

torch.manual_seed(0)
B, H, L, d = 2, 2, 32, 16
q = torch.randn(B, H, L, d) * 0.5
k = torch.randn(B, H, L, d) * 0.5
v = torch.randn(B, H, L, d)


def favor_features(x, W):
    # phi(x) = exp(W x - |x|^2 / 2) / sqrt(m), with x pre-scaled by d^-1/4
    x = x * d ** -0.25
    proj = x @ W.T
    return torch.exp(proj - (x ** 2).sum(-1, keepdim=True) / 2) / math.sqrt(W.shape[0])


def orthogonal_gaussian(m, d):
    blocks = []
    for _ in range(math.ceil(m / d)):
        qm, _ = torch.linalg.qr(torch.randn(d, d))
        blocks.append(qm.T)
    W = torch.cat(blocks)[:m]
    return W * torch.randn(m, d).norm(dim=1, keepdim=True)


def linear_attention(qf, kf, v):
    kv = torch.einsum("bhlm,bhld->bhmd", kf, v)
    z = 1 / torch.einsum("bhlm,bhm->bhl", qf, kf.sum(2))
    return torch.einsum("bhlm,bhmd,bhl->bhld", qf, kv, z)


exact = F.scaled_dot_product_attention(q, k, v)
errors = []
for m in (16, 128, 1024):
    W = orthogonal_gaussian(m, d)
    approx = linear_attention(favor_features(q, W), favor_features(k, W), v)
    errors.append((approx - exact).abs().mean().item())
print("FAVOR+ mean abs error with 16/128/1024 features:", [round(e, 4) for e in errors])
assert errors[2] < errors[0] and errors[2] < 0.05


def causal_linear_attention(qf, kf, v):
    kv = torch.einsum("bhlm,bhld->bhlmd", kf, v).cumsum(dim=2)
    num = torch.einsum("bhlm,bhlmd->bhld", qf, kv)
    den = torch.einsum("bhlm,bhlm->bhl", qf, kf.cumsum(dim=2))
    return num / den.unsqueeze(-1)


W = orthogonal_gaussian(64, d)
qf, kf = favor_features(q, W), favor_features(k, W)
scores = qf @ kf.transpose(-1, -2)
scores = scores.masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), 0)
quadratic = (scores / scores.sum(-1, keepdim=True)) @ v
assert torch.allclose(causal_linear_attention(qf, kf, v), quadratic, atol=1e-5)


def alibi_slopes(h):
    start = 2 ** (-8 / h)
    return torch.tensor([start ** (i + 1) for i in range(h)])


def alibi_bias(h, n):
    pos = torch.arange(n)
    rel = (pos[None, :] - pos[:, None]).clamp(max=0).float()
    return alibi_slopes(h)[:, None, None] * rel


bias = alibi_bias(H, L)
loop = torch.zeros(H, L, L)
for hh in range(H):
    for i in range(L):
        for j in range(i + 1):
            loop[hh, i, j] = -(i - j) * 2 ** (-8 / H * (hh + 1))
assert torch.allclose(bias.tril(), loop)
causal = torch.ones(L, L, dtype=torch.bool).tril()
out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias.masked_fill(~causal, float("-inf")))
manual = torch.softmax((q @ k.transpose(-1, -2)) / math.sqrt(d) + bias.masked_fill(~causal, float("-inf")), -1) @ v
assert torch.allclose(out, manual, atol=1e-5)
print("ALiBi attention matches the explicit softmax; first-head slope", alibi_slopes(H)[0].item())
