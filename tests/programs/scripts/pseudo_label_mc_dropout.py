"""Semi-supervised learning by pseudo-labelling with a mean teacher, as FixMatch-style notebooks
write it: 40 labelled and 1000 unlabelled points, the teacher's confident predictions picked
with idx = torch.where(conf > threshold)[0], the teacher initialised with
t.copy_(s, non_blocking=True) and then an EMA of the student, and Monte-Carlo dropout estimates
taken inside torch.random.fork_rng() so that evaluating does not change the training stream."""
import copy

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def two_moons(n, noise=0.1):
    t = torch.rand(n) * 3.1416
    upper = torch.stack([torch.cos(t), torch.sin(t)], 1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], 1)
    y = torch.randint(0, 2, (n,))
    x = torch.where(y[:, None] == 0, upper, lower) + noise * torch.randn(n, 2)
    return x, y


x_lab, y_lab = two_moons(40)
x_unl, y_unl_hidden = two_moons(1000)
x_test, y_test = two_moons(500)

student = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 2))
teacher = copy.deepcopy(student)
with torch.no_grad():
    for t, s in zip(teacher.parameters(), student.parameters()):
        t.copy_(s, non_blocking=True)
for p in teacher.parameters():
    p.requires_grad_(False)
opt = torch.optim.Adam(student.parameters(), lr=1e-2)


def mc_dropout_predict(model, x, passes=20):
    with torch.random.fork_rng():
        model.train()
        probs = torch.stack([F.softmax(model(x), dim=1) for _ in range(passes)])
    return probs.mean(0), probs.var(0).sum(1)


threshold, n_selected = 0.95, []
for step in range(300):
    loss = F.cross_entropy(student(x_lab), y_lab)
    if step >= 100:
        teacher.eval()
        with torch.no_grad():
            conf, pseudo = F.softmax(teacher(x_unl), dim=1).max(1)
        idx = torch.where(conf > threshold)[0]
        n_selected.append(len(idx))
        if len(idx) > 0:
            loss = loss + F.cross_entropy(student(x_unl[idx] + 0.05 * torch.randn(len(idx), 2)), pseudo[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        for t, s in zip(teacher.parameters(), student.parameters()):
            t.mul_(0.95).add_(s, alpha=0.05)

state = torch.random.get_rng_state()
mean_p, uncertainty = mc_dropout_predict(teacher, x_test)
assert torch.equal(torch.random.get_rng_state(), state), "fork_rng restores the stream"
teacher.eval()
with torch.no_grad():
    acc = (teacher(x_test).argmax(1) == y_test).float().mean().item()
mc_acc = (mean_p.argmax(1) == y_test).float().mean().item()
wrong = mean_p.argmax(1) != y_test
print(f"pseudo-labels used: {n_selected[0]} -> {n_selected[-1]}; teacher accuracy {acc:.3f}, MC-dropout {mc_acc:.3f}")
assert n_selected[-1] > n_selected[0] and n_selected[-1] > 500
assert acc > 0.9 and mc_acc > 0.9
if wrong.any():
    assert uncertainty[wrong].mean() > uncertainty[~wrong].mean()  # errors are the uncertain ones
