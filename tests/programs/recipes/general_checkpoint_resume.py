"""The "saving and loading a general checkpoint" recipe: epoch, model, optimizer (Adam with its
moments), scheduler and loss in one dict saved to a .tar file, loaded back with
torch.load(weights_only=True) into fresh objects, model.train() and resumed: the resumed run's
losses equal an uninterrupted run's exactly."""
import os
import tempfile

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.optim as optim

torch.manual_seed(0)
X = torch.randn(128, 6)
Y = (X @ torch.randn(6, 1)).tanh()


def make():
    torch.manual_seed(1)
    net = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Dropout(0.0), nn.Linear(16, 1))
    optimizer = optim.Adam(net.parameters(), lr=0.01, weight_decay=1e-4)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)
    return net, optimizer, scheduler


def epoch_loss(net, optimizer, scheduler):
    total = 0.0
    for i in range(0, 128, 32):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(net(X[i : i + 32]), Y[i : i + 32])
        loss.backward()
        optimizer.step()
        total += loss.item()
    scheduler.step()
    return total


net, optimizer, scheduler = make()
straight = [epoch_loss(net, optimizer, scheduler) for _ in range(8)]

net, optimizer, scheduler = make()
for epoch in range(4):
    loss = epoch_loss(net, optimizer, scheduler)
PATH = os.path.join(tempfile.mkdtemp(), "model.tar")
torch.save(
    {
        "epoch": epoch,
        "model_state_dict": net.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "scheduler_state_dict": scheduler.state_dict(),
        "loss": loss,
    },
    PATH,
)

model, optimizer, scheduler = make()
checkpoint = torch.load(PATH, weights_only=True)
model.load_state_dict(checkpoint["model_state_dict"])
optimizer.load_state_dict(checkpoint["optimizer_state_dict"])
scheduler.load_state_dict(checkpoint["scheduler_state_dict"])
epoch = checkpoint["epoch"]
loss = checkpoint["loss"]
assert epoch == 3 and loss == straight[3]
assert optimizer.state_dict()["state"][0]["step"].item() == 16
assert scheduler.get_last_lr() == [0.005] and optimizer.param_groups[0]["lr"] == 0.005
model.train()
resumed = [epoch_loss(model, optimizer, scheduler) for _ in range(epoch + 1, 8)]
print("straight", [round(v, 5) for v in straight[4:]])
print("resumed ", [round(v, 5) for v in resumed])
assert resumed == straight[4:]
model.eval()
