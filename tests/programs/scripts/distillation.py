"""Knowledge distillation: a large teacher MLP is trained, then a small student learns from the
teacher's temperature-softened outputs (KLDivLoss on log_softmax / T, scaled by T^2) plus the labels."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def spirals(n_per_class=200, classes=3):
    xs, ys = [], []
    for c in range(classes):
        r = torch.linspace(0.1, 1.0, n_per_class)
        theta = c * 2 * torch.pi / classes + r * 4 + 0.2 * torch.randn(n_per_class)
        xs.append(torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1))
        ys.append(torch.full((n_per_class,), c, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


X, Y = spirals()
X_test, Y_test = spirals(100)
loader = DataLoader(TensorDataset(X, Y), batch_size=50, shuffle=True)


def mlp(hidden, layers):
    mods, d = [], 2
    for _ in range(layers):
        mods += [nn.Linear(d, hidden), nn.ReLU()]
        d = hidden
    return nn.Sequential(*mods, nn.Linear(d, 3))


def accuracy(model):
    model.eval()
    with torch.inference_mode():
        return (model(X_test).argmax(1) == Y_test).float().mean().item()


teacher = mlp(128, 3)
opt = torch.optim.Adam(teacher.parameters(), lr=1e-2)
for epoch in range(12):
    teacher.train()
    for xb, yb in loader:
        opt.zero_grad()
        F.cross_entropy(teacher(xb), yb).backward()
        opt.step()
teacher_acc = accuracy(teacher)
print(f"teacher accuracy {teacher_acc:.3f}, {sum(p.numel() for p in teacher.parameters())} parameters")

T, alpha = 4.0, 0.7
kl = nn.KLDivLoss(reduction="batchmean")


def distillation_loss(student_logits, teacher_logits, labels):
    soft = kl(F.log_softmax(student_logits / T, dim=1), F.softmax(teacher_logits / T, dim=1)) * T * T
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard


student = mlp(32, 2)
opt = torch.optim.Adam(student.parameters(), lr=1e-2)
teacher.eval()
for epoch in range(12):
    student.train()
    for xb, yb in loader:
        with torch.no_grad():
            teacher_logits = teacher(xb)
        loss = distillation_loss(student(xb), teacher_logits, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
student_acc = accuracy(student)
print(f"student accuracy {student_acc:.3f}, {sum(p.numel() for p in student.parameters())} parameters")

# KLDivLoss(batchmean) is sum p (log p - log q) / batch
with torch.no_grad():
    s, t = student(X_test[:8]), teacher(X_test[:8])
    log_q, p = F.log_softmax(s / T, 1), F.softmax(t / T, 1)
    assert torch.allclose(kl(log_q, p), (p * (p.log() - log_q)).sum() / 8, atol=1e-6)
    assert torch.allclose(F.kl_div(log_q, p.log(), reduction="batchmean", log_target=True), kl(log_q, p), atol=1e-6)
assert teacher_acc > 0.9
assert student_acc > 0.8
