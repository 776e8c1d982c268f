"""Learning PyTorch with Examples, the warm-up: the same cubic fit of sin(x) written with NumPy,
with tensors and hand-written gradients, with autograd, and with nn.Sequential + Flatten(0, 1)
and SGD; from the same start the four give the same coefficients (float64)."""
import math

import numpy as np
import minigenesis as torch

x_np = np.linspace(-math.pi, math.pi, 2000)
y_np = np.sin(x_np)
rng = np.random.default_rng(0)
start = rng.standard_normal(4)
lr, steps = 1e-6, 400

a, b, c, d = start
for t in range(steps):
    y_pred = a + b * x_np + c * x_np ** 2 + d * x_np ** 3
    grad_y_pred = 2.0 * (y_pred - y_np)
    a -= lr * grad_y_pred.sum()
    b -= lr * (grad_y_pred * x_np).sum()
    c -= lr * (grad_y_pred * x_np ** 2).sum()
    d -= lr * (grad_y_pred * x_np ** 3).sum()
numpy_coeffs = np.array([a, b, c, d])

dtype = torch.float64
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a, b, c, d = (torch.tensor(v, dtype=dtype) for v in start)
for t in range(steps):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    a -= lr * grad_y_pred.sum()
    b -= lr * (grad_y_pred * x).sum()
    c -= lr * (grad_y_pred * x ** 2).sum()
    d -= lr * (grad_y_pred * x ** 3).sum()
manual = torch.stack([a, b, c, d])

a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in start)
for t in range(steps):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= lr * p.grad
            p.grad = None
auto = torch.stack([a, b, c, d]).detach()

p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)).to(dtype)
with torch.no_grad():
    model[0].bias.copy_(torch.tensor(start[:1]))
    model[0].weight.copy_(torch.tensor(start[1:]).view(1, 3))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
for t in range(steps):
    loss = loss_fn(model(xx), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
nn_coeffs = torch.cat([linear_layer.bias, linear_layer.weight[:, 0], linear_layer.weight[:, 1], linear_layer.weight[:, 2]]).detach()

print("numpy", numpy_coeffs)
print("nn   ", nn_coeffs.numpy())
assert np.allclose(manual.numpy(), numpy_coeffs, rtol=1e-10, atol=1e-12)
assert np.allclose(auto.numpy(), numpy_coeffs, rtol=1e-10, atol=1e-12)
assert np.allclose(nn_coeffs.numpy(), numpy_coeffs, rtol=1e-10, atol=1e-12)
final = ((numpy_coeffs[0] + numpy_coeffs[1] * x_np + numpy_coeffs[2] * x_np ** 2 + numpy_coeffs[3] * x_np ** 3 - y_np) ** 2).sum()
assert final < ((start[0] + start[1] * x_np + start[2] * x_np ** 2 + start[3] * x_np ** 3 - y_np) ** 2).sum()
