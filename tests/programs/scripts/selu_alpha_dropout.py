"""A self-normalising network (Klambauer et al.): SELU activations, weights drawn with LeCun
normal initialisation (nn.init.kaiming_normal_ with nonlinearity="linear", i.e. std 1/sqrt(fan_in)),
and AlphaDropout, which keeps mean 0 and variance 1 where ordinary dropout does not. Checked
through forward hooks on every layer of a 16-layer MLP: activations stay near N(0, 1) with SELU
and AlphaDropout, collapse with tanh, and drift under Dropout. Then the net is trained."""
import minigenesis as torch
import minigenesis.nn as nn


def make_mlp(act, dropout, depth=16, width=64):
    layers = []
    for _ in range(depth):
        lin = nn.Linear(width, width)
        nn.init.kaiming_normal_(lin.weight, mode="fan_in", nonlinearity="linear")
        nn.init.zeros_(lin.bias)
        layers += [lin, act(), dropout]
    return nn.Sequential(*layers, nn.Linear(width, 1))


def activation_stats(model, x):
    stats = []
    hooks = [m.register_forward_hook(lambda mod, inp, out: stats.append((out.mean().item(), out.std().item())))
             for m in model if isinstance(m, (nn.SELU, nn.Tanh))]
    model(x)
    for h in hooks:
        h.remove()
    return stats


torch.manual_seed(0)
x = torch.randn(512, 64)
selu = make_mlp(nn.SELU, nn.AlphaDropout(0.1))
tanh = make_mlp(nn.Tanh, nn.Identity())
selu_drop = make_mlp(nn.SELU, nn.Dropout(0.1))
for m in (selu, tanh, selu_drop):
    m.train()
s_selu, s_tanh, s_drop = activation_stats(selu, x), activation_stats(tanh, x), activation_stats(selu_drop, x)
print("layer 16 std: selu+alphadropout %.3f, tanh %.3f, selu+dropout %.3f" % (s_selu[-1][1], s_tanh[-1][1], s_drop[-1][1]))
print("layer 16 mean: selu+alphadropout %.3f, selu+dropout %.3f" % (s_selu[-1][0], s_drop[-1][0]))
assert all(abs(m) < 0.25 and 0.7 < s < 1.3 for m, s in s_selu)
assert s_tanh[-1][1] < 0.5

a = nn.AlphaDropout(0.2)
z = torch.randn(100000)
out = a(z)
print("AlphaDropout on N(0,1): mean %.3f std %.3f; eval is identity: %s" % (out.mean().item(), out.std().item(), torch.equal(a.eval()(z), z)))
assert abs(out.mean().item()) < 0.02 and abs(out.std().item() - 1) < 0.02

y = (x[:, :4].sum(1, keepdim=True) > 0).float()
opt = torch.optim.Adam(selu.parameters(), lr=1e-3)
for step in range(80):
    loss = nn.functional.binary_cross_entropy_with_logits(selu(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
selu.eval()
with torch.no_grad():
    acc = ((selu(x) > 0).float() == y).float().mean().item()
print("trained 16-layer SELU net: loss %.4f accuracy %.3f" % (loss.item(), acc))
assert acc > 0.8
