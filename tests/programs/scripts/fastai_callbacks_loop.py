"""A fast.ai / Udacity-notebook training loop on a tabular regression problem: a train/valid
split by torch.randperm, inputs normalised with the training mean and std, a learning-rate
schedule by hand (linear warm-up then cosine annealing, written into param_groups every batch),
callbacks as plain functions called at 'begin_fit', 'after_batch', 'after_epoch' (a recorder, an
early stop on a non-improving validation loss, a best-model keeper via copy.deepcopy of the
state_dict), and fit(epochs, model, loss_func, opt, train_dl, valid_dl) returning the history;
the recorded schedule checked against its formula and the best model against the recorded
minimum."""
import copy
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
n = 1000
x = torch.rand(n, 4) * 4 - 2
y = (torch.sin(x[:, 0]) + 0.5 * x[:, 1] ** 2 - x[:, 2] * x[:, 3]).unsqueeze(1) + 0.05 * torch.randn(n, 1)

perm = torch.randperm(n)
split = int(0.8 * n)
train_idx, valid_idx = perm[:split], perm[split:]
assert len(set(train_idx.tolist()) & set(valid_idx.tolist())) == 0
x_train, y_train = x[train_idx], y[train_idx]
x_valid, y_valid = x[valid_idx], y[valid_idx]
mean, std = x_train.mean(0), x_train.std(0)
x_train, x_valid = (x_train - mean) / std, (x_valid - mean) / std
assert torch.allclose(x_train.mean(0), torch.zeros(4), atol=1e-5)

bs = 64
train_dl = DataLoader(TensorDataset(x_train, y_train), batch_size=bs, shuffle=True)
valid_dl = DataLoader(TensorDataset(x_valid, y_valid), batch_size=bs * 2)

epochs, max_lr, warmup_frac = 30, 3e-3, 0.1
total_steps = epochs * len(train_dl)


def sched(step):
    warm = int(warmup_frac * total_steps)
    if step < warm:
        return max_lr * step / warm
    pos = (step - warm) / (total_steps - warm)
    return max_lr * (1 + math.cos(math.pi * pos)) / 2


state = {}


def recorder(event):
    if event == "begin_fit":
        state["lrs"], state["losses"], state["valid"] = [], [], []
    elif event == "after_batch":
        state["lrs"].append(state["opt"].param_groups[0]["lr"])
        state["losses"].append(state["loss"])
    elif event == "after_epoch":
        state["valid"].append(state["valid_loss"])


def save_best(event):
    if event == "begin_fit":
        state["best"] = (float("inf"), None)
    elif event == "after_epoch" and state["valid_loss"] < state["best"][0]:
        state["best"] = (state["valid_loss"], copy.deepcopy(state["model"].state_dict()))


def early_stop(event, patience=6):
    if event == "after_epoch":
        best_epoch = min(range(len(state["valid"])), key=state["valid"].__getitem__)
        if len(state["valid"]) - 1 - best_epoch >= patience:
            state["stop"] = True


callbacks = [recorder, save_best, early_stop]


def run(event):
    for cb in callbacks:
        cb(event)


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    state.update(model=model, opt=opt, stop=False)
    run("begin_fit")
    step = 0
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            for g in opt.param_groups:
                g["lr"] = sched(step)
            state["loss"], _ = loss_batch(model, loss_func, xb, yb, opt)
            run("after_batch")
            step += 1
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        state["valid_loss"] = sum(l * n for l, n in zip(losses, nums)) / sum(nums)
        run("after_epoch")
        if epoch % 5 == 0:
            print(epoch, f"train {state['loss']:.4f} valid {state['valid_loss']:.4f} lr {opt.param_groups[0]['lr']:.2e}")
        if state["stop"]:
            print("early stop at epoch", epoch)
            break
    return state


model = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=0.0, weight_decay=1e-4)
hist = fit(epochs, model, nn.MSELoss(), opt, train_dl, valid_dl)

steps = len(hist["lrs"])
assert all(abs(lr - sched(i)) < 1e-12 for i, lr in enumerate(hist["lrs"]))
assert hist["lrs"][0] == 0.0 and max(hist["lrs"]) <= max_lr
best_loss, best_state = hist["best"]
assert best_loss == min(hist["valid"])
model.load_state_dict(best_state)
model.eval()
with torch.no_grad():
    again = nn.functional.mse_loss(model(x_valid), y_valid).item()
print("best valid loss", best_loss, "recomputed", again, "var(y)", y_valid.var().item())
assert abs(again - best_loss) < 1e-5
assert best_loss < 0.1 * y_valid.var().item()
