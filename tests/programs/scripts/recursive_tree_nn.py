"""A recursive neural network over binary parse trees, the dynamic-graph showcase of early
PyTorch: each tree is a nested tuple, composed bottom-up by a Python recursion with a
Tree-LSTM-like gated cell (the graph is different for every example), and labelled by whether the
arithmetic expression it spells evaluates to a positive number. Leaves are digits and the
operators + and -; the trees are generated from Python's random with a fixed seed."""
import random

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

VOCAB = {str(d): d for d in range(10)}
VOCAB.update({"+": 10, "-": 11})


def random_tree(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return str(rng.randint(0, 9))
    return (random_tree(rng, depth - 1), rng.choice("+-"), random_tree(rng, depth - 1))


def evaluate(tree):
    if isinstance(tree, str):
        return int(tree)
    left, op, right = tree
    return evaluate(left) + evaluate(right) if op == "+" else evaluate(left) - evaluate(right)


class BinaryTreeLSTM(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(len(VOCAB), dim)
        self.leaf = nn.Linear(dim, 2 * dim)
        self.compose = nn.Linear(3 * dim, 5 * dim)  # i, f_left, f_right, o, u
        self.head = nn.Linear(dim, 2)

    def node(self, tree):
        if isinstance(tree, str):
            x = self.embed(torch.tensor(VOCAB[tree]))
            c, h = self.leaf(x).chunk(2)
            return c, torch.tanh(h)
        left, op, right = tree
        (c_l, h_l), (c_r, h_r) = self.node(left), self.node(right)
        gates = self.compose(torch.cat([h_l, self.embed(torch.tensor(VOCAB[op])), h_r]))
        i, f_l, f_r, o, u = gates.chunk(5)
        c = torch.sigmoid(i) * torch.tanh(u) + torch.sigmoid(f_l) * c_l + torch.sigmoid(f_r) * c_r
        return c, torch.sigmoid(o) * torch.tanh(c)

    def forward(self, tree):
        return self.head(self.node(tree)[1])


rng = random.Random(0)
trees = [random_tree(rng, 3) for _ in range(600)]
trees = [t for t in trees if evaluate(t) != 0]
labels = [int(evaluate(t) > 0) for t in trees]
train, test = list(zip(trees, labels))[:400], list(zip(trees, labels))[400:]
print("trees: %d train, %d test, positive fraction %.3f" % (len(train), len(test), sum(labels) / len(labels)))

torch.manual_seed(0)
model = BinaryTreeLSTM()
opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
batch = 25
for epoch in range(3):
    rng.shuffle(train)
    total = 0.0
    for start in range(0, len(train), batch):
        chunk = train[start:start + batch]
        logits = torch.stack([model(t) for t, _ in chunk])  # one graph per tree, batched by stacking
        loss = F.cross_entropy(logits, torch.tensor([y for _, y in chunk]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(chunk)
    print("epoch %d mean loss %.4f" % (epoch, total / len(train)))
with torch.no_grad():
    acc = sum(int(model(t).argmax().item() == y) for t, y in test) / len(test)
majority = max(sum(y for _, y in test), len(test) - sum(y for _, y in test)) / len(test)
print("test accuracy %.3f (majority class %.3f)" % (acc, majority))
assert acc > majority + 0.1
