"""Federated averaging: a server model copied to non-IID clients (copy.deepcopy), local SGD
epochs on each, and the server's state_dict replaced by the weighted average of the clients'
state_dicts (BatchNorm buffers included, num_batches_tracked kept integral), for a few rounds."""
import copy
from collections import OrderedDict
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, Subset, TensorDataset

torch.manual_seed(0)
n, d, k = 1200, 20, 4
centers = torch.randn(k, d) * 1.5
y = torch.randint(0, k, (n,))
x = centers[y] + torch.randn(n, d)
full = TensorDataset(x[:1000], y[:1000])
# non-IID: each client mostly sees two classes
clients = []
for c in range(4):
    keep = ((y[:1000] == c) | (y[:1000] == (c + 1) % k)).nonzero().squeeze(1)
    clients.append(Subset(full, keep.tolist()))


def make_model():
    return nn.Sequential(nn.Linear(d, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, k))


def local_update(model, dataset, epochs=1):
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for _ in range(epochs):
        for xb, yb in DataLoader(dataset, batch_size=32, shuffle=True):
            opt.zero_grad()
            F.cross_entropy(model(xb), yb).backward()
            opt.step()
    return model.state_dict()


def average(states, weights):
    total = sum(weights)
    avg = OrderedDict()
    for key in states[0]:
        if states[0][key].dtype == torch.long:
            avg[key] = states[0][key].clone()
            continue
        avg[key] = sum(s[key] * (w / total) for s, w in zip(states, weights))
    return avg


def evaluate(model):
    model.eval()
    with torch.no_grad():
        return (model(x[1000:]).argmax(1) == y[1000:]).float().mean().item()


server = make_model()
start = evaluate(server)
for rnd in range(5):
    states, sizes = [], []
    for ds in clients:
        local = copy.deepcopy(server)
        states.append(local_update(local, ds))
        sizes.append(len(ds))
    server.load_state_dict(average(states, sizes))
    print(f"round {rnd}: accuracy {evaluate(server):.3f}")
assert server[1].num_batches_tracked.dtype == torch.long
single = make_model()
local_update(single, clients[0], epochs=5)
print(f"server {evaluate(server):.3f}, one client alone {evaluate(single):.3f}, start {start:.3f}")
assert evaluate(server) > 0.85 and evaluate(server) > evaluate(single) + 0.2
