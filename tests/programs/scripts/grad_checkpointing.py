"""Activation checkpointing as memory-saving recipes use it: torch.utils.checkpoint.checkpoint
(use_reentrant=False) around residual blocks and checkpoint_sequential over an nn.Sequential,
giving the same loss and gradients as the plain forward; a checkpointed block with Dropout
replays the same mask (preserve_rng_state), so its gradients match too."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, d, p=0.0):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Dropout(p), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class Net(nn.Module):
    def __init__(self, d=16, depth=4, p=0.0, use_checkpoint=False):
        super().__init__()
        self.blocks = nn.ModuleList([Block(d, p) for _ in range(depth)])
        self.head = nn.Linear(d, 1)
        self.use_checkpoint = use_checkpoint

    def forward(self, x):
        for blk in self.blocks:
            if self.use_checkpoint and self.training:
                x = checkpoint(blk, x, use_reentrant=False)
            else:
                x = blk(x)
        return self.head(x)


def grads_of(model, x, y, seed=None):
    model.zero_grad()
    if seed is not None:
        torch.manual_seed(seed)
    loss = F.mse_loss(model(x), y)
    loss.backward()
    return loss.item(), [p.grad.clone() for p in model.parameters()]


x, y = torch.randn(32, 16), torch.randn(32, 1)
plain = Net()
ckpt = Net(use_checkpoint=True)
ckpt.load_state_dict(plain.state_dict())
l1, g1 = grads_of(plain, x, y)
l2, g2 = grads_of(ckpt, x, y)
assert abs(l1 - l2) < 1e-6 and all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g1, g2))

# with dropout: same seed, same masks in the recomputation
plain_do, ckpt_do = Net(p=0.3), Net(p=0.3, use_checkpoint=True)
ckpt_do.load_state_dict(plain_do.state_dict())
l3, g3 = grads_of(plain_do, x, y, seed=5)
l4, g4 = grads_of(ckpt_do, x, y, seed=5)
assert abs(l3 - l4) < 1e-6 and all(torch.allclose(a, b, atol=1e-6) for a, b in zip(g3, g4))

seq = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.Tanh()) for _ in range(6)])
inp = torch.randn(8, 16, requires_grad=True)
out_ref = seq(inp)
out_ref.sum().backward()
ref_grads = [p.grad.clone() for p in seq.parameters()] + [inp.grad.clone()]
seq.zero_grad()
inp.grad = None
out = checkpoint_sequential(seq, 3, inp, use_reentrant=False)
out.sum().backward()
assert torch.allclose(out, out_ref)
assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(ref_grads, [p.grad for p in seq.parameters()] + [inp.grad]))

opt = torch.optim.Adam(ckpt.parameters(), lr=1e-2)
for step in range(100):
    loss = F.mse_loss(ckpt(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"checkpointed = plain (loss {l1:.5f}); trained loss {loss.item():.4f}")
assert loss.item() < 0.1
