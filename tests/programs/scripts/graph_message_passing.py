"""Graph classification with a hand-written MessagePassing base class in the manner of PyTorch
Geometric (propagate calls message, aggregate and update; edge_index is a 2 x E LongTensor of
source -> target), a GIN layer summing neighbours with index_add_, a max-aggregating SAGE layer
through scatter_reduce("amax", include_self=False), and global mean pooling over a batch vector
made by repeat_interleave. Cycles against paths of the same length: a task a sum aggregator can
solve from degrees alone. The graphs are built deterministically."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


class MessagePassing(nn.Module):
    def __init__(self, aggr="add"):
        super().__init__()
        self.aggr = aggr

    def propagate(self, edge_index, x):
        src, dst = edge_index
        msg = self.message(x[src])
        return self.update(self.aggregate(msg, dst, x.size(0)), x)

    def aggregate(self, msg, index, num_nodes):
        out = msg.new_zeros(num_nodes, msg.size(1))
        if self.aggr == "add":
            return out.index_add_(0, index, msg)
        if self.aggr == "max":
            idx = index.unsqueeze(1).expand_as(msg)
            return out.scatter_reduce(0, idx, msg, reduce="amax", include_self=False)
        raise ValueError(self.aggr)

    def message(self, x_j):
        return x_j

    def update(self, aggr_out, x):
        return aggr_out


class GINConv(MessagePassing):
    def __init__(self, dim_in, dim_out):
        super().__init__(aggr="add")
        self.eps = nn.Parameter(torch.zeros(1))
        self.mlp = nn.Sequential(nn.Linear(dim_in, dim_out), nn.ReLU(), nn.Linear(dim_out, dim_out))

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x)

    def update(self, aggr_out, x):
        return self.mlp((1 + self.eps) * x + aggr_out)


class SAGEMaxConv(MessagePassing):
    def __init__(self, dim_in, dim_out):
        super().__init__(aggr="max")
        self.lin_l, self.lin_r = nn.Linear(dim_in, dim_out), nn.Linear(dim_in, dim_out, bias=False)

    def forward(self, x, edge_index):
        return self.propagate(edge_index, x)

    def update(self, aggr_out, x):
        return F.normalize(self.lin_l(aggr_out) + self.lin_r(x), p=2.0, dim=-1)


def graph(n, cycle):
    edges = [(i, i + 1) for i in range(n - 1)] + ([(n - 1, 0)] if cycle else [])
    e = torch.tensor(edges, dtype=torch.long).t()
    return torch.cat([e, e.flip(0)], dim=1)  # undirected: both directions


def batch_graphs(graphs):
    xs, edges, sizes, offset = [], [], [], 0
    for n, cycle in graphs:
        edges.append(graph(n, cycle) + offset)
        xs.append(torch.ones(n, 1))
        sizes.append(n)
        offset += n
    batch = torch.repeat_interleave(torch.arange(len(graphs)), torch.tensor(sizes))
    return torch.cat(xs), torch.cat(edges, dim=1), batch


def global_mean_pool(x, batch, num_graphs):
    sums = x.new_zeros(num_graphs, x.size(1)).index_add_(0, batch, x)
    counts = torch.bincount(batch, minlength=num_graphs).clamp(min=1).unsqueeze(1)
    return sums / counts


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = GINConv(1, 16), SAGEMaxConv(16, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, x, edge_index, batch, num_graphs):
        x = self.conv2(F.relu(self.conv1(x, edge_index)), edge_index)
        return self.head(global_mean_pool(x, batch, num_graphs))


torch.manual_seed(0)
specs = [(n, c) for n in range(4, 12) for c in (True, False)]
labels = torch.tensor([int(c) for _, c in specs])
x, edge_index, batch = batch_graphs(specs)
assert edge_index.shape[0] == 2 and batch.shape[0] == x.shape[0]
model = Net()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(150):
    opt.zero_grad()
    loss = F.cross_entropy(model(x, edge_index, batch, len(specs)), labels)
    loss.backward()
    opt.step()
acc = (model(x, edge_index, batch, len(specs)).argmax(1) == labels).float().mean().item()
print("loss %.4f, accuracy %.3f, eps %.4f" % (loss.item(), acc, model.conv1.eps.item()))
assert acc == 1.0

# permutation invariance: relabelling the nodes of one graph leaves its embedding unchanged
perm = torch.randperm(7)
e = graph(7, True)
inv = torch.empty_like(perm)
inv[perm] = torch.arange(7)
out1 = model(torch.ones(7, 1), e, torch.zeros(7, dtype=torch.long), 1)
out2 = model(torch.ones(7, 1), inv[e], torch.zeros(7, dtype=torch.long), 1)
print("relabelled graph logits differ by %.2e" % (out1 - out2).abs().max().item())
assert torch.allclose(out1, out2, atol=1e-5)
