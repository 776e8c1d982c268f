"""The Udacity deep-learning nanodegree's CNN notebook on synthetic 3x16x16 images: train_on_gpu =
torch.cuda.is_available(), a validation split by np.random.shuffle of indices and
SubsetRandomSampler, a Net with conv/pool/dropout and x.view(-1, 64 * 2 * 2), train and
validation loss accumulated as loss.item() * data.size(0), valid_loss_min = np.inf with
torch.save(model.state_dict(), 'model_cifar.pt') whenever it decreases, reloading the best, then
the test loop with per-class accuracy from np.squeeze(correct_tensor.numpy()) and class_correct
lists, and a prediction for one batch with F.softmax."""
import os
import tempfile

import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim
from minigenesis.utils.data import TensorDataset
from minigenesis.utils.data.sampler import SubsetRandomSampler

train_on_gpu = torch.cuda.is_available()
if not train_on_gpu:
    print("CUDA is not available.  Training on CPU ...")

np.random.seed(0)
torch.manual_seed(0)
num_workers = 0
batch_size = 20
valid_size = 0.2
classes = ["stripes", "checks", "ring", "blank"]


def make_images(n):
    labels = torch.randint(0, 4, (n,))
    yy, xx = torch.meshgrid(torch.arange(16.0), torch.arange(16.0), indexing="ij")
    patterns = torch.stack([
        torch.sin(xx),
        torch.sign(torch.sin(xx / 2) * torch.sin(yy / 2)),
        ((xx - 7.5) ** 2 + (yy - 7.5) ** 2 - 25).abs().lt(8).float(),
        torch.zeros(16, 16),
    ])
    images = patterns[labels].unsqueeze(1).repeat(1, 3, 1, 1) + 0.5 * torch.randn(n, 3, 16, 16)
    return TensorDataset(images, labels)


train_data, test_data = make_images(800), make_images(200)
num_train = len(train_data)
indices = list(range(num_train))
np.random.shuffle(indices)
split = int(np.floor(valid_size * num_train))
train_idx, valid_idx = indices[split:], indices[:split]
train_sampler = SubsetRandomSampler(train_idx)
valid_sampler = SubsetRandomSampler(valid_idx)
train_loader = torch.utils.data.DataLoader(train_data, batch_size=batch_size, sampler=train_sampler, num_workers=num_workers)
valid_loader = torch.utils.data.DataLoader(train_data, batch_size=batch_size, sampler=valid_sampler, num_workers=num_workers)
test_loader = torch.utils.data.DataLoader(test_data, batch_size=batch_size, num_workers=num_workers)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(64 * 2 * 2, 100)
        self.fc2 = nn.Linear(100, 4)
        self.dropout = nn.Dropout(0.25)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = self.pool(F.relu(self.conv3(x)))
        x = x.view(-1, 64 * 2 * 2)
        x = self.dropout(x)
        x = F.relu(self.fc1(x))
        x = self.dropout(x)
        x = self.fc2(x)
        return x


model = Net()
print(model)
if train_on_gpu:
    model.cuda()
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

n_epochs = 6
valid_loss_min = np.inf
saved_at = []
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model_cifar.pt")
    for epoch in range(1, n_epochs + 1):
        train_loss = 0.0
        valid_loss = 0.0
        model.train()
        for data, target in train_loader:
            if train_on_gpu:
                data, target = data.cuda(), target.cuda()
            optimizer.zero_grad()
            output = model(data)
            loss = criterion(output, target)
            loss.backward()
            optimizer.step()
            train_loss += loss.item() * data.size(0)
        model.eval()
        for data, target in valid_loader:
            if train_on_gpu:
                data, target = data.cuda(), target.cuda()
            output = model(data)
            loss = criterion(output, target)
            valid_loss += loss.item() * data.size(0)
        train_loss = train_loss / len(train_loader.sampler)
        valid_loss = valid_loss / len(valid_loader.sampler)
        print("Epoch: {} \tTraining Loss: {:.6f} \tValidation Loss: {:.6f}".format(epoch, train_loss, valid_loss))
        if valid_loss <= valid_loss_min:
            print("Validation loss decreased ({:.6f} --> {:.6f}).  Saving model ...".format(valid_loss_min, valid_loss))
            torch.save(model.state_dict(), path)
            valid_loss_min = valid_loss
            saved_at.append(epoch)
    model.load_state_dict(torch.load(path))
assert len(train_loader.sampler) == 640 and len(valid_loader.sampler) == 160
assert saved_at[0] == 1

test_loss = 0.0
class_correct = list(0.0 for i in range(4))
class_total = list(0.0 for i in range(4))
model.eval()
for data, target in test_loader:
    output = model(data)
    loss = criterion(output, target)
    test_loss += loss.item() * data.size(0)
    _, pred = torch.max(output, 1)
    correct_tensor = pred.eq(target.data.view_as(pred))
    correct = np.squeeze(correct_tensor.numpy()) if not train_on_gpu else np.squeeze(correct_tensor.cpu().numpy())
    for i in range(len(target)):
        label = target.data[i]
        class_correct[label] += correct[i].item()
        class_total[label] += 1
test_loss = test_loss / len(test_loader.dataset)
print("Test Loss: {:.6f}\n".format(test_loss))
for i in range(4):
    if class_total[i] > 0:
        print("Test Accuracy of %5s: %2d%% (%2d/%2d)" % (
            classes[i], 100 * class_correct[i] / class_total[i], np.sum(class_correct[i]), np.sum(class_total[i])))
overall = 100.0 * np.sum(class_correct) / np.sum(class_total)
print("\nTest Accuracy (Overall): %2d%% (%2d/%2d)" % (overall, np.sum(class_correct), np.sum(class_total)))
assert overall > 90, overall
assert np.sum(class_total) == 200

dataiter = iter(test_loader)
images, labels = next(dataiter)
output = model(images)
probs = F.softmax(output, dim=1)
_, preds_tensor = torch.max(output, 1)
preds = np.squeeze(preds_tensor.numpy())
assert np.allclose(probs.sum(1).detach().numpy(), 1, atol=1e-6)
print("predicted", [classes[p] for p in preds[:5]], "true", [classes[t] for t in labels[:5]])
