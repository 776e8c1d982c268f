"""d2l.ai's softmax regression from scratch: softmax by exp and sum(1, keepdim=True),
cross_entropy by fancy indexing y_hat[range(len(y_hat)), y], an Accumulator class, accuracy by
argmax and type casting, updater = sgd by hand; checked against F.cross_entropy and a concise
nn.Sequential(nn.Flatten(), nn.Linear) with nn.CrossEntropyLoss(reduction='none')."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
num_inputs, num_outputs = 6 * 6, 4

# four "fashion" classes: noisy 6x6 prototypes
protos = torch.randn(num_outputs, 1, 6, 6)
def make(n):
    y = torch.randint(0, num_outputs, (n,))
    X = protos[y] + 0.8 * torch.randn(n, 1, 6, 6)
    return X, y
train_X, train_y = make(1200)
test_X, test_y = make(400)

def load_array(X, y, batch_size, is_train=True):
    ds = torch.utils.data.TensorDataset(X, y)
    return torch.utils.data.DataLoader(ds, batch_size, shuffle=is_train)

train_iter = load_array(train_X, train_y, 64)
test_iter = load_array(test_X, test_y, 64, is_train=False)

W = torch.normal(0, 0.01, size=(num_inputs, num_outputs), requires_grad=True)
b = torch.zeros(num_outputs, requires_grad=True)

def softmax(X):
    X_exp = torch.exp(X)
    partition = X_exp.sum(1, keepdim=True)
    return X_exp / partition

X = torch.normal(0, 1, (2, 5))
X_prob = softmax(X)
assert torch.allclose(X_prob.sum(1), torch.ones(2))
assert torch.allclose(X_prob, F.softmax(X, dim=1), atol=1e-6)

def net(X):
    return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)

def cross_entropy(y_hat, y):
    return -torch.log(y_hat[range(len(y_hat)), y])

y = torch.tensor([0, 2])
y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
assert torch.allclose(cross_entropy(y_hat, y), torch.tensor([2.3026, 0.6931]), atol=1e-4)

def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())

class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n
    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]
    def reset(self):
        self.data = [0.0] * len(self.data)
    def __getitem__(self, idx):
        return self.data[idx]

def evaluate_accuracy(net, data_iter):
    if isinstance(net, torch.nn.Module):
        net.eval()
    metric = Accumulator(2)
    with torch.no_grad():
        for X, y in data_iter:
            metric.add(accuracy(net(X), y), y.numel())
    return metric[0] / metric[1]

def train_epoch_ch3(net, train_iter, loss, updater):
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)
        if isinstance(updater, torch.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]

lr = 0.1
def updater(batch_size):
    with torch.no_grad():
        for param in [W, b]:
            param -= lr * param.grad / batch_size
            param.grad.zero_()

for epoch in range(5):
    train_loss, train_acc = train_epoch_ch3(net, train_iter, cross_entropy, updater)
    test_acc = evaluate_accuracy(net, test_iter)
    print(f"epoch {epoch + 1}: loss {train_loss:.3f} train acc {train_acc:.3f} test acc {test_acc:.3f}")
assert test_acc > 0.9, test_acc

# the by-hand loss equals F.cross_entropy of the logits
with torch.no_grad():
    logits = torch.matmul(test_X.reshape(-1, num_inputs), W) + b
    assert torch.allclose(cross_entropy(net(test_X), test_y).mean(), F.cross_entropy(logits, test_y), atol=1e-5)

# concise
net2 = nn.Sequential(nn.Flatten(), nn.Linear(num_inputs, num_outputs))
def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, std=0.01)
net2.apply(init_weights)
loss = nn.CrossEntropyLoss(reduction="none")
trainer = torch.optim.SGD(net2.parameters(), lr=0.1)
for epoch in range(5):
    train_epoch_ch3(net2, train_iter, loss, trainer)
acc2 = evaluate_accuracy(net2, test_iter)
print(f"concise test acc {acc2:.3f}")
assert acc2 > 0.9
