"""A spatial transformer network as in the STN tutorial: a localisation nn.Sequential
(Conv2d/MaxPool2d/ReLU) and an fc_loc regressor whose last Linear starts at the identity
transform (weight.data.zero_(), bias.data.copy_), F.affine_grid + F.grid_sample
(align_corners=False), trained on shifted digit-like patterns; plus checks of the sampler itself:
the identity theta reproduces the input, a translation by one pixel in normalized coordinates
moves it, and gradients reach theta."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(1)

# the sampler on its own
img = torch.arange(16.0).view(1, 1, 4, 4)
identity = torch.tensor([[[1.0, 0, 0], [0, 1.0, 0]]])
grid = F.affine_grid(identity, img.size(), align_corners=False)
assert grid.shape == (1, 4, 4, 2) and torch.allclose(grid[0, 0, 0], torch.tensor([-0.75, -0.75]))
assert torch.allclose(F.grid_sample(img, grid, align_corners=False), img)
shift = torch.tensor([[[1.0, 0, 1.0], [0, 1.0, 0]]])  # half the width [-1, 1] is two pixels
moved = F.grid_sample(img, F.affine_grid(shift, img.size(), align_corners=False), align_corners=False)
assert torch.allclose(moved[0, 0, :, :2], img[0, 0, :, 2:]) and (moved[0, 0, :, 2:] == 0).all()
theta = identity.clone().requires_grad_()
F.grid_sample(img, F.affine_grid(theta, img.size(), align_corners=False), align_corners=False).sum().backward()
assert theta.grad is not None and theta.grad.abs().sum() > 0

# data: a 12x12 canvas with a 4x4 glyph (three classes) placed at a random offset
glyphs = torch.zeros(3, 4, 4)
glyphs[0, :, 1:3] = 1  # a vertical bar
glyphs[1, 1:3, :] = 1  # a horizontal bar
glyphs[2] = torch.eye(4)  # a diagonal


def make(n):
    y = torch.randint(0, 3, (n,))
    x = torch.zeros(n, 1, 12, 12)
    offsets = torch.randint(0, 9, (n, 2))
    for i in range(n):
        r, c = offsets[i].tolist()
        x[i, 0, r:r + 4, c:c + 4] = glyphs[y[i]]
    return x + 0.05 * torch.randn_like(x), y


x_train, y_train = make(256)
x_test, y_test = make(128)


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.fc1 = nn.Linear(8 * 6 * 6, 32)
        self.fc2 = nn.Linear(32, 3)
        self.localization = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=3, padding=1),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
            nn.Conv2d(8, 8, kernel_size=3, padding=1),
            nn.MaxPool2d(2, stride=2),
            nn.ReLU(True),
        )
        self.fc_loc = nn.Sequential(nn.Linear(8 * 3 * 3, 32), nn.ReLU(True), nn.Linear(32, 3 * 2))
        self.fc_loc[2].weight.data.zero_()
        self.fc_loc[2].bias.data.copy_(torch.tensor([1, 0, 0, 0, 1, 0], dtype=torch.float))

    def stn(self, x):
        xs = self.localization(x)
        xs = xs.view(-1, 8 * 3 * 3)
        theta = self.fc_loc(xs)
        theta = theta.view(-1, 2, 3)
        grid = F.affine_grid(theta, x.size(), align_corners=False)
        x = F.grid_sample(x, grid, align_corners=False)
        return x

    def forward(self, x):
        x = self.stn(x)
        x = F.relu(F.max_pool2d(self.conv1(x), 2))
        x = x.view(-1, 8 * 6 * 6)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


model = Net()
with torch.no_grad():  # at the start the transformer is the identity
    assert torch.allclose(model.stn(x_test[:4]), x_test[:4], atol=1e-5)
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
for epoch in range(12):
    model.train()
    perm = torch.randperm(256)
    for i in range(0, 256, 32):
        idx = perm[i:i + 32]
        optimizer.zero_grad()
        loss = F.nll_loss(model(x_train[idx]), y_train[idx])
        loss.backward()
        optimizer.step()
model.eval()
with torch.no_grad():
    output = model(x_test)
    test_loss = F.nll_loss(output, y_test, reduction="sum").item() / len(y_test)
    pred = output.max(1, keepdim=True)[1]
    correct = pred.eq(y_test.view_as(pred)).sum().item()
    theta = model.fc_loc(model.localization(x_test).view(-1, 72)).view(-1, 2, 3)
print(f"Test set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(y_test)}; mean theta {theta.mean(0).tolist()}")
assert correct / len(y_test) > 0.6  # chance is 1/3
