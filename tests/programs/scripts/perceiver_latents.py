"""A Perceiver-style set model: a learned latent array (nn.Parameter) cross-attends to a
variable-size set of inputs through nn.MultiheadAttention(batch_first=True, kdim, vdim) with a
key_padding_mask, then latent self-attention by a pre-norm nn.TransformerEncoder, a mean over
latents and a linear head. The padded positions change nothing (same output with garbage in the
padding), the output is invariant to permuting the set, and it learns the sign of a set's sum."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn.utils.rnn import pad_sequence

torch.manual_seed(0)


class Perceiver(nn.Module):
    def __init__(self, input_dim=3, num_latents=8, latent_dim=32, heads=4, depth=1, num_classes=2):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(num_latents, latent_dim) * 0.02)
        self.cross_norm = nn.LayerNorm(latent_dim)
        self.cross_attn = nn.MultiheadAttention(latent_dim, 1, batch_first=True,
                                                kdim=input_dim, vdim=input_dim)
        self.cross_ff = nn.Sequential(nn.LayerNorm(latent_dim), nn.Linear(latent_dim, 64),
                                      nn.GELU(), nn.Linear(64, latent_dim))
        layer = nn.TransformerEncoderLayer(latent_dim, heads, dim_feedforward=64, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.self_attn = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.head = nn.Sequential(nn.LayerNorm(latent_dim), nn.Linear(latent_dim, num_classes))

    def forward(self, data, mask=None):
        b = data.shape[0]
        x = self.latents.unsqueeze(0).expand(b, -1, -1)
        ctx = data
        attn, weights = self.cross_attn(self.cross_norm(x), ctx, ctx, key_padding_mask=mask)
        x = x + attn
        x = x + self.cross_ff(x)
        x = self.self_attn(x)
        return self.head(x.mean(dim=1)), weights


def make_sets(n):
    sets, labels = [], []
    for _ in range(n):
        size = int(torch.randint(3, 12, (1,)))
        pts = torch.randn(size, 3)
        sets.append(pts)
        labels.append(int(pts[:, 0].sum() > 0))
    lengths = torch.tensor([len(s) for s in sets])
    padded = pad_sequence(sets, batch_first=True)
    mask = torch.arange(padded.size(1))[None, :] >= lengths[:, None]  # True = padding
    return padded, mask, torch.tensor(labels)


model = Perceiver()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
for step in range(150):
    data, mask, y = make_sets(64)
    logits, _ = model(data, mask)
    loss = criterion(logits, y)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if step % 50 == 0:
        print(f"step {step}  loss {loss.item():.4f}")

model.eval()
data, mask, y = make_sets(400)
with torch.no_grad():
    logits, weights = model(data, mask)
    acc = (logits.argmax(1) == y).float().mean().item()
    # padding is ignored
    garbage = data.masked_fill(mask[..., None], 7.0)
    logits_g, _ = model(garbage, mask)
    # permutation invariance of one set
    n = int((~mask[0]).sum())
    perm = torch.randperm(n)
    one = data[:1, :n]
    a, _ = model(one)
    b, _ = model(one[:, perm])
print(f"accuracy {acc:.3f}")
assert weights.shape == (400, 8, data.shape[1])
assert torch.all(weights.masked_select(mask[:, None, :].expand_as(weights)) == 0)
assert torch.allclose(logits, logits_g, atol=1e-5)
assert torch.allclose(a, b, atol=1e-5) and torch.allclose(a, logits[:1], atol=1e-5)
assert acc > 0.8
