"""A two-layer graph convolutional network over a sparse normalized adjacency (torch.spmm)."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

def normalize_adj(edges, n):
    adj = np.zeros((n, n), dtype=np.float32)
    for a, b in edges:
        adj[a, b] = adj[b, a] = 1.0
    adj += np.eye(n, dtype=np.float32)
    d = adj.sum(1)
    d_inv = np.power(d, -0.5)
    return d_inv[:, None] * adj * d_inv[None, :]

def sparse_mx_to_torch_sparse_tensor(mx):
    rows, cols = np.nonzero(mx)
    indices = torch.from_numpy(np.vstack((rows, cols)).astype(np.int64))
    values = torch.from_numpy(mx[rows, cols])
    shape = torch.Size(mx.shape)
    return torch.sparse_coo_tensor(indices, values, shape)

class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(torch.FloatTensor(out_features))
        stdv = 1.0 / np.sqrt(out_features)
        self.weight.data.uniform_(-stdv, stdv)
        self.bias.data.uniform_(-stdv, stdv)

    def forward(self, x, adj):
        support = torch.mm(x, self.weight)
        return torch.spmm(adj, support) + self.bias

class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout=0.5):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        return F.log_softmax(self.gc2(x, adj), dim=1)

rng = np.random.default_rng(0)
n = 60
labels_np = np.repeat([0, 1, 2], 20)
edges = [(i, j) for i in range(n) for j in range(i + 1, n)
         if rng.random() < (0.3 if labels_np[i] == labels_np[j] else 0.01)]
adj = sparse_mx_to_torch_sparse_tensor(normalize_adj(edges, n))
features = torch.randn(n, 16)
labels = torch.LongTensor(labels_np)
idx_train = torch.LongTensor(list(range(0, 60, 3)))
torch.manual_seed(0)
model = GCN(16, 16, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
model.eval()
pred = model(features, adj).max(1)[1]
acc = pred.eq(labels).double().mean()
print("accuracy", acc.item())
assert acc.item() > 0.8
