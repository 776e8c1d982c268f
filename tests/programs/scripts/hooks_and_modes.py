"""Feature extraction and the global switches tutorials and blog posts use: register_forward_hook
collecting activations into a dict (and handle.remove()), register_full_backward_hook capturing
grad_output, a forward pre-hook rescaling the input, torch.compile as a decorator on a function
and on a module (results unchanged), torch.inference_mode (is_inference, no graph),
torch.set_grad_enabled(False) as a call and a context, torch.backends.cudnn flags,
torch.set_num_threads / get_num_threads, torch.set_printoptions, and
set_default_dtype(torch.float64) making new tensors and layers double."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
torch.backends.cudnn.benchmark = True
torch.backends.cudnn.deterministic = True
torch.set_num_threads(2)
assert torch.get_num_threads() == 2
print("cuda available:", torch.cuda.is_available(), "| mps:", torch.backends.mps.is_available())
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2)).to(device)
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


handles = [model[1].register_forward_hook(get_activation("relu")), model[3].register_forward_hook(get_activation("tanh"))]
x = torch.randn(5, 4, device=device)
output = model(x)
assert torch.equal(activation["relu"], F.relu(model[0](x)).detach())
assert torch.allclose(activation["tanh"], torch.tanh(model[2](activation["relu"])))
assert not activation["relu"].requires_grad
for h in handles:
    h.remove()
activation.clear()
model(x)
assert activation == {}

grads = {}


def save_grad(name):
    def hook(module, grad_input, grad_output):
        grads[name] = (grad_input[0], grad_output[0])
    return hook


model[2].register_full_backward_hook(save_grad("fc2"))
out = model(x)
out.sum().backward()
gin, gout = grads["fc2"]
assert gout.shape == (5, 8) and gin.shape == (5, 8)
assert torch.allclose(gin, gout @ model[2].weight)  # dL/dx = dL/dy W for a Linear layer
print("backward hook grad_output norm", round(gout.norm().item(), 4))

pre = model[0].register_forward_pre_hook(lambda module, args: (args[0] * 2,))
assert torch.allclose(model(x), model[1:](F.linear(2 * x, model[0].weight, model[0].bias)))
pre.remove()


@torch.compile
def gelu_tanh(x):
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608028654 * (x + 0.044715 * torch.pow(x, 3.0))))


assert torch.allclose(gelu_tanh(x), F.gelu(x, approximate="tanh"), atol=1e-6)
compiled = torch.compile(model, mode="reduce-overhead")
assert torch.allclose(compiled(x), model(x))

with torch.inference_mode():
    y = model(x)
assert y.is_inference() and not y.requires_grad and y.grad_fn is None
assert not torch.is_inference_mode_enabled()

torch.set_grad_enabled(False)
assert not torch.is_grad_enabled() and not model(x).requires_grad
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    assert model(x).grad_fn is None
assert model(x).grad_fn is not None
is_train = False
with torch.set_grad_enabled(is_train):
    val_out = model(x)
assert not val_out.requires_grad

torch.set_printoptions(precision=2)
print(model(x)[:2])
torch.set_printoptions(profile="default")

print("default dtype", torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
layer = nn.Linear(3, 1)
t = torch.tensor([1.0, 2.0, 3.0])
assert layer.weight.dtype == torch.float64 and t.dtype == torch.float64 and torch.randn(2).dtype == torch.float64
assert torch.tensor([1, 2]).dtype == torch.int64 and torch.arange(3.0).dtype == torch.float64
assert (torch.ones(2, dtype=torch.float32) + t[:2]).dtype == torch.float64
assert (torch.ones(2, dtype=torch.float32) * 2.5).dtype == torch.float32
torch.set_default_dtype(torch.float32)
assert torch.tensor(1.0).dtype == torch.float32 and torch.get_default_dtype() == torch.float32
print("float64 layer:", layer.weight.dtype, "back to", torch.get_default_dtype())
