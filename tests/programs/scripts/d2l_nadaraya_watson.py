"""d2l.ai's attention pooling by Nadaraya-Watson kernel regression: the average-pooling baseline,
the nonparametric estimator with x_test.repeat_interleave(n_train).reshape((-1, n_train)) and a
Gaussian kernel through softmax, then the parametric version with one learnable width w trained
on leave-one-out keys built by masking the diagonal of torch.eye with (1 - torch.eye(n)).type(
torch.bool), torch.bmm, unsqueeze, and nn.MSELoss(reduction='none'); checked against a NumPy
loop of the estimator."""
import numpy as np
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
n_train = 50
x_train, _ = torch.sort(torch.rand(n_train) * 5)


def f(x):
    return 2 * torch.sin(x) + x ** 0.8


y_train = f(x_train) + torch.normal(0.0, 0.5, (n_train,))
x_test = torch.arange(0, 5, 0.1)
y_truth = f(x_test)
n_test = len(x_test)

y_hat = torch.repeat_interleave(y_train.mean(), n_test)
avg_err = ((y_hat - y_truth) ** 2).mean().item()

X_repeat = x_test.repeat_interleave(n_train).reshape((-1, n_train))
attention_weights = nn.functional.softmax(-(X_repeat - x_train) ** 2 / 2, dim=1)
y_hat = torch.matmul(attention_weights, y_train)
np_err = ((y_hat - y_truth) ** 2).mean().item()

# the estimator by a NumPy loop
xt, yt = x_train.numpy().astype(np.float64), y_train.numpy().astype(np.float64)
ref = []
for q in x_test.numpy().astype(np.float64):
    k = np.exp(-((q - xt) ** 2) / 2)
    ref.append((k * yt).sum() / k.sum())
assert np.allclose(y_hat.numpy(), ref, atol=1e-4)
assert torch.allclose(attention_weights.sum(1), torch.ones(n_test))
print(f"average pooling mse {avg_err:.3f}, nonparametric mse {np_err:.3f}")
assert np_err < avg_err / 2

X = torch.ones((2, 1, 4))
Y = torch.ones((2, 4, 6))
assert torch.bmm(X, Y).shape == (2, 1, 6)
weights = torch.ones((2, 10)) * 0.1
values = torch.arange(20.0).reshape((2, 10))
assert torch.allclose(torch.bmm(weights.unsqueeze(1), values.unsqueeze(-1)).squeeze(), torch.tensor([4.5, 14.5]))


class NWKernelRegression(nn.Module):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = nn.Parameter(torch.rand((1,), requires_grad=True))

    def forward(self, queries, keys, values):
        queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
        self.attention_weights = nn.functional.softmax(-((queries - keys) * self.w) ** 2 / 2, dim=1)
        return torch.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)


X_tile = x_train.repeat((n_train, 1))
Y_tile = y_train.repeat((n_train, 1))
keys = X_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
values = Y_tile[(1 - torch.eye(n_train)).type(torch.bool)].reshape((n_train, -1))
assert keys.shape == (n_train, n_train - 1)
assert not any(x_train[i] in keys[i] for i in range(n_train))

net = NWKernelRegression()
loss = nn.MSELoss(reduction="none")
trainer = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(5):
    trainer.zero_grad()
    l = loss(net(x_train, keys, values), y_train)
    l.sum().backward()
    trainer.step()
    print(f"epoch {epoch + 1}, loss {float(l.sum()):.6f}, w {net.w.item():.3f}")

# leave-one-out loss as a function of w, by NumPy over a grid: training moved w downhill
def loo(w):
    total = 0.0
    for i in range(n_train):
        k = np.delete(xt, i)
        v = np.delete(yt, i)
        a = np.exp(-((xt[i] - k) * w) ** 2 / 2)
        total += ((a * v).sum() / a.sum() - yt[i]) ** 2
    return total

with torch.no_grad():
    l_now = float(loss(net(x_train, keys, values), y_train).sum())
assert abs(loo(net.w.item()) - l_now) < 1e-3 * l_now, (loo(net.w.item()), l_now)
assert l_now < float(l.sum())
keys_test = x_train.repeat((n_test, 1))
values_test = y_train.repeat((n_test, 1))
with torch.no_grad():
    y_hat = net(x_test, keys_test, values_test)
p_err = ((y_hat - y_truth) ** 2).mean().item()
print(f"parametric mse {p_err:.3f}")
assert p_err < avg_err / 2
