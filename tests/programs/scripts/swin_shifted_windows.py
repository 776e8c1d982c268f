"""Swin Transformer's shifted-window attention: window_partition/window_reverse by view and
permute, a cyclic shift by torch.roll with the attention mask built from region ids, and a
relative position bias table indexed by a registered buffer; then a tiny Swin classifier."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


def window_partition(x, ws):
    b, h, w, c = x.shape
    x = x.view(b, h // ws, ws, w // ws, ws, c)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def window_reverse(windows, ws, h, w):
    b = int(windows.shape[0] / (h * w / ws / ws))
    x = windows.view(b, h // ws, w // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)


class WindowAttention(nn.Module):
    def __init__(self, dim, ws, heads):
        super().__init__()
        self.ws, self.heads = ws, heads
        self.scale = (dim // heads) ** -0.5
        self.table = nn.Parameter(torch.zeros((2 * ws - 1) ** 2, heads))
        nn.init.trunc_normal_(self.table, std=0.02)
        coords = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij"))
        flat = torch.flatten(coords, 1)
        rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()
        rel[:, :, 0] += ws - 1
        rel[:, :, 1] += ws - 1
        rel[:, :, 0] *= 2 * ws - 1
        self.register_buffer("index", rel.sum(-1), persistent=False)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        b_, n, c = x.shape
        qkv = self.qkv(x).reshape(b_, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.table[self.index.view(-1)].view(n, n, -1).permute(2, 0, 1)
        attn = attn + bias.unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b_ // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        attn = attn.softmax(dim=-1)
        return self.proj((attn @ v).transpose(1, 2).reshape(b_, n, c))


class SwinBlock(nn.Module):
    def __init__(self, dim, res, ws=4, shift=0, heads=2):
        super().__init__()
        self.res, self.ws, self.shift = res, ws, shift
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, ws, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
        if shift > 0:
            img_mask = torch.zeros((1, res, res, 1))
            cnt = 0
            for hs in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                for wsl in (slice(0, -ws), slice(-ws, -shift), slice(-shift, None)):
                    img_mask[:, hs, wsl, :] = cnt
                    cnt += 1
            mw = window_partition(img_mask, ws).view(-1, ws * ws)
            attn_mask = mw.unsqueeze(1) - mw.unsqueeze(2)
            attn_mask = attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))
        else:
            attn_mask = None
        self.register_buffer("attn_mask", attn_mask)

    def forward(self, x):
        b, l, c = x.shape
        h = w = self.res
        shortcut = x
        x = self.norm1(x).view(b, h, w, c)
        if self.shift > 0:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = window_partition(x, self.ws).view(-1, self.ws * self.ws, c)
        win = self.attn(win, mask=self.attn_mask).view(-1, self.ws, self.ws, c)
        x = window_reverse(win, self.ws, h, w)
        if self.shift > 0:
            x = torch.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
        x = shortcut + x.view(b, h * w, c)
        return x + self.mlp(self.norm2(x))


x = torch.randn(2, 8, 8, 3)
assert torch.equal(window_reverse(window_partition(x, 4), 4, 8, 8), x)
assert torch.equal(torch.roll(torch.roll(x, (2, 2), (1, 2)), (-2, -2), (1, 2)), x)
blk = SwinBlock(16, 8, ws=4, shift=2)
assert blk.attn_mask.shape == (4, 16, 16) and set(blk.attn_mask.unique().tolist()) == {-100.0, 0.0}

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 16, 2, 2), nn.Flatten(2))
blocks = nn.Sequential(SwinBlock(16, 8, shift=0), SwinBlock(16, 8, shift=2))
head = nn.Linear(16, 2)
params = list(model.parameters()) + list(blocks.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=5e-3)


def batch(n):
    y = torch.randint(0, 2, (n,))
    img = torch.randn(n, 1, 16, 16) * 0.3
    img[y == 1, :, 4:12, 7:9] += 2.0  # vertical bar
    img[y == 0, :, 7:9, 4:12] += 2.0  # horizontal bar
    return img, y


for step in range(50):
    img, y = batch(16)
    tokens = model(img).transpose(1, 2)
    logits = head(blocks(tokens).mean(1))
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(step, loss.item())
img, y = batch(200)
with torch.no_grad():
    acc = (head(blocks(model(img).transpose(1, 2)).mean(1)).argmax(1) == y).float().mean().item()
print(f"loss {loss.item():.3f} accuracy {acc:.2f}")
assert acc > 0.9
