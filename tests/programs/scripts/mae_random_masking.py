"""A masked autoencoder (MAE) on small images: patchify by reshape/permute, random masking by
argsort of noise with gather, an encoder on the visible tokens only, mask tokens and the
unshuffle, and a reconstruction loss on the masked patches only."""
import minigenesis as torch
import minigenesis.nn as nn


def patchify(imgs, p):
    b, c, h, w = imgs.shape
    x = imgs.reshape(b, c, h // p, p, w // p, p)
    x = torch.einsum("nchpwq->nhwpqc", x)
    return x.reshape(b, (h // p) * (w // p), p * p * c)


def unpatchify(x, p, c, h):
    b = x.shape[0]
    g = h // p
    x = x.reshape(b, g, g, p, p, c)
    x = torch.einsum("nhwpqc->nchpwq", x)
    return x.reshape(b, c, g * p, g * p)


def random_masking(x, mask_ratio):
    n, l, d = x.shape
    len_keep = int(l * (1 - mask_ratio))
    noise = torch.rand(n, l)
    ids_shuffle = torch.argsort(noise, dim=1)
    ids_restore = torch.argsort(ids_shuffle, dim=1)
    ids_keep = ids_shuffle[:, :len_keep]
    x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, d))
    mask = torch.ones([n, l])
    mask[:, :len_keep] = 0
    mask = torch.gather(mask, dim=1, index=ids_restore)
    return x_masked, mask, ids_restore


class TinyMAE(nn.Module):
    def __init__(self, img=16, p=4, c=1, dim=32, dec_dim=32):
        super().__init__()
        self.p, self.c, self.img = p, c, img
        n = (img // p) ** 2
        self.embed = nn.Linear(p * p * c, dim)
        self.pos = nn.Parameter(torch.randn(1, n, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, 4, 64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.dec_embed = nn.Linear(dim, dec_dim)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, dec_dim))
        self.dec_pos = nn.Parameter(torch.randn(1, n, dec_dim) * 0.02)
        dlayer = nn.TransformerEncoderLayer(dec_dim, 4, 64, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerEncoder(dlayer, 1)
        self.pred = nn.Linear(dec_dim, p * p * c)

    def forward(self, imgs, mask_ratio=0.75):
        target = patchify(imgs, self.p)
        x = self.embed(target) + self.pos
        x, mask, ids_restore = random_masking(x, mask_ratio)
        x = self.encoder(x)
        x = self.dec_embed(x)
        n_mask = ids_restore.shape[1] - x.shape[1]
        mask_tokens = self.mask_token.repeat(x.shape[0], n_mask, 1)
        x_ = torch.cat([x, mask_tokens], dim=1)
        x_ = torch.gather(x_, 1, ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        pred = self.pred(self.decoder(x_ + self.dec_pos))
        loss = ((pred - target) ** 2).mean(dim=-1)
        loss = (loss * mask).sum() / mask.sum()
        return loss, pred, mask


imgs = torch.randn(2, 1, 16, 16)
assert torch.equal(unpatchify(patchify(imgs, 4), 4, 1, 16), imgs)

torch.manual_seed(0)
xs = torch.linspace(-1, 1, 16)
yy, xx = torch.meshgrid(xs, xs, indexing="ij")


def make_batch(b):
    fx = torch.rand(b, 1, 1) * 3 + 1
    ph = torch.rand(b, 1, 1) * 6.28
    return torch.sin(fx * xx + ph).unsqueeze(1) * torch.cos(fx * yy).unsqueeze(1)


model = TinyMAE()
x_masked, mask, ids_restore = random_masking(torch.arange(8.0).view(1, 8, 1).repeat(2, 1, 1), 0.5)
assert mask.sum().item() == 8 and x_masked.shape == (2, 4, 1)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
val = make_batch(64)
with torch.no_grad():
    before = model(val)[0].item()
for step in range(60):
    loss, _, _ = model(make_batch(32))
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
with torch.no_grad():
    after, pred, mask = model(val)
print(f"masked-patch mse {before:.3f} -> {after.item():.3f}; masked fraction {mask.mean().item():.2f}")
assert mask.mean().item() == 0.75
assert after.item() < 0.6 * before
