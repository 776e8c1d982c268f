"""Prototypical networks for few-shot classification: each episode samples N classes with
torch.randperm, K support and Q query examples per class, class prototypes are the mean support
embeddings, and queries are classified by log_softmax over negative squared Euclidean distances
(torch.cdist squared). Training classes and test classes are disjoint; the test accuracy of
5-way 1-shot and 5-shot episodes is reported against chance (0.2)."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n_classes, per_class, dim = 40, 20, 20
centers = torch.randn(n_classes, dim) * 1.5
data = centers.unsqueeze(1) + torch.randn(n_classes, per_class, dim)  # (class, example, feature)
data = torch.tanh(data @ torch.randn(dim, dim) / dim**0.5)  # a nonlinear view of the clusters
train_classes, test_classes = torch.arange(0, 30), torch.arange(30, 40)


def sample_episode(classes, n_way, k_shot, n_query):
    chosen = classes[torch.randperm(len(classes))[:n_way]]
    support, query = [], []
    for c in chosen:
        idx = torch.randperm(per_class)[: k_shot + n_query]
        support.append(data[c, idx[:k_shot]])
        query.append(data[c, idx[k_shot:]])
    targets = torch.arange(n_way).repeat_interleave(n_query)
    return torch.stack(support), torch.cat(query), targets


class ProtoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, support, query):
        n_way, k_shot, _ = support.shape
        prototypes = self.encoder(support.reshape(n_way * k_shot, -1)).view(n_way, k_shot, -1).mean(1)
        dists = torch.cdist(self.encoder(query), prototypes) ** 2
        return F.log_softmax(-dists, dim=1)


model = ProtoNet()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=100, gamma=0.5)
for episode in range(200):
    support, query, targets = sample_episode(train_classes, n_way=10, k_shot=5, n_query=5)
    log_p = model(support, query)
    loss = F.nll_loss(log_p, targets)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if episode % 50 == 0:
        acc = (log_p.argmax(1) == targets).float().mean()
        print("episode %3d loss %.4f acc %.3f" % (episode, loss.item(), acc.item()))

model.eval()
with torch.no_grad():
    for k_shot in (1, 5):
        accs = []
        for _ in range(50):
            support, query, targets = sample_episode(test_classes, n_way=5, k_shot=k_shot, n_query=10)
            accs.append((model(support, query).argmax(1) == targets).float().mean())
        acc = torch.stack(accs).mean().item()
        print("5-way %d-shot test accuracy %.3f" % (k_shot, acc))
        assert acc > 0.6
