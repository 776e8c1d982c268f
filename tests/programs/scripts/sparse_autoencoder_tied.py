"""A sparse autoencoder of the kind interpretability work trains on a model's activations, with
tied weights: f = ReLU(W (x - b_dec) + b_enc), x_hat = W^T f + b_dec, loss = MSE + l1 * |f|_1,
the dictionary rows renormalised to unit norm through .data after every step and the gradient
component along each row projected out first. On synthetic activations made of sparse
ground-truth features in superposition (32 directions in 16 dimensions) it recovers most of the
features (cosine > 0.9) and is far sparser than the input's dimension."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
d_model, n_features, d_sae = 16, 32, 48

true_features = F.normalize(torch.randn(n_features, d_model), dim=1)


def make_batch(n, p_active=0.04):
    active = (torch.rand(n, n_features) < p_active).float()
    magnitude = torch.rand(n, n_features) * 1.5 + 0.5
    return (active * magnitude) @ true_features


class TiedSAE(nn.Module):
    def __init__(self, d_model, d_sae):
        super().__init__()
        self.W = nn.Parameter(torch.Tensor(d_sae, d_model))
        nn.init.kaiming_uniform_(self.W)
        self.W.data = F.normalize(self.W.data, dim=1)
        self.b_enc = nn.Parameter(torch.zeros(d_sae))
        self.b_dec = nn.Parameter(torch.zeros(d_model))

    def encode(self, x):
        return F.relu(F.linear(x - self.b_dec, self.W, self.b_enc))

    def decode(self, f):
        return F.linear(f, self.W.t(), self.b_dec)

    def forward(self, x):
        f = self.encode(x)
        return self.decode(f), f

    @torch.no_grad()
    def remove_parallel_grad(self):
        # the part of the gradient that only changes a row's norm is undone by the renormalisation
        parallel = (self.W.grad * self.W.data).sum(dim=1, keepdim=True)
        self.W.grad -= parallel * self.W.data

    @torch.no_grad()
    def renormalise(self):
        self.W.data /= self.W.data.norm(dim=1, keepdim=True)


sae = TiedSAE(d_model, d_sae)
sample = make_batch(4096)
sae.b_dec.data = sample.median(dim=0).values  # geometric-median-like init of the decoder bias
optimizer = torch.optim.Adam(sae.parameters(), lr=3e-3)
l1_coeff = 3e-2
for step in range(1200):
    x = make_batch(256)
    x_hat, f = sae(x)
    mse = F.mse_loss(x_hat, x)
    l1 = f.abs().sum(dim=1).mean()
    loss = mse + l1_coeff * l1
    optimizer.zero_grad()
    loss.backward()
    sae.remove_parallel_grad()
    optimizer.step()
    sae.renormalise()
    if step % 400 == 0:
        print(f"step {step}  mse {mse.item():.5f}  l1 {l1.item():.3f}")

with torch.no_grad():
    x = make_batch(2048)
    x_hat, f = sae(x)
    l0 = (f > 0).float().sum(1).mean().item()
    fvu = ((x - x_hat) ** 2).sum() / ((x - x.mean(0)) ** 2).sum()
    dead = int(((f > 0).sum(0) == 0).sum())
    cos = true_features @ sae.W.data.t()  # (n_features, d_sae), rows unit norm
    best = cos.max(dim=1).values
assert torch.allclose(sae.W.norm(dim=1), torch.ones(d_sae), atol=1e-5)
recovered = (best > 0.9).sum().item()
print(f"L0 {l0:.2f}, fraction of variance unexplained {fvu.item():.3f}, dead latents {dead}, "
      f"features recovered {recovered}/{n_features}")
assert l0 < 4 and fvu < 0.2 and recovered >= 18
