"""A model built from every container (Sequential from an OrderedDict, ModuleDict, ModuleList,
ParameterList, ParameterDict), initialised by model.apply(init_fn) over named_modules with
kaiming_normal_, xavier_uniform_ with calculate_gain, orthogonal_ and trunc_normal_, checked
against their closed-form statistics; parameter groups without weight decay for biases and norms,
load_state_dict(strict=False) reporting missing and unexpected keys, and a short training run."""
import math
from collections import OrderedDict
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


class MultiHeadNet(nn.Module):
    def __init__(self, d_in=32, hidden=128, tasks=("a", "b")):
        super().__init__()
        self.trunk = nn.Sequential(OrderedDict([
            ('fc1', nn.Linear(d_in, hidden)),
            ('norm1', nn.LayerNorm(hidden)),
            ('act1', nn.ReLU()),
            ('fc2', nn.Linear(hidden, hidden)),
            ('act2', nn.Tanh()),
        ]))
        self.heads = nn.ModuleDict({t: nn.Linear(hidden, 1) for t in tasks})
        self.mixers = nn.ModuleList([nn.Linear(hidden, hidden, bias=False) for _ in range(2)])
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(1)) for _ in range(2)])
        self.offsets = nn.ParameterDict({t: nn.Parameter(torch.zeros(1)) for t in tasks})

    def forward(self, x):
        h = self.trunk(x)
        for mix, s in zip(self.mixers, self.scales):
            h = h + s * torch.tanh(mix(h))
        return {t: head(h).squeeze(-1) + self.offsets[t] for t, head in self.heads.items()}


def init_weights(m):
    if isinstance(m, nn.Linear):
        if m.bias is None:
            nn.init.orthogonal_(m.weight)
        elif m.out_features == 1:
            nn.init.trunc_normal_(m.weight, std=0.02, a=-0.04, b=0.04)
            nn.init.zeros_(m.bias)
        elif m.in_features == 32:
            nn.init.kaiming_normal_(m.weight, mode='fan_in', nonlinearity='relu')
            nn.init.constant_(m.bias, 0.01)
        else:
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain('tanh'))
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.LayerNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


model = MultiHeadNet()
model.apply(init_weights)
names = [name for name, _ in model.named_modules()]
print(len(names), "modules:", names[:4], "...")
assert names[:3] == ['', 'trunk', 'trunk.fc1'] and 'heads.a' in names and 'mixers.1' in names
n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable parameters:", n_params)
H = 128
assert n_params == (32 * H + H) + 2 * H + (H * H + H) + 2 * (H + 1) + 2 * H * H + 4

w1 = model.trunk.fc1.weight.detach()
assert abs(w1.std().item() - math.sqrt(2.0 / 32)) < 0.02 * math.sqrt(2.0 / 32) * 5
w2 = model.trunk.fc2.weight.detach()
bound = (5.0 / 3) * math.sqrt(6.0 / (H + H))
assert w2.abs().max().item() <= bound and w2.abs().max().item() > 0.95 * bound
assert abs(w2.var().item() - bound ** 2 / 3) < 0.05 * bound ** 2 / 3
for mix in model.mixers:
    q = mix.weight.detach()
    assert torch.allclose(q @ q.T, torch.eye(H), atol=1e-4)
for head in model.heads.values():
    assert head.weight.abs().max().item() <= 0.04
print("init stats: kaiming std %.4f (expected %.4f), xavier max %.4f (bound %.4f)"
      % (w1.std().item(), math.sqrt(2.0 / 32), w2.abs().max().item(), bound))

decay, no_decay = [], []
for name, param in model.named_parameters():
    if name.endswith('bias') or 'norm' in name or param.ndim < 2:
        no_decay.append(param)
    else:
        decay.append(param)
optimizer = torch.optim.AdamW([
    {'params': decay, 'weight_decay': 0.05},
    {'params': no_decay, 'weight_decay': 0.0}], lr=1e-3)
assert [g['weight_decay'] for g in optimizer.param_groups] == [0.05, 0.0]
assert len(decay) + len(no_decay) == len(list(model.parameters()))

X = torch.randn(256, 32)
targets = {'a': X[:, :4].sum(1), 'b': (X[:, 4:8] ** 2).mean(1)}
for step in range(60):
    out = model(X)
    loss = sum(F.mse_loss(out[t], targets[t]) for t in out)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 20 == 0:
        print(f"step {step}: loss {loss.item():.4f}")
assert loss.item() < 0.5, loss.item()

# a state_dict with a renamed head loads partly; strict=False reports what did not match
sd = model.state_dict()
assert 'scales.0' in sd and 'offsets.a' in sd and 'trunk.fc1.weight' in sd
sd['heads.c.weight'] = sd.pop('heads.b.weight')
fresh = MultiHeadNet()
result = fresh.load_state_dict(sd, strict=False)
print("missing:", result.missing_keys, "unexpected:", result.unexpected_keys)
assert result.missing_keys == ['heads.b.weight'] and result.unexpected_keys == ['heads.c.weight']
assert torch.equal(fresh.trunk.fc1.weight, model.trunk.fc1.weight)
try:
    fresh.load_state_dict(sd)
except RuntimeError as e:
    assert 'Missing key(s)' in str(e) and 'Unexpected key(s)' in str(e)
else:
    raise AssertionError('strict loading should fail')
