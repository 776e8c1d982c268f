"""BYOL ("Bootstrap your own latent"): an online network (encoder, projector, predictor) and a
target network made by copy.deepcopy with requires_grad_(False), updated as an exponential moving
average p_t <- m p_t + (1 - m) p_o with mul_/add_(alpha=) under torch.no_grad, the momentum
raised along a cosine schedule; the symmetric loss 2 - 2 cos(p, z') against detached targets,
with no negatives. Two augmented views of noisy 2-d class templates; a linear probe on the frozen
encoder's features measures what was learned."""
import copy
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


def mlp(d_in, d_hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(inplace=True), nn.Linear(d_hidden, d_out))


class BYOL(nn.Module):
    def __init__(self, d_in=16, d_rep=32, d_proj=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, d_rep))
        self.projector = mlp(d_rep, 64, d_proj)
        self.predictor = mlp(d_proj, 64, d_proj)
        self.target_encoder = copy.deepcopy(self.encoder).requires_grad_(False)
        self.target_projector = copy.deepcopy(self.projector).requires_grad_(False)

    @torch.no_grad()
    def update_target(self, m):
        for online, target in ((self.encoder, self.target_encoder), (self.projector, self.target_projector)):
            for p_o, p_t in zip(online.parameters(), target.parameters()):
                p_t.mul_(m).add_(p_o.detach(), alpha=1 - m)

    def loss(self, v1, v2):
        p1 = self.predictor(self.projector(self.encoder(v1)))
        p2 = self.predictor(self.projector(self.encoder(v2)))
        with torch.no_grad():
            z1 = self.target_projector(self.target_encoder(v1))
            z2 = self.target_projector(self.target_encoder(v2))
        def regression(p, z):
            return 2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1)
        return (regression(p1, z2) + regression(p2, z1)).mean()


def augment(x):
    mask = (torch.rand_like(x) > 0.2).float()
    return x * mask * (1 + 0.2 * torch.randn(x.size(0), 1)) + 0.3 * torch.randn_like(x)


torch.manual_seed(0)
templates = torch.randn(4, 16) * 2
labels = torch.randint(0, 4, (512,))
data = templates[labels] + 0.5 * torch.randn(512, 16)

model = BYOL()
params = [p for n, p in model.named_parameters() if not n.startswith("target")]
assert len(params) == len([p for p in model.parameters() if p.requires_grad])
opt = torch.optim.Adam(params, lr=2e-3)
steps, base_m = 120, 0.99
for step in range(steps):
    idx = torch.randint(0, 512, (128,))
    loss = model.loss(augment(data[idx]), augment(data[idx]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    m = 1 - (1 - base_m) * (math.cos(math.pi * step / steps) + 1) / 2
    model.update_target(m)
    if step % 40 == 0:
        print("step %3d loss %.4f momentum %.5f" % (step, loss.item(), m))
assert all(p.grad is None for p in model.target_encoder.parameters())

with torch.no_grad():
    feats = model.encoder(data)
probe = nn.Linear(32, 4)
popt = torch.optim.LBFGS(probe.parameters(), max_iter=100)
def closure():
    popt.zero_grad()
    l = F.cross_entropy(probe(feats[:384]), labels[:384])
    l.backward()
    return l
popt.step(closure)
acc = (probe(feats[384:]).argmax(1) == labels[384:]).float().mean().item()
print("final loss %.4f, linear probe accuracy %.3f" % (loss.item(), acc))
assert acc > 0.9 and loss.item() < 1.0
