"""Knowledge distillation between two 1-d CNNs on synthetic signals (which of four frequencies):
the teacher is trained, frozen (teacher.eval(), requires_grad_(False)) and queried under
torch.no_grad(); the student learns from nn.KLDivLoss(reduction="batchmean") between
temperature-softened log-probabilities, scaled by T * T, plus the labels and a FitNets hint
(MSE between a 1x1 Conv1d regressor of its features and the teacher's)."""
import math
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
L, n_classes = 64, 4


def signals(n):
    y = torch.randint(0, n_classes, (n,))
    t = torch.arange(L).float()
    freq = (y.float() + 1).unsqueeze(1) * 2 * math.pi / 16
    phase = torch.rand(n, 1) * 2 * math.pi
    x = torch.sin(freq * t + phase) + 0.8 * torch.randn(n, L)
    return x.unsqueeze(1), y


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, width, kernel_size=7, padding=3, bias=False), nn.BatchNorm1d(width), nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(width, width, kernel_size=5, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(8))
        self.classifier = nn.Linear(width * 8, n_classes)

    def forward(self, x, return_features=False):
        f = self.features(x)
        logits = self.classifier(torch.flatten(f, 1))
        return (logits, f) if return_features else logits


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


x_train, y_train = signals(1024)
x_test, y_test = signals(512)
loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=True)

teacher = Net(16)
opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
for epoch in range(3):
    teacher.train()
    for xb, yb in loader:
        opt.zero_grad()
        F.cross_entropy(teacher(xb), yb).backward()
        opt.step()
teacher_acc = accuracy(teacher, x_test, y_test)
print(f"teacher accuracy {teacher_acc:.3f}")
teacher.eval()
teacher.zero_grad(set_to_none=True)
teacher.requires_grad_(False)

T, alpha = 4.0, 0.7
student = Net(8)
regressor = nn.Conv1d(8, 16, kernel_size=1)
kl_div = nn.KLDivLoss(reduction="batchmean")
opt = torch.optim.Adam(list(student.parameters()) + list(regressor.parameters()), lr=1e-2)
for epoch in range(4):
    student.train()
    for xb, yb in loader:
        with torch.no_grad():
            t_logits, t_feat = teacher(xb, return_features=True)
        s_logits, s_feat = student(xb, return_features=True)
        soft = kl_div(F.log_softmax(s_logits / T, dim=1), F.softmax(t_logits / T, dim=1)) * (T * T)
        hard = F.cross_entropy(s_logits, yb)
        hint = F.mse_loss(regressor(s_feat), t_feat)
        loss = alpha * soft + (1 - alpha) * hard + 0.1 * hint
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: soft {soft.item():.4f} hard {hard.item():.4f} hint {hint.item():.4f}")
student_acc = accuracy(student, x_test, y_test)
print(f"student accuracy {student_acc:.3f}")

# batchmean is the sum over classes averaged over the batch: sum p (log p - log q) / N
logq = F.log_softmax(torch.randn(5, n_classes), dim=1)
p = F.softmax(torch.randn(5, n_classes), dim=1)
assert torch.allclose(kl_div(logq, p), (p * (p.log() - logq)).sum() / 5, atol=1e-6)
assert all(not q.requires_grad for q in teacher.parameters())
assert all(q.grad is None for q in teacher.parameters())
assert teacher_acc > 0.9 and student_acc > 0.8, (teacher_acc, student_acc)
