"""d2l.ai's batch normalization from scratch: batch_norm(X, gamma, beta, moving_mean, moving_var,
eps, momentum) under torch.is_grad_enabled(), per-feature for 2-d and per-channel (mean over
dims (0, 2, 3), keepdim=True) for 4-d inputs, a BatchNorm module holding its moving statistics as
plain tensors moved with .to(X.device); checked against F.batch_norm and nn.BatchNorm2d's running
statistics (biased variance for normalizing, unbiased for the running one), and a LeNet with it
trained on synthetic images."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
    if not torch.is_grad_enabled():
        X_hat = (X - moving_mean) / torch.sqrt(moving_var + eps)
    else:
        assert len(X.shape) in (2, 4)
        if len(X.shape) == 2:
            mean = X.mean(dim=0)
            var = ((X - mean) ** 2).mean(dim=0)
        else:
            mean = X.mean(dim=(0, 2, 3), keepdim=True)
            var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
        X_hat = (X - mean) / torch.sqrt(var + eps)
        moving_mean = momentum * moving_mean + (1.0 - momentum) * mean
        moving_var = momentum * moving_var + (1.0 - momentum) * var
    Y = gamma * X_hat + beta
    return Y, moving_mean.data, moving_var.data


class BatchNorm(nn.Module):
    def __init__(self, num_features, num_dims):
        super().__init__()
        shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
        self.gamma = nn.Parameter(torch.ones(shape))
        self.beta = nn.Parameter(torch.zeros(shape))
        self.moving_mean = torch.zeros(shape)
        self.moving_var = torch.ones(shape)

    def forward(self, X):
        if self.moving_mean.device != X.device:
            self.moving_mean = self.moving_mean.to(X.device)
            self.moving_var = self.moving_var.to(X.device)
        Y, self.moving_mean, self.moving_var = batch_norm(
            X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.9
        )
        return Y


# against the library's batch norm, in training mode
X = torch.randn(8, 3, 5, 5) * 2 + 1
bn = BatchNorm(3, 4)
ref = nn.BatchNorm2d(3, momentum=0.1)
Y = bn(X)
Y_ref = ref(X)
assert torch.allclose(Y, Y_ref, atol=1e-5)
assert torch.allclose(bn.moving_mean.flatten(), ref.running_mean, atol=1e-6)
n = X.numel() / X.shape[1]
unbiased = 0.9 + 0.1 * X.var(dim=(0, 2, 3), unbiased=True)
assert torch.allclose(ref.running_var, unbiased, atol=1e-5)
assert torch.allclose(bn.moving_var.flatten(), 0.9 + 0.1 * X.var(dim=(0, 2, 3)) * (n - 1) / n, atol=1e-5)
Y_f = F.batch_norm(X, None, None, training=True, eps=1e-5)
assert torch.allclose(Y, Y_f, atol=1e-5)
# gradients through the by-hand version equal the library's
g = torch.randn_like(X)
Xa = X.clone().requires_grad_(True)
Xb = X.clone().requires_grad_(True)
(BatchNorm(3, 4)(Xa) * g).sum().backward()
(nn.BatchNorm2d(3)(Xb) * g).sum().backward()
assert torch.allclose(Xa.grad, Xb.grad, atol=1e-5)
# inference uses the moving statistics
with torch.no_grad():
    Y_eval = bn(X)
assert torch.allclose(Y_eval, (X - bn.moving_mean) / torch.sqrt(bn.moving_var + 1e-5), atol=1e-5)

net = nn.Sequential(
    nn.Conv2d(1, 6, kernel_size=5), BatchNorm(6, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2),
    nn.Conv2d(6, 16, kernel_size=3), BatchNorm(16, num_dims=4), nn.Sigmoid(),
    nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
    nn.Linear(16 * 2 * 2, 32), BatchNorm(32, num_dims=2), nn.Sigmoid(),
    nn.Linear(32, 3),
)
# three classes: a bright blob in one of three places
y = torch.randint(0, 3, (300,))
imgs = 0.3 * torch.randn(300, 1, 16, 16)
for k in range(3):
    imgs[y == k, :, 2 + 4 * k:7 + 4 * k, 4:10] += 1.5
opt = torch.optim.SGD(net.parameters(), lr=0.5)
for epoch in range(6):
    perm = torch.randperm(300)
    for i in range(0, 300, 30):
        idx = perm[i:i + 30]
        loss = F.cross_entropy(net(imgs[idx]), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f}")
net.eval()
with torch.no_grad():
    acc = (net(imgs).argmax(1) == y).float().mean().item()
print("accuracy with moving statistics", acc, "gamma", net[1].gamma.reshape((-1,))[:3])
assert acc > 0.9
