"""A small CNN: Conv2d(bias=False) + BatchNorm2d + ReLU(inplace=True) blocks, SGD momentum, StepLR."""
import minigenesis as torch
from minigenesis import nn, optim

torch.manual_seed(0)

def conv_bn(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )

class SmallNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(conv_bn(1, 8), nn.MaxPool2d(2), conv_bn(8, 16),
                                      nn.AdaptiveAvgPool2d((1, 1)))
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(x, 1)
        return self.classifier(x)

# images: a bright quadrant tells the class
def make_batch(n):
    labels = torch.randint(0, 4, (n,))
    imgs = torch.randn(n, 1, 12, 12) * 0.3
    for i, c in enumerate(labels.tolist()):
        r, q = divmod(c, 2)
        imgs[i, 0, r * 6:(r + 1) * 6, q * 6:(q + 1) * 6] += 1.0
    return imgs, labels

model = SmallNet()
optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
criterion = nn.CrossEntropyLoss()
for it in range(60):
    inputs, targets = make_batch(32)
    outputs = model(inputs)
    loss = criterion(outputs, targets)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if it % 20 == 0:
        print(it, round(loss.item(), 4), scheduler.get_last_lr())
model.eval()
x, t = make_batch(200)
acc = (model(x).argmax(-1) == t).float().mean().item()
print("accuracy", acc)
assert acc > 0.9
