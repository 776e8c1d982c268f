"""Projected gradient descent, FGSM iterated: a small MLP trained on two Gaussian blobs, then
each test point pushed by alpha * grad.sign() and projected back into the epsilon L-infinity
ball with torch.max/torch.min and the data range with clamp; PGD hurts accuracy at least as much
as one FGSM step and stays inside the ball."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(1)
n = 600
y = torch.randint(0, 2, (n,))
x = torch.randn(n, 2) * 0.6 + torch.where(y[:, None] == 1, torch.tensor([1.0, 1.0]), torch.tensor([-1.0, -1.0]))
x = x.clamp(-3, 3)
model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(150):
    opt.zero_grad()
    loss = F.cross_entropy(model(x[:400]), y[:400])
    loss.backward()
    opt.step()
model.eval()
for p in model.parameters():
    p.requires_grad_(False)
xt, yt = x[400:], y[400:]


def accuracy(inputs):
    with torch.no_grad():
        return (model(inputs).argmax(dim=1) == yt).float().mean().item()


def fgsm(inputs, eps):
    inputs = inputs.clone().requires_grad_(True)
    F.cross_entropy(model(inputs), yt).backward()
    return torch.clamp(inputs + eps * inputs.grad.sign(), -3, 3).detach()


def pgd(inputs, eps, alpha, steps):
    adv = inputs.clone().detach()
    for _ in range(steps):
        adv.requires_grad = True
        loss = F.cross_entropy(model(adv), yt)
        grad, = torch.autograd.grad(loss, adv)
        adv = adv.detach() + alpha * grad.sign()
        adv = torch.max(torch.min(adv, inputs + eps), inputs - eps).clamp(-3, 3)
    return adv


clean = accuracy(xt)
print("clean accuracy %.3f" % clean)
assert clean > 0.9
last = clean
for eps in (0.25, 0.5, 1.0):
    a_fgsm = fgsm(xt, eps)
    a_pgd = pgd(xt, eps, eps / 4, 10)
    assert (a_pgd - xt).abs().max().item() <= eps + 1e-5
    acc_f, acc_p = accuracy(a_fgsm), accuracy(a_pgd)
    print("eps %.2f fgsm %.3f pgd %.3f" % (eps, acc_f, acc_p))
    assert acc_p <= acc_f + 0.02 and acc_f < clean
    assert eps == 0.25 or acc_p < last
    last = acc_p
assert accuracy(pgd(xt, 1.0, 0.25, 10)) < 0.7
