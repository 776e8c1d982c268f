"""The "Introduction to torch.compile" tutorial's first steps, which must give the eager numbers:
a function of sin/cos compiled with torch.compile (the decorator form too), a module compiled by
torch.compile(model) and by model.compile() keeping state_dict keys (_orig_mod. prefix on the
wrapper), training a compiled model step by step equal to the eager one, torch.compiler.reset(),
and a function with data-dependent control flow (a graph break in PyTorch) giving the same results."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)


def foo(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


opt_foo1 = torch.compile(foo)
x, y = torch.randn(10, 10), torch.randn(10, 10)
assert torch.allclose(opt_foo1(x, y), foo(x, y), atol=1e-6)  # fused kernels may round differently


@torch.compile
def opt_foo2(x, y):
    a = torch.sin(x)
    b = torch.cos(y)
    return a + b


assert torch.allclose(opt_foo2(x, y), foo(x, y), atol=1e-6)


class MyModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(100, 10)

    def forward(self, x):
        return torch.nn.functional.relu(self.lin(x))


mod = MyModule()
opt_mod = torch.compile(mod)
t = torch.randn(10, 100)
assert torch.allclose(opt_mod(t), mod(t), atol=1e-6)
assert opt_mod.lin is mod.lin and mod.compile() is None and list(mod.state_dict()) == ["lin.weight", "lin.bias"]
assert list(opt_mod.state_dict()) == ["_orig_mod.lin.weight", "_orig_mod.lin.bias"]
assert opt_mod._orig_mod is mod


def bar(a, b):
    x = a / (torch.abs(a) + 1)
    if b.sum() < 0:
        b = b * -1
    return x * b


opt_bar = torch.compile(bar)
for _ in range(4):
    a, b = torch.randn(10), torch.randn(10)
    assert torch.allclose(opt_bar(a, b), bar(a, b), atol=1e-6)

torch.manual_seed(1)
eager = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 1))
torch.manual_seed(1)
compiled_base = nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 1))
compiled_base.compile()
model_c = compiled_base
opt_e = torch.optim.Adam(eager.parameters(), lr=1e-2)
opt_c = torch.optim.Adam(model_c.parameters(), lr=1e-2)
X = torch.randn(64, 8)
first_loss = None
Y = X.sum(1, keepdim=True).sin()
for step in range(30):
    for model, opt in ((eager, opt_e), (model_c, opt_c)):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
    losses = [nn.functional.mse_loss(m(X), Y).item() for m in (eager, model_c)]
    first_loss = first_loss or losses[0]
    assert abs(losses[0] - losses[1]) < 1e-5
print(f"eager and compiled losses after 30 Adam steps: {losses}")
assert losses[0] < 0.6 * first_loss
torch.compiler.reset()
assert torch.allclose(torch.compile(foo)(x, y), foo(x, y), atol=1e-6)
