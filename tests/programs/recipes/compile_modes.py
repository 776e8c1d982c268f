"""torch.compile as the recipes call it: a module compiled with mode="reduce-overhead", a
function with mode="max-autotune-no-cudagraphs" and fullgraph=True, the decorator with options,
backend="eager" for debugging, torch.compiler.reset(), model.compile() in place, and a training
step through the compiled module whose losses equal eager's."""
import copy

import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.GELU(), nn.Linear(32, 1))

    def forward(self, x):
        return self.net(x)


model = MLP()
eager = copy.deepcopy(model)
compiled = torch.compile(model, mode="reduce-overhead", backend="eager")
x, y = torch.randn(64, 10), torch.randn(64, 1)
assert torch.allclose(compiled(x), eager(x), atol=1e-6)
assert isinstance(compiled, nn.Module) and compiled._orig_mod is model
assert list(compiled.state_dict())[0].startswith("_orig_mod.")


def gelu_tanh(t):
    return 0.5 * t * (1 + torch.tanh(0.7978845608 * (t + 0.044715 * t**3)))


fast = torch.compile(gelu_tanh, mode="max-autotune-no-cudagraphs", fullgraph=True, backend="eager")
t = torch.randn(100)
assert torch.allclose(fast(t), nn.functional.gelu(t, approximate="tanh"), atol=1e-5)


@torch.compile(dynamic=True, backend="eager")
def scaled(t, s):
    return t * s


for n in (3, 5, 7):
    assert torch.equal(scaled(torch.ones(n), 2.0), torch.full((n,), 2.0))

opt_c = torch.optim.SGD(model.parameters(), lr=0.1)
opt_e = torch.optim.SGD(eager.parameters(), lr=0.1)
for step in range(5):
    for m, opt in ((compiled, opt_c), (eager, opt_e)):
        opt.zero_grad()
        loss = nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        if m is compiled:
            lc = loss.item()
        else:
            le = loss.item()
    assert abs(lc - le) < 1e-5, (lc, le)

torch.compiler.reset()
other = MLP()
other.compile(backend="eager")
assert torch.allclose(other(x), other.net(x), atol=1e-6)
assert torch.compiler.is_compiling() is False
print(f"compiled and eager losses agree: {lc:.5f} {le:.5f}")
