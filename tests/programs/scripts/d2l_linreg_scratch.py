"""d2l.ai's linear regression from scratch: synthetic_data, a data_iter generator that shuffles
indices, linreg, squared_loss, sgd(params, lr, batch_size) under torch.no_grad(); then the
concise version with TensorDataset, DataLoader, nn.Sequential(nn.Linear) and nn.MSELoss; both
against the least-squares solution."""
import random

import minigenesis as torch
from minigenesis import nn
from minigenesis.utils import data


def synthetic_data(w, b, num_examples):
    X = torch.normal(0, 1, (num_examples, len(w)))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = list(range(num_examples))
    random.shuffle(indices)
    for i in range(0, num_examples, batch_size):
        batch_indices = torch.tensor(indices[i : min(i + batch_size, num_examples)])
        yield features[batch_indices], labels[batch_indices]


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()


random.seed(0)
true_w = torch.tensor([2, -3.4])
true_b = 4.2
features, labels = synthetic_data(true_w, true_b, 1000)

w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
lr, num_epochs, batch_size = 0.03, 3, 10
for epoch in range(num_epochs):
    for X, y in data_iter(batch_size, features, labels):
        l = squared_loss(linreg(X, w, b), y)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = squared_loss(linreg(features, w, b), labels)
        print(f"epoch {epoch + 1}, loss {float(train_l.mean()):f}")

print(f"error in estimating w: {true_w - w.reshape(true_w.shape)}")
print(f"error in estimating b: {true_b - b}")

# least squares with a column of ones
A = torch.cat([features, torch.ones(len(features), 1)], dim=1)
sol = torch.linalg.lstsq(A, labels).solution.squeeze()
assert torch.allclose(w.detach().squeeze(), sol[:2], atol=2e-3), (w, sol)
assert abs(b.item() - sol[2].item()) < 2e-3

# the concise implementation
dataset = data.TensorDataset(features, labels)
data_loader = data.DataLoader(dataset, batch_size, shuffle=True)
net = nn.Sequential(nn.Linear(2, 1))
net[0].weight.data.normal_(0, 0.01)
net[0].bias.data.fill_(0)
loss = nn.MSELoss()
trainer = torch.optim.SGD(net.parameters(), lr=0.03)
for epoch in range(num_epochs):
    for X, y in data_loader:
        l = loss(net(X), y)
        trainer.zero_grad()
        l.backward()
        trainer.step()
    l = loss(net(features), labels)
    print(f"epoch {epoch + 1}, loss {l:f}")
assert torch.allclose(net[0].weight.data.squeeze(), sol[:2], atol=2e-3)
assert abs(net[0].bias.data.item() - sol[2].item()) < 2e-3
print("w", net[0].weight.data, "b", net[0].bias.data)
