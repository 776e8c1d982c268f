"""A tiny Vision Transformer: patches embedded by a Conv2d with stride = kernel = patch size and
flatten(2).transpose(1, 2) (checked against F.unfold), a learnable [CLS] token expanded over the
batch, learnable position embeddings initialised with trunc_normal_, pre-norm
nn.TransformerEncoderLayer(batch_first=True, norm_first=True, activation="gelu"), and the class
read from the [CLS] output; trained on which quadrant holds a bright square."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


class ViT(nn.Module):
    def __init__(self, img=16, patch=4, dim=32, depth=2, heads=4, n_classes=4):
        super().__init__()
        self.patch_embed = nn.Conv2d(1, dim, kernel_size=patch, stride=patch)
        n = (img // patch) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.zeros(1, n + 1, dim))
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=64, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)  # B, N, dim
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls, x), dim=1) + self.pos_embed
        x = self.encoder(x)
        return self.head(self.norm(x[:, 0]))


def make_batch(n):
    imgs = 0.3 * torch.randn(n, 1, 16, 16)
    labels = torch.randint(0, 4, (n,))
    for i, q in enumerate(labels.tolist()):
        r, c = 8 * (q // 2) + 2, 8 * (q % 2) + 2
        imgs[i, 0, r : r + 4, c : c + 4] += 2.0
    return imgs, labels


model = ViT()
x, _ = make_batch(2)
conv_patches = model.patch_embed(x).flatten(2).transpose(1, 2)
cols = F.unfold(x, kernel_size=4, stride=4).transpose(1, 2)  # B, N, 16
by_unfold = cols @ model.patch_embed.weight.view(32, -1).t() + model.patch_embed.bias
assert torch.allclose(conv_patches, by_unfold, atol=1e-5)

opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.05)
for step in range(100):
    xb, yb = make_batch(32)
    loss = F.cross_entropy(model(xb), yb, label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    xb, yb = make_batch(200)
    acc = (model(xb).argmax(dim=-1) == yb).float().mean().item()
print(f"loss {loss.item():.3f} accuracy {acc:.3f}")
assert acc > 0.9
