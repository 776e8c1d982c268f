"""A graph attention network (GAT) on an edge list, written with index_select, scatter_reduce
("amax") for a stable per-node softmax and index_add_ for message passing: node classification
on a two-community graph with a few labelled nodes."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n_per, n_feat = 40, 8
N = 2 * n_per
labels = torch.cat([torch.zeros(n_per, dtype=torch.long), torch.ones(n_per, dtype=torch.long)])
# dense within communities, sparse across them
prob = torch.where(labels[:, None] == labels[None, :], 0.15, 0.01)
adj = torch.rand(N, N) < prob
adj = (adj | adj.T) & ~torch.eye(N, dtype=torch.bool)
edge_index = adj.nonzero().T  # (2, E): source, target
self_loops = torch.arange(N).repeat(2, 1)
edge_index = torch.cat([edge_index, self_loops], dim=1)
x = torch.randn(N, n_feat) + 0.3 * labels[:, None].float()  # weakly informative features


def segment_softmax(scores, index, num_nodes):
    """Softmax of the edge scores over the edges entering each node."""
    heads = scores.size(1)
    node_max = torch.full((num_nodes, heads), float("-inf")).scatter_reduce(
        0, index.unsqueeze(1).expand(-1, heads), scores, reduce="amax", include_self=True)
    exp = (scores - node_max.index_select(0, index)).exp()
    denom = torch.zeros(num_nodes, heads).index_add_(0, index, exp)
    return exp / denom.index_select(0, index)


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim, heads=4, concat=True):
        super().__init__()
        self.heads, self.out_dim, self.concat = heads, out_dim, concat
        self.lin = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.att_src = nn.Parameter(torch.empty(1, heads, out_dim))
        self.att_dst = nn.Parameter(torch.empty(1, heads, out_dim))
        nn.init.xavier_uniform_(self.lin.weight)
        nn.init.xavier_uniform_(self.att_src)
        nn.init.xavier_uniform_(self.att_dst)

    def forward(self, x, edge_index):
        src, dst = edge_index
        h = self.lin(x).view(-1, self.heads, self.out_dim)
        alpha = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst]
        alpha = segment_softmax(F.leaky_relu(alpha, 0.2), dst, x.size(0))
        self.last_alpha = alpha.detach()
        alpha = F.dropout(alpha, p=0.1, training=self.training)
        out = torch.zeros(x.size(0), self.heads, self.out_dim).index_add_(0, dst, h[src] * alpha.unsqueeze(-1))
        return out.flatten(1) if self.concat else out.mean(1)


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = GATLayer(n_feat, 8, heads=4)
        self.l2 = GATLayer(32, 2, heads=1, concat=False)

    def forward(self, x, edge_index):
        x = F.elu(self.l1(F.dropout(x, 0.2, self.training), edge_index))
        return self.l2(F.dropout(x, 0.2, self.training), edge_index)


train_mask = torch.zeros(N, dtype=torch.bool)
train_mask[torch.cat([torch.randperm(n_per)[:5], n_per + torch.randperm(n_per)[:5]])] = True
model = GAT()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    out = model(x, edge_index)
    loss = F.cross_entropy(out[train_mask], labels[train_mask])
    loss.backward()
    optimizer.step()
    if epoch % 25 == 0:
        print(f"epoch {epoch} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    pred = model(x, edge_index).argmax(1)
    acc = (pred[~train_mask] == labels[~train_mask]).float().mean().item()
    alpha = model.l1.last_alpha
# attention weights entering each node sum to one (per head)
sums = torch.zeros(N, 4).index_add_(0, edge_index[1], alpha)
assert torch.allclose(sums, torch.ones(N, 4), atol=1e-5)
print(f"test accuracy {acc:.3f} on {int((~train_mask).sum())} unlabelled nodes")
assert acc > 0.85
