"""The FGSM adversarial-example tutorial on a small trained classifier: requires_grad on the
input, F.nll_loss on log_softmax outputs, data.grad.data.sign(), torch.clamp to the valid range,
the tutorial's denorm() of normalized images, .max(1, keepdim=True)[1] predictions, and accuracy
falling as epsilon grows (exactly the sign step's L-infinity size)."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(42)
use_cuda = False
device = torch.device("cuda" if use_cuda and torch.cuda.is_available() else "cpu")
# two classes of 1x8x8 images: a bright left half or a bright right half, plus noise, in [0, 1]
n = 400
labels = torch.randint(0, 2, (n,))
images = torch.rand(n, 1, 8, 8) * 0.5
images[labels == 0, :, :, :4] += 0.3
images[labels == 1, :, :, 4:] += 0.3
images = images.clamp(0, 1)
mean, std = 0.45, 0.25
normalize = lambda t: (t - mean) / std
train_loader = DataLoader(TensorDataset(normalize(images[:300]), labels[:300]), batch_size=32, shuffle=True)
test_loader = DataLoader(TensorDataset(normalize(images[300:]), labels[300:]), batch_size=1, shuffle=True)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(4 * 3 * 3, 16)
        self.fc2 = nn.Linear(16, 2)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net().to(device)
optimizer = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(5):
    model.train()
    for data, target in train_loader:
        optimizer.zero_grad()
        F.nll_loss(model(data), target).backward()
        optimizer.step()
model.eval()


def fgsm_attack(image, epsilon, data_grad):
    sign_data_grad = data_grad.sign()
    perturbed_image = image + epsilon * sign_data_grad
    perturbed_image = torch.clamp(perturbed_image, 0, 1)
    return perturbed_image


def denorm(batch, mean=[mean], std=[std]):
    if isinstance(mean, list):
        mean = torch.tensor(mean).to(device)
    if isinstance(std, list):
        std = torch.tensor(std).to(device)
    return batch * std.view(1, -1, 1, 1) + mean.view(1, -1, 1, 1)


def test(model, device, test_loader, epsilon):
    correct = 0
    adv_examples = []
    for data, target in test_loader:
        data, target = data.to(device), target.to(device)
        data.requires_grad = True
        output = model(data)
        init_pred = output.max(1, keepdim=True)[1]
        if init_pred.item() != target.item():
            continue
        loss = F.nll_loss(output, target)
        model.zero_grad()
        loss.backward()
        data_grad = data.grad.data
        data_denorm = denorm(data)
        perturbed_data = fgsm_attack(data_denorm, epsilon, data_grad)
        assert (perturbed_data - data_denorm).abs().max() <= epsilon + 1e-6
        perturbed_data_normalized = normalize(perturbed_data)
        output = model(perturbed_data_normalized)
        final_pred = output.max(1, keepdim=True)[1]
        if final_pred.item() == target.item():
            correct += 1
        elif len(adv_examples) < 5:
            adv_ex = perturbed_data.squeeze().detach().cpu().numpy()
            adv_examples.append((init_pred.item(), final_pred.item(), adv_ex))
    final_acc = correct / float(len(test_loader))
    print(f"Epsilon: {epsilon}\tTest Accuracy = {correct} / {len(test_loader)} = {final_acc}")
    return final_acc, adv_examples


accuracies = []
examples = []
for eps in [0, 0.05, 0.1, 0.2, 0.4]:
    acc, ex = test(model, device, test_loader, eps)
    accuracies.append(acc)
    examples.append(ex)
assert accuracies[0] > 0.9, accuracies
assert accuracies[-1] < accuracies[0] - 0.3 and all(a >= b - 0.05 for a, b in zip(accuracies, accuracies[1:]))
assert examples[-1] and examples[-1][0][2].shape == (8, 8) and examples[-1][0][0] != examples[-1][0][1]
