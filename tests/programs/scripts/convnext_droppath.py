"""A ConvNeXt block as in the reference implementation and timm: a 7x7 depthwise Conv2d,
LayerNorm applied channels-last after permute(0, 2, 3, 1), an inverted-bottleneck MLP as
nn.Linear layers, layer scale gamma as an nn.Parameter of 1e-6 * ones, and stochastic depth
(DropPath) written with x.new_empty(shape).bernoulli_(keep_prob).div_(keep_prob); the
channels_first LayerNorm by mean/pow/sqrt equals F.layer_norm on the permuted tensor, DropPath is
the identity in eval mode and unbiased in training, and a small network trains."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def drop_path(x, drop_prob: float = 0.0, training: bool = False, scale_by_keep: bool = True):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    if keep_prob > 0.0 and scale_by_keep:
        random_tensor.div_(keep_prob)
    return x * random_tensor


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        return drop_path(x, self.drop_prob, self.training)

    def extra_repr(self):
        return f"drop_prob={round(self.drop_prob, 3):0.3f}"


class LayerNorm(nn.Module):
    def __init__(self, normalized_shape, eps=1e-6, data_format="channels_last"):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.eps, self.data_format = eps, data_format
        self.normalized_shape = (normalized_shape,)

    def forward(self, x):
        if self.data_format == "channels_last":
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        u = x.mean(1, keepdim=True)
        s = (x - u).pow(2).mean(1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight[:, None, None] * x + self.bias[:, None, None]


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, layer_scale_init_value=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale_init_value * torch.ones((dim)), requires_grad=True) if layer_scale_init_value > 0 else None
        self.drop_path = DropPath(drop_path) if drop_path > 0.0 else nn.Identity()

    def forward(self, x):
        input = x
        x = self.dwconv(x)
        x = x.permute(0, 2, 3, 1)  # (N, C, H, W) -> (N, H, W, C)
        x = self.norm(x)
        x = self.pwconv2(self.act(self.pwconv1(x)))
        if self.gamma is not None:
            x = self.gamma * x
        x = x.permute(0, 3, 1, 2)
        return input + self.drop_path(x)


ln_first = LayerNorm(8, data_format="channels_first")
with torch.no_grad():
    ln_first.weight.uniform_(0.5, 1.5)
    ln_first.bias.normal_()
z = torch.randn(2, 8, 5, 5)
ref = F.layer_norm(z.permute(0, 2, 3, 1), (8,), ln_first.weight, ln_first.bias, 1e-6).permute(0, 3, 1, 2)
assert torch.allclose(ln_first(z), ref, atol=1e-5)

dp = DropPath(0.25)
ones = torch.ones(4000, 3)
dropped = dp(ones)
kept = (dropped[:, 0] != 0).float().mean().item()
assert all(v == 0 or abs(v - 1 / 0.75) < 1e-6 for v in dropped.unique().tolist())
assert torch.equal(dropped[:, 0], dropped[:, 2])  # one decision per sample
dp.eval()
assert torch.equal(dp(ones), ones)
print(f"{dp}, kept fraction {kept:.3f}, mean {dropped.mean().item():.3f}")
assert abs(kept - 0.75) < 0.03

model = nn.Sequential(
    nn.Conv2d(3, 16, kernel_size=2, stride=2), LayerNorm(16, data_format="channels_first"),
    Block(16, drop_path=0.0, layer_scale_init_value=0.1), Block(16, drop_path=0.1, layer_scale_init_value=0.1),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(16), nn.Linear(16, 2))
X = torch.randn(64, 3, 12, 12)
y = (X[:, 0, :6].mean((1, 2)) > X[:, 0, 6:].mean((1, 2))).long()
opt = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=0.05)
for step in range(30):
    model.train()
    loss = F.cross_entropy(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")
model.eval()
with torch.no_grad():
    acc = (model(X).argmax(1) == y).float().mean().item()
print(f"train accuracy {acc:.3f} gamma mean {model[3].gamma.mean().item():.4f}")
assert acc > 0.8
