"""Module buffers and the no-grad modes as the nn.Module docs and the inference_mode recipe use
them: register_buffer for running statistics (in state_dict, moved by .double(), not in
parameters()), persistent=False keeping a cache out of state_dict, a buffer set to None, a
running-mean normaliser updated under torch.no_grad(); then torch.inference_mode: tensors made
inside report is_inference(), cannot be saved for backward outside it (RuntimeError), a clone
outside is a normal tensor; no_grad tensors can join autograd later; inference_mode(False) and
the decorator form; and all three evaluate the same numbers."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)


class RunningNorm(nn.Module):
    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("running_mean", torch.zeros(dim))
        self.register_buffer("running_var", torch.ones(dim))
        self.register_buffer("num_batches", torch.tensor(0, dtype=torch.long))
        self.register_buffer("cache", torch.zeros(dim), persistent=False)
        self.register_buffer("optional", None)
        self.scale = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0))
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * x.var(0))
                self.num_batches += 1
                self.cache.copy_(x[-1])
        return (x - self.running_mean) / (self.running_var + 1e-5).sqrt() * self.scale


m = RunningNorm(3)
assert [n for n, _ in m.named_parameters()] == ["scale"]
assert [n for n, _ in m.named_buffers()] == ["running_mean", "running_var", "num_batches", "cache"]
assert list(m.state_dict()) == ["scale", "running_mean", "running_var", "num_batches"]
data = torch.randn(200, 3) * torch.tensor([1.0, 2.0, 0.5]) + torch.tensor([1.0, -2.0, 3.0])
for batch in data.split(20):
    m(batch)
assert m.num_batches.item() == 10
# the closed form of the exponential average over the ten batch means
expected = torch.zeros(3)
for batch in data.split(20):
    expected = 0.9 * expected + 0.1 * batch.mean(0)
assert torch.allclose(m.running_mean, expected, atol=1e-6)
assert not m.running_mean.requires_grad
m2 = RunningNorm(3)
m2.load_state_dict(m.state_dict())
assert torch.equal(m2.running_var, m.running_var) and torch.equal(m2.cache, torch.zeros(3))
m.double()
assert m.running_mean.dtype == torch.float64 and m.num_batches.dtype == torch.long
m.float()

model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.randn(5, 3)
with torch.inference_mode():
    y_inf = model(x)
assert y_inf.is_inference() and not y_inf.requires_grad
with torch.no_grad():
    y_ng = model(x)
assert not y_ng.is_inference() and not y_ng.requires_grad
y = model(x)
assert torch.equal(y_inf, y_ng) and torch.equal(y_ng, y.detach())

w = torch.ones(5, 1, requires_grad=True)
try:
    (y_inf * w).sum().backward()
    raised = False
except RuntimeError as err:
    raised = "inference" in str(err).lower()
assert raised
(y_inf.clone() * w).sum().backward()  # a clone made outside is a normal tensor
assert torch.allclose(w.grad, y_inf)
w.grad = None
(y_ng * w).sum().backward()  # no_grad results take part in autograd later
assert torch.allclose(w.grad, y_ng)

with torch.inference_mode():
    with torch.inference_mode(False):
        z = model(x)
    assert z.requires_grad and not z.is_inference()
    assert torch.is_inference_mode_enabled()
assert not torch.is_inference_mode_enabled()


@torch.inference_mode()
def predict(inputs):
    return model(inputs).squeeze(1)


p = predict(x)
assert p.is_inference() and torch.equal(p, y_ng.squeeze(1))
print("running mean", [round(v, 3) for v in m.running_mean.tolist()], "inference output", [round(v, 3) for v in p.tolist()])
