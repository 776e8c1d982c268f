"""Capsule networks' dynamic routing (Sabour et al.) as the blog-post implementations write it:
the squash non-linearity v = |s|^2 / (1 + |s|^2) * s / |s|, prediction vectors u_hat from a
weight tensor applied by torch.matmul over broadcast capsule dimensions, routing logits b
updated by agreement (u_hat . v) for three iterations with F.softmax over the output capsules,
and the margin loss on the capsule lengths; a few Adam steps on a toy task."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def squash(s, dim=-1, eps=1e-8):
    sq = (s ** 2).sum(dim=dim, keepdim=True)
    return sq / (1 + sq) * s / torch.sqrt(sq + eps)


class CapsLayer(nn.Module):
    def __init__(self, in_caps, in_dim, out_caps, out_dim, iters=3):
        super().__init__()
        self.iters = iters
        self.W = nn.Parameter(0.1 * torch.randn(1, in_caps, out_caps, out_dim, in_dim))

    def forward(self, u):  # u: (B, in_caps, in_dim)
        u_hat = torch.matmul(self.W, u[:, :, None, :, None]).squeeze(-1)  # (B, in, out, out_dim)
        b = torch.zeros(u_hat.shape[:3])
        for i in range(self.iters):
            c = F.softmax(b, dim=2)
            v = squash((c.unsqueeze(-1) * u_hat).sum(dim=1))  # (B, out, out_dim)
            if i < self.iters - 1:
                b = b + (u_hat * v.unsqueeze(1)).sum(-1)
        return v


def margin_loss(lengths, labels, m_pos=0.9, m_neg=0.1, lam=0.5):
    t = F.one_hot(labels, lengths.size(1)).float()
    loss = t * F.relu(m_pos - lengths) ** 2 + lam * (1 - t) * F.relu(lengths - m_neg) ** 2
    return loss.sum(1).mean()


s = torch.randn(4, 5, 3) * 3
v = squash(s)
norms = v.norm(dim=-1)
expected = (s.norm(dim=-1) ** 2) / (1 + s.norm(dim=-1) ** 2)
assert torch.allclose(norms, expected, atol=1e-5)
assert torch.allclose(F.normalize(v, dim=-1), F.normalize(s, dim=-1), atol=1e-5)

primary = nn.Sequential(nn.Linear(8, 6 * 4), nn.Unflatten(1, (6, 4)))
caps = CapsLayer(6, 4, 3, 5)
params = list(primary.parameters()) + list(caps.parameters())
opt = torch.optim.Adam(params, lr=0.02)
X = torch.randn(90, 8)
y = (X[:, :3]).argmax(1)
for step in range(60):
    lengths = caps(squash(primary(X))).norm(dim=-1)
    loss = margin_loss(lengths, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step} margin loss {loss.item():.5f}")
acc = (lengths.argmax(1) == y).float().mean().item()
print(f"final loss {loss.item():.5f} accuracy {acc:.3f}")
assert (lengths < 1).all() and acc > 0.6
