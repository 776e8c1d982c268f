"""A categorical VAE with the Gumbel-softmax trick: the encoder's logits for 4 latent variables
of 4 classes each, F.gumbel_softmax(hard=True) giving one-hot samples whose gradient is the soft
sample's (straight-through), a temperature annealed by exp decay, and the KL to a uniform prior
from the log-softmax; trained on binary patterns made of 4 independent parts."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
N_LAT, N_CAT, D = 4, 4, 32
codebook = (torch.rand(N_LAT, N_CAT, 8) < 0.5).float()  # each latent draws one 8-pixel stripe


def make_batch(n):
    idx = torch.randint(0, N_CAT, (n, N_LAT))
    return torch.cat([codebook[j][idx[:, j]] for j in range(N_LAT)], dim=1)


class CatVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(D, 128), nn.ReLU(), nn.Linear(128, N_LAT * N_CAT))
        self.dec = nn.Sequential(nn.Linear(N_LAT * N_CAT, 128), nn.ReLU(), nn.Linear(128, D))

    def forward(self, x, tau, hard=True):
        logits = self.enc(x).view(-1, N_LAT, N_CAT)
        z = F.gumbel_softmax(logits, tau=tau, hard=hard, dim=-1)
        return self.dec(z.view(-1, N_LAT * N_CAT)), logits, z


# the straight-through sample is one-hot, and its gradient is the soft sample's
logits = torch.randn(5, N_CAT, requires_grad=True)
torch.manual_seed(1)
hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
torch.manual_seed(1)
soft = F.gumbel_softmax(logits, tau=0.5, hard=False)
assert torch.equal(hard.sum(-1), torch.ones(5)) and set(hard.unique().tolist()) <= {0.0, 1.0}
assert torch.equal(hard.argmax(-1), soft.argmax(-1))
w = torch.randn(5, N_CAT)
g_hard, = torch.autograd.grad((hard * w).sum(), logits)
g_soft, = torch.autograd.grad((soft * w).sum(), logits)
assert torch.allclose(g_hard, g_soft, atol=1e-6)

model = CatVAE()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(400):
    tau = max(0.5, math.exp(-3e-3 * step))
    x = make_batch(64)
    recon_logits, logits, _ = model(x, tau)
    rec = F.binary_cross_entropy_with_logits(recon_logits, x, reduction="sum") / x.size(0)
    log_q = F.log_softmax(logits, dim=-1)
    kl = (log_q.exp() * (log_q - math.log(1.0 / N_CAT))).sum((1, 2)).mean()
    loss = rec + kl
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
with torch.no_grad():
    x = make_batch(200)
    logits = model.enc(x).view(-1, N_LAT, N_CAT)
    z = F.one_hot(logits.argmax(-1), N_CAT).float()
    bit_acc = ((model.dec(z.view(-1, N_LAT * N_CAT)) > 0).float() == x).float().mean().item()
print(f"tau {tau:.2f} reconstruction {rec.item():.2f} KL {kl.item():.2f} bit accuracy {bit_acc:.3f}")
assert bit_acc > 0.88
