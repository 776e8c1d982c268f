""""Learning PyTorch with Examples": y = sin(x) fitted by a third-order polynomial four ways -
tensors with hand-written gradients, autograd with manual updates under torch.no_grad(), a custom
autograd.Function (LegendrePolynomial3, P3(z) = (5z^3 - 3z)/2) with ctx.save_for_backward, and
nn.Sequential(Linear(3, 1), Flatten(0, 1)) on x.unsqueeze(-1).pow(p) trained by RMSprop; then the
DynamicNet that reuses one weight a random number of times."""
import math
import random
import minigenesis as torch

dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 500, device=device, dtype=dtype)
y = torch.sin(x)

# 1. tensors, gradients by hand
a, b, c, d = (torch.tensor(v, dtype=dtype) for v in (0.1, -0.2, 0.3, -0.1))
learning_rate = 4e-6
for t in range(1000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
manual = [a.item(), b.item(), c.item(), d.item()]
print(f"by hand: loss {loss:.2f}, y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")

# 2. autograd, the same start, updates under no_grad
a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in (0.1, -0.2, 0.3, -0.1))
for t in range(1000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
auto = [a.item(), b.item(), c.item(), d.item()]
print(f"autograd: loss {loss.item():.2f}")
assert all(abs(m - n) < 1e-4 for m, n in zip(manual, auto)), (manual, auto)
assert loss.item() < 8


# 3. a custom autograd.Function
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 2e-5
for t in range(1000):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 250 == 249:
        print(f"legendre step {t}: {loss.item():.3f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f"Legendre: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
assert loss.item() < 8
z = torch.linspace(-1, 1, 7, dtype=torch.float64, requires_grad=True)
assert torch.autograd.gradcheck(LegendrePolynomial3.apply, (z,))

# 4. nn.Sequential with Flatten(0, 1), RMSprop
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
assert xx.shape == (500, 3)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():  # a fixed start, so both engines walk the same path
    model[0].weight.copy_(torch.tensor([[0.1, -0.2, 0.05]]))
    model[0].bias.fill_(0.1)
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
for t in range(1000):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f"RMSprop: y = {linear_layer.bias.item():.2f} + {linear_layer.weight[:, 0].item():.2f} x"
      f" + {linear_layer.weight[:, 1].item():.2f} x^2 + {linear_layer.weight[:, 2].item():.2f} x^3")
assert loss.item() < 10
# the least-squares cubic of sin on [-pi, pi]: x - 0.1551 x^3 roughly
assert abs(linear_layer.weight[:, 0].item() - 0.857) < 0.05 and abs(linear_layer.weight[:, 2].item() + 0.093) < 0.01


# 5. a dynamic graph: the same weight applied a random number of times
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?"


random.seed(0)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=4e-8, momentum=0.9)
first = None
for t in range(500):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    first = loss.item() if first is None else first
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"DynamicNet: loss {first:.1f} -> {loss.item():.1f}")
assert loss.item() < first
