"""A vector-quantized autoencoder (VQ-VAE) on 2-d clusters: a codebook as nn.Embedding, nearest
codes by torch.cdist + argmin, the straight-through estimator (z + (q - z).detach()), codebook
and commitment losses, and codebook usage measured as the perplexity of the code histogram."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
centers = torch.tensor([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.0], [0.0, -2.0], [2.0, 2.0], [-2.0, -2.0]])
data = centers[torch.randint(0, 6, (1200,))] + 0.15 * torch.randn(1200, 2)


class VectorQuantizer(nn.Module):
    def __init__(self, num_codes, dim, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(num_codes, dim)
        self.codebook.weight.data.uniform_(-1.0 / num_codes, 1.0 / num_codes)
        self.beta = beta

    def forward(self, z):
        distances = torch.cdist(z, self.codebook.weight)
        codes = distances.argmin(dim=1)
        q = self.codebook(codes)
        codebook_loss = F.mse_loss(q, z.detach())
        commitment_loss = F.mse_loss(z, q.detach())
        q_st = z + (q - z).detach()  # straight-through: forward q, gradient to z as identity
        return q_st, codes, codebook_loss + self.beta * commitment_loss


class VQAE(nn.Module):
    def __init__(self, num_codes=8, dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, dim))
        self.vq = VectorQuantizer(num_codes, dim)
        self.decoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, x):
        q, codes, vq_loss = self.vq(self.encoder(x))
        return self.decoder(q), codes, vq_loss


model = VQAE()
with torch.no_grad():  # codes start at encoded data points (a common guard against dead codes)
    model.vq.codebook.weight.copy_(model.encoder(data[torch.randperm(len(data))[:8]]))
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(400):
    batch = data[torch.randint(0, len(data), (128,))]
    recon, codes, vq_loss = model(batch)
    loss = F.mse_loss(recon, batch) + vq_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        print(f"step {step} loss {loss.item():.4f}")

# the straight-through estimator passes the decoder's gradient to the encoder unchanged
z = torch.randn(5, 4, requires_grad=True)
q_st, _, _ = model.vq(z)
(q_st * torch.arange(4.0)).sum().backward()
assert torch.allclose(z.grad, torch.arange(4.0).expand(5, 4))

with torch.no_grad():
    recon, codes, _ = model(data)
    counts = torch.bincount(codes, minlength=8).float()
    probs = counts / counts.sum()
    perplexity = torch.exp(-(probs * torch.log(probs + 1e-10)).sum()).item()
    mse = F.mse_loss(recon, data).item()
    one_hot_usage = F.one_hot(codes, 8).sum(0)
assert torch.equal(one_hot_usage, counts.long())
print(f"reconstruction mse {mse:.4f}, code perplexity {perplexity:.2f} of 8 codes")
assert mse < 0.5  # the data variance is ~2.7 per coordinate
assert perplexity > 4.0  # most of the 6 clusters got a code of their own
