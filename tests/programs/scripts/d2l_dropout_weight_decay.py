"""d2l.ai's dropout from scratch (a mask from torch.rand > p, scaled by 1/(1-p)) against
nn.Dropout's statistics, and weight decay by hand (an l2_penalty added to the loss) equal step by
step to SGD's weight_decay option applied to the weights only through parameter groups."""
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)

def dropout_layer(X, dropout):
    assert 0 <= dropout <= 1
    if dropout == 1:
        return torch.zeros_like(X)
    if dropout == 0:
        return X
    mask = (torch.rand(X.shape) > dropout).float()
    return mask * X / (1.0 - dropout)

X = torch.arange(16, dtype=torch.float32).reshape((2, 8))
print(dropout_layer(X, 0.0))
print(dropout_layer(X, 0.5))
assert torch.equal(dropout_layer(X, 1.0), torch.zeros_like(X))
big = torch.ones(200, 500)
ours = dropout_layer(big, 0.3)
theirs = nn.Dropout(0.3)(big)
for out in (ours, theirs):
    kept = (out != 0).float().mean().item()
    assert abs(kept - 0.7) < 0.01, kept
    assert abs(out.mean().item() - 1.0) < 0.02
    assert torch.allclose(out[out != 0], torch.full_like(out[out != 0], 1 / 0.7))

# an MLP with dropout from scratch
dropout1, dropout2 = 0.2, 0.5
class Net(nn.Module):
    def __init__(self, num_inputs, num_outputs, num_hiddens1, num_hiddens2, is_training=True):
        super(Net, self).__init__()
        self.num_inputs = num_inputs
        self.training = is_training
        self.lin1 = nn.Linear(num_inputs, num_hiddens1)
        self.lin2 = nn.Linear(num_hiddens1, num_hiddens2)
        self.lin3 = nn.Linear(num_hiddens2, num_outputs)
        self.relu = nn.ReLU()

    def forward(self, X):
        H1 = self.relu(self.lin1(X.reshape((-1, self.num_inputs))))
        if self.training == True:
            H1 = dropout_layer(H1, dropout1)
        H2 = self.relu(self.lin2(H1))
        if self.training == True:
            H2 = dropout_layer(H2, dropout2)
        return self.lin3(H2)

centers = torch.randn(3, 20) * 2
y = torch.randint(0, 3, (600,))
Xd = centers[y] + torch.randn(600, 20)
net = Net(20, 3, 64, 64)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(30):
    for i in range(0, 600, 50):
        loss = nn.functional.cross_entropy(net(Xd[i:i + 50]), y[i:i + 50])
        opt.zero_grad()
        loss.backward()
        opt.step()
net.eval()
assert net.training is False
with torch.no_grad():
    out1, out2 = net(Xd), net(Xd)
assert torch.equal(out1, out2)  # no dropout at eval
acc = (out1.argmax(1) == y).float().mean().item()
print("dropout MLP accuracy", acc)
assert acc > 0.95

# weight decay by hand
n_train, num_inputs, batch_size = 20, 200, 5
true_w, true_b = torch.ones((num_inputs, 1)) * 0.01, 0.05
Xw = torch.randn(n_train, num_inputs)
yw = Xw @ true_w + true_b + 0.01 * torch.randn(n_train, 1)

def l2_penalty(w):
    return torch.sum(w.pow(2)) / 2

def train(lambd, w, b, steps=100, lr=0.003):
    for step in range(steps):
        i = (step * batch_size) % n_train
        Xb, yb = Xw[i:i + batch_size], yw[i:i + batch_size]
        l = (Xb @ w + b - yb) ** 2 / 2 + lambd * l2_penalty(w)
        l.sum().backward()
        with torch.no_grad():
            for param in (w, b):
                param -= lr * param.grad / batch_size
                param.grad.zero_()
    return w, b

w0 = torch.normal(0, 1, size=(num_inputs, 1))
w, b = train(3.0, w0.clone().requires_grad_(True), torch.zeros(1, requires_grad=True))
w_free, _ = train(0.0, w0.clone().requires_grad_(True), torch.zeros(1, requires_grad=True))
print("L2 norm of w with decay:", torch.norm(w).item(), "without:", torch.norm(w_free).item())
assert torch.norm(w).item() < torch.norm(w_free).item()

# concise: weight_decay only on the weight through param groups; the same trajectory
lin = nn.Linear(num_inputs, 1)
with torch.no_grad():
    lin.weight.copy_(w0.T)
    lin.bias.zero_()
trainer = torch.optim.SGD([{"params": lin.weight, "weight_decay": 3.0}, {"params": lin.bias}], lr=0.003)
for step in range(100):
    i = (step * batch_size) % n_train
    Xb, yb = Xw[i:i + batch_size], yw[i:i + batch_size]
    trainer.zero_grad()
    l = nn.MSELoss()(lin(Xb), yb) / 2
    l.backward()
    trainer.step()
print("concise L2 norm:", lin.weight.norm().item())
assert torch.allclose(lin.weight.detach().T, w.detach(), atol=1e-5)
assert torch.allclose(lin.bias.detach(), b.detach(), atol=1e-6)
