"""An MLP classifier: TensorDataset, random_split, shuffled DataLoader, Adam, train/eval loops."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(42)
X = torch.randn(1200, 20)
w_true = torch.randn(20, 3)
y = (X @ w_true).argmax(dim=1)
ds = TensorDataset(X, y)
train_ds, val_ds = random_split(ds, [1000, 200], generator=torch.Generator().manual_seed(0))
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 64)
        self.out = nn.Linear(64, 3)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(F.relu(self.fc2(x)))
        return self.out(x)

model = Net()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(8):
    model.train()
    total = 0.0
    for xb, yb in train_loader:
        opt.zero_grad()
        loss = crit(model(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item() * xb.size(0)
    model.eval()
    correct = 0
    with torch.no_grad():
        for xb, yb in val_loader:
            correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch} loss {total / len(train_ds):.4f} val acc {correct / len(val_ds):.3f}")
assert correct / len(val_ds) > 0.8
