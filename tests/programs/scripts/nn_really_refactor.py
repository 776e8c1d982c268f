""""What is torch.nn really?" step by step on a synthetic MNIST stand-in (28x28 images of two
crossing strokes, ten classes): a model from raw tensors (weights / math.sqrt(784),
requires_grad_(), a hand-written log_softmax and nll, updates under no_grad), then F.cross_entropy,
nn.Module with nn.Parameter, nn.Linear, optim.SGD, TensorDataset, DataLoader, a fit() with
model.train()/model.eval(), a Lambda module, a WrappedDataLoader doing the preprocessing, and the
CNN from Conv2d/ReLU/AdaptiveAvgPool2d inside nn.Sequential."""
import math
import numpy as np
import minigenesis as torch
import minigenesis.nn.functional as F
from minigenesis import nn, optim
from minigenesis.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(0)


def make_images(n):
    """Class k: a bright row at 2 + 2k and a bright column at 25 - 2k, on noise."""
    labels = rng.integers(0, 10, n)
    images = rng.uniform(0, 0.3, (n, 28, 28)).astype(np.float32)
    for i, k in enumerate(labels):
        images[i, 2 + 2 * k, :] += 0.7
        images[i, :, 25 - 2 * k] += 0.7
    return images.reshape(n, 784), labels


x_train, y_train = make_images(320)
x_valid, y_valid = make_images(128)
x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
n, c = x_train.shape
print(x_train.shape, y_train.min().item(), y_train.max().item())
assert y_train.dtype == torch.int64

# the model from raw tensors
torch.manual_seed(0)
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    return -input[range(target.shape[0]), target].mean()


loss_func = nll


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
yb = y_train[0:bs]
print(loss_func(preds, yb), accuracy(preds, yb))
start_loss = loss_func(preds, yb).item()
lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print("raw tensors:", loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item())
assert loss_func(model(xb), yb).item() < start_loss
# F.cross_entropy = log_softmax + nll
assert torch.allclose(F.cross_entropy(xb @ weights + bias, yb), loss_func(model(xb), yb), atol=1e-5)


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


loss_func = F.cross_entropy
model = Mnist_Logistic()
with torch.no_grad():
    before = loss_func(model(xb), yb).item()
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = x_train[i * bs: i * bs + bs], y_train[i * bs: i * bs + bs]
        loss = loss_func(model(xb), yb)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= p.grad * lr
            model.zero_grad()
print("nn.Module:", before, "->", loss_func(model(xb), yb).item())
assert all(p.grad is None for p in model.parameters())  # zero_grad sets them to None


class Mnist_Logistic2(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(valid_ds, batch_size=bs * 2))


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


history = []


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        print(epoch, val_loss)
        history.append(val_loss)
    return val_loss


train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model = Mnist_Logistic2()
opt = optim.SGD(model.parameters(), lr=lr)
val_linear = fit(epochs, model, loss_func, opt, train_dl, valid_dl)
assert val_linear < 1.0


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x, y):
    return x.view(-1, 1, 28, 28), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield (self.func(*b))


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
assert len(train_dl) == 5
model = nn.Sequential(
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
history.clear()
val_cnn = fit(4, model, loss_func, opt, train_dl, valid_dl)
model.eval()
with torch.no_grad():
    acc = sum(accuracy(model(xb), yb).item() * len(yb) for xb, yb in valid_dl) / len(valid_ds)
print(f"CNN validation loss {val_cnn:.3f}, accuracy {acc:.3f}")
assert isinstance(model[-1], Lambda) and model(torch.zeros(2, 1, 28, 28)).shape == (2, 10)
assert val_cnn < history[0] < math.log(10) + 0.1  # it learns, from chance
