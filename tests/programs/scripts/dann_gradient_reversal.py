"""Domain-adversarial training (DANN, Ganin & Lempitsky) as its public implementations write it:
a GradientReversal autograd.Function whose forward is view_as and whose backward returns
grad_output.neg() * alpha, alpha scheduled as 2 / (1 + exp(-10 p)) - 1, a feature extractor
shared by a label classifier trained on the labelled source and a domain classifier trained on
source and target; the reversed gradient is checked to be exactly -alpha times the plain one."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.autograd import Function

torch.manual_seed(0)


class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


x = torch.randn(5, 3, requires_grad=True)
w = torch.randn(5, 3)
(ReverseLayerF.apply(x, 0.3) * w).sum().backward()
assert torch.allclose(x.grad, -0.3 * w)


def domain(n, shift):
    y = torch.randint(0, 2, (n,))
    X = torch.randn(n, 2) * 0.6 + (y.float() * 2 - 1)[:, None] * torch.tensor([1.5, 0.0])
    rot = torch.tensor([[math.cos(shift), -math.sin(shift)], [math.sin(shift), math.cos(shift)]])
    return X @ rot.T + torch.tensor([0.0, 1.5]) * (shift > 0), y


Xs, ys = domain(400, 0.0)
Xt, yt = domain(400, 0.6)
features = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
class_classifier = nn.Linear(32, 2)
domain_classifier = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
params = [*features.parameters(), *class_classifier.parameters(), *domain_classifier.parameters()]
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
loss_class = nn.NLLLoss()
loss_domain = nn.NLLLoss()
n_epoch, n_batches = 15, 8
for epoch in range(n_epoch):
    perm_s, perm_t = torch.randperm(400), torch.randperm(400)
    for i in range(n_batches):
        p = float(i + epoch * n_batches) / n_epoch / n_batches
        alpha = 2.0 / (1.0 + math.exp(-10 * p)) - 1
        s_idx, t_idx = perm_s[i * 50:(i + 1) * 50], perm_t[i * 50:(i + 1) * 50]
        feat_s, feat_t = features(Xs[s_idx]), features(Xt[t_idx])
        class_output = torch.log_softmax(class_classifier(feat_s), dim=1)
        err_s_label = loss_class(class_output, ys[s_idx])
        dom_in = torch.cat([ReverseLayerF.apply(feat_s, alpha), ReverseLayerF.apply(feat_t, alpha)])
        dom_label = torch.cat([torch.zeros(50, dtype=torch.long), torch.ones(50, dtype=torch.long)])
        err_domain = loss_domain(torch.log_softmax(domain_classifier(dom_in), dim=1), dom_label)
        err = err_s_label + err_domain
        optimizer.zero_grad()
        err.backward()
        optimizer.step()
    if epoch % 5 == 0:
        print(f"epoch {epoch} alpha {alpha:.4f} class loss {err_s_label.item():.4f} domain loss {err_domain.item():.4f}")
with torch.no_grad():
    acc_s = (class_classifier(features(Xs)).argmax(1) == ys).float().mean().item()
    acc_t = (class_classifier(features(Xt)).argmax(1) == yt).float().mean().item()
print(f"source accuracy {acc_s:.3f} target accuracy {acc_t:.3f}")
assert acc_s > 0.9 and acc_t > 0.75
