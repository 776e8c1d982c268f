"""Forward hooks collecting activations, a frozen layer, optimizer parameter groups."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(10, 20), nn.ReLU(), nn.Linear(20, 20), nn.ReLU())
head = nn.Linear(20, 2)
model = nn.Sequential(backbone, head)

activations = {}
def save_activation(name):
    def hook(module, inp, out):
        activations[name] = out.detach()
    return hook

handles = [m.register_forward_hook(save_activation(n)) for n, m in model.named_modules() if isinstance(m, nn.ReLU)]
for p in backbone[0].parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD([
    {"params": [p for p in backbone.parameters() if p.requires_grad], "lr": 1e-3},
    {"params": head.parameters(), "lr": 1e-1},
], momentum=0.9)
frozen = backbone[0].weight.clone()
x = torch.randn(8, 10)
out = model(x)
loss = nn.functional.cross_entropy(out, torch.tensor([0, 1] * 4))
loss.backward()
opt.step()
print({k: v.shape for k, v in activations.items()})
print("trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
assert torch.equal(frozen, backbone[0].weight)
assert backbone[0].weight.grad is None
for h in handles:
    h.remove()
model(x)
assert len(activations) == 2
print([g["lr"] for g in opt.param_groups])
