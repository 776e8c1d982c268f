"""CS231n's PyTorch notebook in three levels on synthetic 3x8x8 images: barebones PyTorch (a
flatten helper, two_layer_fc and three_layer_convnet as functions of weight lists, random_weight
with Kaiming normalisation, zero_weight, check_accuracy_part2 and train_part2 updating weights by
hand under torch.no_grad()), then the nn.Module API (TwoLayerFC, ThreeLayerConvNet with
nn.init.kaiming_normal_, check_accuracy_part34 with torch.max(scores, 1), train_part34 with a
device and dtype), then nn.Sequential with a Flatten module and Nesterov momentum."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim
from minigenesis.utils.data import DataLoader, TensorDataset, sampler

USE_GPU = True
dtype = torch.float32
device = torch.device("cuda") if USE_GPU and torch.cuda.is_available() else torch.device("cpu")
print_every = 100
print("using device:", device)

torch.manual_seed(0)
NUM_TRAIN, NUM_VAL = 800, 200
templates = torch.randn(4, 3, 8, 8)
labels = torch.randint(0, 4, (NUM_TRAIN + NUM_VAL + 200,))
images = templates[labels] + 1.0 * torch.randn(len(labels), 3, 8, 8)
train_ds = TensorDataset(images[: NUM_TRAIN + NUM_VAL], labels[: NUM_TRAIN + NUM_VAL])
loader_train = DataLoader(train_ds, batch_size=64, sampler=sampler.SubsetRandomSampler(range(NUM_TRAIN)))
loader_val = DataLoader(train_ds, batch_size=64, sampler=sampler.SubsetRandomSampler(range(NUM_TRAIN, NUM_TRAIN + NUM_VAL)))
loader_test = DataLoader(TensorDataset(images[-200:], labels[-200:]), batch_size=64)


def flatten(x):
    N = x.shape[0]
    return x.view(N, -1)


x = torch.arange(12).view(2, 1, 3, 2)
assert flatten(x).tolist() == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]


# Part II: barebones
def two_layer_fc(x, params):
    x = flatten(x)
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    x = F.relu(F.conv2d(x, conv_w1, conv_b1, padding=2))
    x = F.relu(F.conv2d(x, conv_w2, conv_b2, padding=1))
    scores = flatten(x).mm(fc_w) + fc_b
    return scores


def random_weight(shape):
    if len(shape) == 2:
        fan_in = shape[0]
    else:
        fan_in = np.prod(shape[1:])
    w = torch.randn(shape, device=device, dtype=dtype) * np.sqrt(2.0 / fan_in)
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


x = torch.zeros((64, 3, 8, 8), dtype=dtype)
conv_w1 = torch.zeros((6, 3, 5, 5), dtype=dtype)
conv_b1 = torch.zeros((6,))
conv_w2 = torch.zeros((9, 6, 3, 3), dtype=dtype)
conv_b2 = torch.zeros((9,))
fc_w = torch.zeros((9 * 8 * 8, 4))
fc_b = torch.zeros(4)
scores = three_layer_convnet(x, [conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b])
assert scores.size() == (64, 4)
w = random_weight((3, 5))
assert w.requires_grad and w.shape == (3, 5)


def check_accuracy_part2(loader, model_fn, params):
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)
            y = y.to(device=device, dtype=torch.int64)
            scores = model_fn(x, params)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print("Got %d / %d correct (%.2f%%)" % (num_correct, num_samples, 100 * acc))
    return acc


def train_part2(model_fn, params, learning_rate, epochs=1):
    for _ in range(epochs):
        for t, (x, y) in enumerate(loader_train):
            x = x.to(device=device, dtype=dtype)
            y = y.to(device=device, dtype=torch.long)
            scores = model_fn(x, params)
            loss = F.cross_entropy(scores, y)
            loss.backward()
            with torch.no_grad():
                for w in params:
                    w -= learning_rate * w.grad
                    w.grad.zero_()
            if t % print_every == 0:
                print("Iteration %d, loss = %.4f" % (t, loss.item()))
    return check_accuracy_part2(loader_val, model_fn, params)


hidden_layer_size = 100
w1 = random_weight((3 * 8 * 8, hidden_layer_size))
w2 = random_weight((hidden_layer_size, 4))
acc = train_part2(two_layer_fc, [w1, w2], 1e-2, epochs=3)
assert acc > 0.85, acc

params = [random_weight((6, 3, 5, 5)), zero_weight((6,)), random_weight((9, 6, 3, 3)), zero_weight((9,)),
          random_weight((9 * 8 * 8, 4)), zero_weight((4,))]
acc = train_part2(three_layer_convnet, params, 3e-3, epochs=3)
assert acc > 0.85, acc


# Part III: the Module API
class TwoLayerFC(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        nn.init.kaiming_normal_(self.fc1.weight)
        self.fc2 = nn.Linear(hidden_size, num_classes)
        nn.init.kaiming_normal_(self.fc2.weight)

    def forward(self, x):
        x = flatten(x)
        scores = self.fc2(F.relu(self.fc1(x)))
        return scores


class ThreeLayerConvNet(nn.Module):
    def __init__(self, in_channel, channel_1, channel_2, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, channel_1, 5, padding=2)
        nn.init.kaiming_normal_(self.conv1.weight)
        self.conv2 = nn.Conv2d(channel_1, channel_2, 3, padding=1)
        nn.init.kaiming_normal_(self.conv2.weight)
        self.fc = nn.Linear(channel_2 * 8 * 8, num_classes)
        nn.init.kaiming_normal_(self.fc.weight)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(flatten(x))


def check_accuracy_part34(loader, model):
    num_correct, num_samples = 0, 0
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)
            y = y.to(device=device, dtype=torch.long)
            scores = model(x)
            _, preds = torch.max(scores, 1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print("Got %d / %d correct (%.2f)" % (num_correct, num_samples, 100 * acc))
    return acc


def train_part34(model, optimizer, epochs=1):
    model = model.to(device=device)
    for e in range(epochs):
        for t, (x, y) in enumerate(loader_train):
            model.train()
            x = x.to(device=device, dtype=dtype)
            y = y.to(device=device, dtype=torch.long)
            scores = model(x)
            loss = F.cross_entropy(scores, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if t % print_every == 0:
                print("Epoch %d, Iteration %d, loss = %.4f" % (e, t, loss.item()))
    return check_accuracy_part34(loader_val, model)


model = TwoLayerFC(3 * 8 * 8, 64, 4)
assert model(torch.zeros((64, 3, 8, 8))).size() == (64, 4)
acc = train_part34(model, optim.SGD(model.parameters(), lr=1e-2), epochs=3)
assert acc > 0.85, acc
model = ThreeLayerConvNet(3, 12, 8, 4)
acc = train_part34(model, optim.SGD(model.parameters(), lr=3e-3), epochs=3)
assert acc > 0.85, acc


# Part IV: Sequential
class Flatten(nn.Module):
    def forward(self, x):
        return flatten(x)


model = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    Flatten(), nn.Linear(16 * 4 * 4, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 4),
)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
acc = train_part34(model, optimizer, epochs=3)
assert acc > 0.85, acc
test_acc = check_accuracy_part34(loader_test, model)
assert test_acc > 0.85, test_acc
