"""LoRA fine-tuning written by hand, as the from-scratch LoRA blog posts do: a LoRALinear wrapper
around a frozen nn.Linear with A (kaiming_uniform_(a=sqrt(5))) and B (zeros) so that the wrapped
model starts equal to the base, scaling alpha / r, the wrapper swapped into a pretrained model by
walking named_children and setattr, only the LoRA parameters trainable (counted with numel),
training on a shifted task, the frozen weights unchanged, and the adapter merged into the
weight (W + scale * B @ A) giving the same outputs as the unmerged model."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=4, alpha=8, dropout=0.0):
        super().__init__()
        self.base = base
        self.r, self.scaling = r, alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.lora_dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.merged = False

    def forward(self, x):
        out = self.base(x)
        if not self.merged:
            out = out + (self.lora_dropout(x) @ self.lora_A.T @ self.lora_B.T) * self.scaling
        return out

    @torch.no_grad()
    def merge(self):
        self.base.weight += (self.lora_B @ self.lora_A) * self.scaling
        self.merged = True


def add_lora(module, r=4, alpha=8, names=("0", "2")):
    for name, child in module.named_children():
        if isinstance(child, nn.Linear) and name in names:
            setattr(module, name, LoRALinear(child, r, alpha))
        else:
            add_lora(child, r, alpha, names)


def task(n, shift):
    x = torch.randn(n, 16)
    w = torch.linspace(-1, 1, 16)
    return x, ((x @ w + shift * x[:, 0] * x[:, 1]) > 0).long()


model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
Xa, ya = task(512, 0.0)
for _ in range(60):
    loss = F.cross_entropy(model(Xa), ya)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"pretraining loss {loss.item():.4f}")

Xb, yb = task(512, 3.0)
Xb_test, yb_test = task(512, 3.0)
with torch.no_grad():
    before = model(Xb_test)
    acc_before = (before.argmax(1) == yb_test).float().mean().item()
frozen = {k: v.clone() for k, v in model.state_dict().items()}
for p in model.parameters():
    p.requires_grad = False
add_lora(model)
with torch.no_grad():
    assert torch.equal(model(Xb_test), before)  # B = 0: the adapted model starts as the base
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
total = sum(p.numel() for p in model.parameters())
print(f"trainable {trainable} of {total} parameters ({100 * trainable / total:.2f}%)")
assert trainable == 4 * (16 + 64) + 4 * (64 + 64)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
for step in range(80):
    loss = F.cross_entropy(model(Xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"lora step {step} loss {loss.item():.4f}")
with torch.no_grad():
    adapted = model(Xb_test)
acc_after = (adapted.argmax(1) == yb_test).float().mean().item()
state = model.state_dict()
assert torch.equal(state["0.base.weight"], frozen["0.weight"]) and torch.equal(state["4.weight"], frozen["4.weight"])
for m in model.modules():
    if isinstance(m, LoRALinear):
        m.merge()
with torch.no_grad():
    merged = model(Xb_test)
print(f"accuracy before {acc_before:.3f} after {acc_after:.3f}, merge gap {(merged - adapted).abs().max().item():.2e}")
assert torch.allclose(merged, adapted, atol=1e-4)
assert acc_after > acc_before + 0.05
