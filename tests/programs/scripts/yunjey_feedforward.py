"""yunjey's pytorch-tutorial basics in one file with hyper-parameters at the top: the basics'
autograd example (dl/dw checked by hand) and the NumPy bridge, logistic regression (nn.Linear +
nn.CrossEntropyLoss) and a feed-forward net, each a train loop printing 'Epoch [{}/{}], Step
[{}/{}], Loss: {:.4f}', a test loop with torch.max(outputs.data, 1) and (predicted ==
labels).sum().item(), then torch.save(model.state_dict(), 'model.ckpt') and reloading it."""
import os
import tempfile

import numpy as np
import minigenesis as torch
import minigenesis.nn as nn

# Device configuration
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Hyper-parameters
input_size = 64
hidden_size = 100
num_classes = 5
num_epochs = 3
batch_size = 50
learning_rate = 0.05

torch.manual_seed(0)

# ================================================================== #
#                         Basic autograd example 1                   #
# ================================================================== #
x = torch.tensor(1.0, requires_grad=True)
w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
y = w * x + b
y.backward()
print(x.grad, w.grad, b.grad)
assert (x.grad.item(), w.grad.item(), b.grad.item()) == (2.0, 1.0, 1.0)

# Basic autograd example 2
x = torch.randn(10, 3)
y = torch.randn(10, 2)
linear = nn.Linear(3, 2)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(linear.parameters(), lr=0.01)
pred = linear(x)
loss = criterion(pred, y)
print("loss: ", loss.item())
loss.backward()
expected = 2 * (pred - y).detach().t() @ x / pred.numel()
assert torch.allclose(linear.weight.grad, expected, atol=1e-6)
w_before = linear.weight.detach().clone()
optimizer.step()
assert torch.allclose(linear.weight.data, w_before - 0.01 * linear.weight.grad)
pred = linear(x)
loss2 = criterion(pred, y)
print("loss after 1 step optimization: ", loss2.item())
assert loss2.item() < loss.item()

# Loading data from numpy
x = np.array([[1, 2], [3, 4]])
y = torch.from_numpy(x)
z = y.numpy()
assert (z == x).all() and y.dtype == torch.int64

# a synthetic "MNIST": 8x8 digits from five prototypes
prototypes = torch.rand(num_classes, 8, 8)
def make(n):
    labels = torch.randint(0, num_classes, (n,))
    images = (prototypes[labels] + 0.35 * torch.randn(n, 8, 8)).unsqueeze(1)
    return torch.utils.data.TensorDataset(images, labels)

train_dataset, test_dataset = make(1000), make(300)
train_loader = torch.utils.data.DataLoader(dataset=train_dataset, batch_size=batch_size, shuffle=True)
test_loader = torch.utils.data.DataLoader(dataset=test_dataset, batch_size=batch_size, shuffle=False)


# Logistic regression model
model = nn.Linear(input_size, num_classes)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)
total_step = len(train_loader)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        images = images.reshape(-1, input_size)
        outputs = model(images)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 10 == 0:
            print("Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}".format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))

with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.reshape(-1, input_size)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum()
    print("Accuracy of the model on the test images: {} %".format(100 * correct / total))
assert 100 * correct / total > 85


# Fully connected neural network with one hidden layer
class NeuralNet(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super(NeuralNet, self).__init__()
        self.fc1 = nn.Linear(input_size, hidden_size)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(hidden_size, num_classes)

    def forward(self, x):
        out = self.fc1(x)
        out = self.relu(out)
        out = self.fc2(out)
        return out


model = NeuralNet(input_size, hidden_size, num_classes).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
for epoch in range(num_epochs):
    for i, (images, labels) in enumerate(train_loader):
        images = images.reshape(-1, 8 * 8).to(device)
        labels = labels.to(device)
        outputs = model(images)
        loss = criterion(outputs, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if (i + 1) % 10 == 0:
            print("Epoch [{}/{}], Step [{}/{}], Loss: {:.4f}".format(epoch + 1, num_epochs, i + 1, total_step, loss.item()))

with torch.no_grad():
    correct = 0
    total = 0
    for images, labels in test_loader:
        images = images.reshape(-1, 8 * 8).to(device)
        labels = labels.to(device)
        outputs = model(images)
        _, predicted = torch.max(outputs.data, 1)
        total += labels.size(0)
        correct += (predicted == labels).sum().item()
    accuracy = 100 * correct / total
    print("Accuracy of the network on the test images: {} %".format(accuracy))
assert accuracy > 90

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model.ckpt")
    torch.save(model.state_dict(), path)
    restored = NeuralNet(input_size, hidden_size, num_classes)
    restored.load_state_dict(torch.load(path))
    images, _ = test_dataset[:10]
    assert torch.equal(restored(images.reshape(-1, 64)), model(images.reshape(-1, 64)))
