"""Early stopping plus an exact resume: a model with Dropout trained with a shuffled DataLoader,
SGD with momentum and OneCycleLR; the best weights kept with copy.deepcopy(model.state_dict());
a checkpoint dict (epoch, model, optimizer, scheduler, RNG state, best weights) written with
torch.save to a file and read back with torch.load(map_location=...); the resumed run must
reproduce the uninterrupted run bit for bit."""
import copy
import os
import tempfile
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.data import DataLoader, TensorDataset

device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
torch.manual_seed(0)
X = torch.randn(400, 8)
y = (X[:, 0] - 2 * X[:, 1] + 0.5 * X[:, 2] ** 2 > 0).long()
train_ds = TensorDataset(X[:300], y[:300])
X_val, y_val = X[300:], y[300:]
EPOCHS, STEPS_PER_EPOCH = 8, 10


def build():
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2)).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.2, epochs=EPOCHS,
                                                    steps_per_epoch=STEPS_PER_EPOCH)
    return model, optimizer, scheduler


def run_epoch(model, optimizer, scheduler, loader):
    model.train()
    for xb, yb in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(xb.to(device)), yb.to(device))
        loss.backward()
        optimizer.step()
        scheduler.step()
    model.eval()
    with torch.no_grad():
        return nn.functional.cross_entropy(model(X_val), y_val).item()


def train(start_epoch, end_epoch, model, optimizer, scheduler, best):
    loader = DataLoader(train_ds, batch_size=30, shuffle=True)
    for epoch in range(start_epoch, end_epoch):
        val_loss = run_epoch(model, optimizer, scheduler, loader)
        if val_loss < best['loss']:
            best = {'loss': val_loss, 'epoch': epoch, 'state': copy.deepcopy(model.state_dict())}
            best['patience'] = 0
        else:
            best['patience'] += 1
        if best['patience'] >= 3:
            print(f"early stop at epoch {epoch}")
            break
    return best


# the run that is never interrupted
model, optimizer, scheduler = build()
torch.manual_seed(123)
best = train(0, EPOCHS, model, optimizer, scheduler, {'loss': float('inf'), 'patience': 0})
reference = {k: v.clone() for k, v in model.state_dict().items()}
print(f"uninterrupted: best val loss {best['loss']:.4f} at epoch {best['epoch']}, lr now {scheduler.get_last_lr()[0]:.6f}")

# the same run, stopped after 3 epochs, saved, and resumed in fresh objects
model, optimizer, scheduler = build()
torch.manual_seed(123)
best = train(0, 3, model, optimizer, scheduler, {'loss': float('inf'), 'patience': 0})
path = os.path.join(tempfile.mkdtemp(), 'checkpoint.pt')
torch.save({
    'epoch': 3,
    'model_state_dict': model.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'scheduler_state_dict': scheduler.state_dict(),
    'rng_state': torch.get_rng_state(),
    'best': best,
}, path)
del model, optimizer, scheduler

model, optimizer, scheduler = build()
torch.manual_seed(999)  # whatever the RNG is now, the checkpoint's state replaces it
checkpoint = torch.load(path, map_location=device, weights_only=False)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
torch.set_rng_state(checkpoint['rng_state'])
best = train(checkpoint['epoch'], EPOCHS, model, optimizer, scheduler, checkpoint['best'])
os.remove(path)
print(f"resumed:       best val loss {best['loss']:.4f} at epoch {best['epoch']}, lr now {scheduler.get_last_lr()[0]:.6f}")
for k, v in model.state_dict().items():
    assert torch.equal(v, reference[k]), k
assert 0.85 <= optimizer.param_groups[0]['momentum'] <= 0.95  # OneCycleLR cycles momentum too

model.load_state_dict(best['state'])
model.eval()
with torch.no_grad():
    acc = (model(X_val).argmax(1) == y_val).float().mean().item()
print(f"best model: val accuracy {acc:.3f}")
assert acc > 0.85
