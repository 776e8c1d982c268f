"""CLIP's ModifiedResNet head: an anti-aliased stem (AvgPool2d in place of strides), Bottleneck
blocks, and AttentionPool2d, whose mean token with a positional embedding queries every spatial
token through F.multi_head_attention_forward with separate q/k/v projections (as in OpenAI's
model.py); trained on a toy image task, and the pooled query checked against
nn.MultiheadAttention loaded with the same weights."""
from collections import OrderedDict
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu2 = nn.ReLU(inplace=True)
        self.avgpool = nn.AvgPool2d(stride) if stride > 1 else nn.Identity()
        self.conv3 = nn.Conv2d(planes, planes * self.expansion, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu3 = nn.ReLU(inplace=True)
        self.downsample = None
        if stride > 1 or inplanes != planes * Bottleneck.expansion:
            self.downsample = nn.Sequential(OrderedDict([
                ("-1", nn.AvgPool2d(stride)),
                ("0", nn.Conv2d(inplanes, planes * self.expansion, 1, stride=1, bias=False)),
                ("1", nn.BatchNorm2d(planes * self.expansion)),
            ]))

    def forward(self, x):
        identity = x
        out = self.relu1(self.bn1(self.conv1(x)))
        out = self.relu2(self.bn2(self.conv2(out)))
        out = self.avgpool(out)
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
        return self.relu3(out)


class AttentionPool2d(nn.Module):
    def __init__(self, spacial_dim, embed_dim, num_heads, output_dim=None):
        super().__init__()
        self.positional_embedding = nn.Parameter(torch.randn(spacial_dim ** 2 + 1, embed_dim) / embed_dim ** 0.5)
        self.k_proj = nn.Linear(embed_dim, embed_dim)
        self.q_proj = nn.Linear(embed_dim, embed_dim)
        self.v_proj = nn.Linear(embed_dim, embed_dim)
        self.c_proj = nn.Linear(embed_dim, output_dim or embed_dim)
        self.num_heads = num_heads

    def forward(self, x):
        x = x.flatten(start_dim=2).permute(2, 0, 1)  # NCHW -> (HW)NC
        x = torch.cat([x.mean(dim=0, keepdim=True), x], dim=0)  # (HW+1)NC
        x = x + self.positional_embedding[:, None, :].to(x.dtype)
        x, _ = F.multi_head_attention_forward(
            query=x[:1], key=x, value=x,
            embed_dim_to_check=x.shape[-1],
            num_heads=self.num_heads,
            q_proj_weight=self.q_proj.weight,
            k_proj_weight=self.k_proj.weight,
            v_proj_weight=self.v_proj.weight,
            in_proj_weight=None,
            in_proj_bias=torch.cat([self.q_proj.bias, self.k_proj.bias, self.v_proj.bias]),
            bias_k=None,
            bias_v=None,
            add_zero_attn=False,
            dropout_p=0,
            out_proj_weight=self.c_proj.weight,
            out_proj_bias=self.c_proj.bias,
            use_separate_proj_weight=True,
            training=self.training,
            need_weights=False,
        )
        return x.squeeze(0)


class TinyModifiedResNet(nn.Module):
    def __init__(self, width=8, heads=4, output_dim=16, resolution=16):
        super().__init__()
        self.conv1 = nn.Conv2d(1, width // 2, 3, stride=2, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width // 2)
        self.conv2 = nn.Conv2d(width // 2, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.relu = nn.ReLU(inplace=True)
        self.avgpool = nn.AvgPool2d(2)
        self.layer1 = Bottleneck(width, width)
        self.layer2 = Bottleneck(width * 4, width, stride=2)
        self.attnpool = AttentionPool2d(resolution // 8, width * 4, heads, output_dim)

    def forward(self, x):
        x = self.avgpool(self.relu(self.bn2(self.conv2(self.relu(self.bn1(self.conv1(x)))))))
        return self.attnpool(self.layer2(self.layer1(x)))


torch.manual_seed(0)
model = TinyModifiedResNet()
head = nn.Linear(16, 3)


def batch(n):
    y = torch.randint(0, 3, (n,))
    img = 0.3 * torch.randn(n, 1, 16, 16)
    for i in range(n):
        r, c = torch.randint(0, 12, (2,)).tolist()
        if y[i] == 0:
            img[i, 0, r:r + 4, c:c + 4] += 1.5  # a square
        elif y[i] == 1:
            img[i, 0, r, :] += 1.5  # a row
        else:
            img[i, 0, :, c] += 1.5  # a column
    return img, y


opt = torch.optim.AdamW([*model.parameters(), *head.parameters()], lr=3e-3)
for step in range(60):
    x, y = batch(32)
    loss = F.cross_entropy(head(model(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
x, y = batch(150)
with torch.no_grad():
    acc = (head(model(x)).argmax(1) == y).float().mean().item()
print(f"loss {loss.item():.3f}, accuracy {acc:.2f} (chance 0.33)")
assert acc > 0.8

# the functional call is nn.MultiheadAttention's computation with these weights
pool = model.attnpool
mha = nn.MultiheadAttention(32, 4, kdim=32, vdim=32)
with torch.no_grad():
    mha.in_proj_weight.copy_(torch.cat([pool.q_proj.weight, pool.k_proj.weight, pool.v_proj.weight]))
    mha.in_proj_bias.copy_(torch.cat([pool.q_proj.bias, pool.k_proj.bias, pool.v_proj.bias]))
    mha.out_proj = pool.c_proj
    feats = model.layer2(model.layer1(model.avgpool(model.relu(model.bn2(model.conv2(model.relu(model.bn1(model.conv1(x[:4])))))))))
    tokens = feats.flatten(2).permute(2, 0, 1)
    tokens = torch.cat([tokens.mean(0, keepdim=True), tokens]) + pool.positional_embedding[:, None, :]
    ref, weights = mha(tokens[:1], tokens, tokens)
    assert torch.allclose(pool(feats), ref.squeeze(0), atol=1e-5)
    assert torch.allclose(weights.sum(-1), torch.ones(4, 1))
print("attention pooling equals nn.MultiheadAttention with the same weights")
