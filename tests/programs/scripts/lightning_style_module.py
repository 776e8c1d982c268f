"""A LightningModule written by hand, the way people copy PyTorch Lightning's pattern into a
project that cannot depend on it: the model defines training_step, validation_step and
configure_optimizers (returning an optimizer and a scheduler dict), logs through self.log, and a
small Trainer runs the epochs, calls on_train_epoch_end, steps the scheduler by its "interval",
and keeps the best weights by a ModelCheckpoint-like callback (a deep copy of the state_dict).
The data are two noisy moons made with NumPy."""
import copy
import math

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, TensorDataset


class LitClassifier(nn.Module):
    def __init__(self, hidden=32, lr=0.02):
        super().__init__()
        self.hparams = {"hidden": hidden, "lr": lr}
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 2))
        self.logged = {}

    def log(self, name, value, prog_bar=False):
        self.logged.setdefault(name, []).append(float(value))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss.item())
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        self.log("val_loss", F.cross_entropy(logits, y).item())
        self.log("val_acc", (logits.argmax(dim=1) == y).float().mean().item())

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams["lr"])
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "epoch"}}

    def on_train_epoch_end(self):
        self.log("lr", self.optimizer.param_groups[0]["lr"])


class Trainer:
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs
        self.best = (math.inf, None)

    def fit(self, model, train_loader, val_loader):
        conf = model.configure_optimizers()
        model.optimizer, sched = conf["optimizer"], conf["lr_scheduler"]["scheduler"]
        for epoch in range(self.max_epochs):
            model.train()
            for i, batch in enumerate(train_loader):
                loss = model.training_step(batch, i)
                model.optimizer.zero_grad()
                loss.backward()
                model.optimizer.step()
            sched.step()
            model.on_train_epoch_end()
            model.eval()
            with torch.no_grad():
                n_before = len(model.logged.get("val_loss", []))
                for i, batch in enumerate(val_loader):
                    model.validation_step(batch, i)
            val_loss = float(np.mean(model.logged["val_loss"][n_before:]))
            if val_loss < self.best[0]:
                self.best = (val_loss, copy.deepcopy(model.state_dict()))
        model.load_state_dict(self.best[1])


def moons(n, rng):
    t = rng.uniform(0, math.pi, n)
    upper = np.stack([np.cos(t), np.sin(t)], 1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], 1)
    x = np.concatenate([upper, lower]) + 0.1 * rng.standard_normal((2 * n, 2))
    y = np.concatenate([np.zeros(n), np.ones(n)])
    return torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.long)


torch.manual_seed(0)
rng = np.random.default_rng(0)
train_ds, val_ds = TensorDataset(*moons(200, rng)), TensorDataset(*moons(100, rng))
train_loader = DataLoader(train_ds, batch_size=32, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=64)
model = LitClassifier()
trainer = Trainer(max_epochs=30)
trainer.fit(model, train_loader, val_loader)
print("best val loss %.4f" % trainer.best[0])
print("final lr %.5f, val acc (last epoch) %.3f" % (model.logged["lr"][-1], model.logged["val_acc"][-1]))
assert model.logged["lr"][-1] == 0.02 * 0.5**3
assert trainer.best[0] < 0.15 and model.logged["val_acc"][-1] > 0.9
