"""The transfer-learning tutorial's fixed-feature-extractor recipe on a tiny CNN: pretrain on one
task, freeze every parameter with requires_grad = False, replace the head (model.fc = nn.Linear),
optimise only the head's parameters with SGD + StepLR, keep the best weights by copy.deepcopy of
the state_dict; the frozen weights never change and the new task is learned."""
import copy

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim
from minigenesis.optim import lr_scheduler

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((2, 2)))
        self.fc = nn.Linear(32, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def make(n, task):
    x = torch.randn(n, 1, 8, 8) * 0.3
    quadrant = torch.randint(0, 4, (n,))
    for q in range(4):
        r, c = divmod(q, 2)
        x[quadrant == q, :, r * 4:(r + 1) * 4, c * 4:(c + 1) * 4] += 1.0
    y = quadrant if task == "quadrant" else (quadrant // 2)  # new task: top vs bottom
    return x, y


xa, ya = make(256, "quadrant")
model = Backbone(4)
opt = optim.Adam(model.parameters(), lr=0.01)
for epoch in range(40):
    opt.zero_grad()
    nn.functional.cross_entropy(model(xa), ya).backward()
    opt.step()
for param in model.parameters():
    param.requires_grad = False
frozen = {k: v.clone() for k, v in model.features.state_dict().items()}
num_ftrs = model.fc.in_features
model.fc = nn.Linear(num_ftrs, 2)
assert [n for n, p in model.named_parameters() if p.requires_grad] == ["fc.weight", "fc.bias"]
optimizer_conv = optim.SGD(model.fc.parameters(), lr=0.1, momentum=0.9)
exp_lr_scheduler = lr_scheduler.StepLR(optimizer_conv, step_size=7, gamma=0.1)
criterion = nn.CrossEntropyLoss()
xb, yb = make(200, "top_bottom")
xv, yv = make(100, "top_bottom")
best_acc, best_model_wts = 0.0, copy.deepcopy(model.state_dict())
for epoch in range(15):
    for phase in ["train", "val"]:
        model.train() if phase == "train" else model.eval()
        inputs, labels = (xb, yb) if phase == "train" else (xv, yv)
        optimizer_conv.zero_grad()
        with torch.set_grad_enabled(phase == "train"):
            outputs = model(inputs)
            _, preds = torch.max(outputs, 1)
            loss = criterion(outputs, labels)
            if phase == "train":
                loss.backward()
                optimizer_conv.step()
        if phase == "train":
            exp_lr_scheduler.step()
        epoch_acc = torch.sum(preds == labels.data).double() / len(labels)
        if phase == "val" and epoch_acc > best_acc:
            best_acc, best_model_wts = epoch_acc.item(), copy.deepcopy(model.state_dict())
print("best val acc %.3f lr now %.4f" % (best_acc, optimizer_conv.param_groups[0]["lr"]))
assert abs(optimizer_conv.param_groups[0]["lr"] - 0.1 * 0.1 ** 2) < 1e-9
model.load_state_dict(best_model_wts)
for k, v in model.features.state_dict().items():
    if not k.endswith(("running_mean", "running_var", "num_batches_tracked")):
        assert torch.equal(v, frozen[k]), k
assert best_acc > 0.9
